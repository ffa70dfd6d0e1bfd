"""Anyone who reads the project's records reads its dashboard; keys need project:read."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access

CanReadDashboard = Annotated[
    ProjectContext, Depends(project_access(Permission.RECORDS_READ, scope="project:read"))
]
