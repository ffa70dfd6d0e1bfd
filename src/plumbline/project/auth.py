"""Who may do what with projects."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access
from plumbline.authz.workspace import WorkspaceContext, workspace_access

WorkspaceMember = Annotated[WorkspaceContext, Depends(workspace_access(None))]
CanCreateProject = Annotated[WorkspaceContext, Depends(workspace_access(Permission.PROJECT_CREATE))]
# API keys of the project may read it (scope project:read); everything else needs a session.
CanReadProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope="project:read"))
]
ProjectSession = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope=None))
]
CanUpdateProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_UPDATE, scope=None))
]
CanDeleteProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_DELETE, scope=None))
]
CanManageProjectMembers = Annotated[
    ProjectContext, Depends(project_access(Permission.MEMBERS_MANAGE, scope=None))
]
