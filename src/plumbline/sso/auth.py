"""Access aliases of the SSO configuration routes: ADMIN+ on the enterprise plan."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.workspace import WorkspaceContext, workspace_access

CanConfigureSso = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.WORKSPACE_UPDATE, feature=Feature.SSO)),
]
