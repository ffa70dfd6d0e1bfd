"""Access aliases of the member and invite routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.workspace import WorkspaceContext, workspace_access

CanManageMembers = Annotated[WorkspaceContext, Depends(workspace_access(Permission.MEMBERS_MANAGE))]
