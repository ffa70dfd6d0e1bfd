"""Access aliases of the workspace routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.workspace import WorkspaceContext, workspace_access

CanUpdateWorkspace = Annotated[
    WorkspaceContext, Depends(workspace_access(Permission.WORKSPACE_UPDATE))
]
CanDeleteWorkspace = Annotated[
    WorkspaceContext, Depends(workspace_access(Permission.WORKSPACE_DELETE))
]
