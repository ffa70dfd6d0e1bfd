"""API keys are managed by ADMIN and SUPER_ADMIN with a session; keys never manage keys."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access

CanManageApiKeys = Annotated[
    ProjectContext, Depends(project_access(Permission.API_KEYS_MANAGE, scope=None))
]
