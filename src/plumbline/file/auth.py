"""Access aliases of the file routes (the rules, clients' included, are in ``authz.files``)."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.files import FileAccess, file_access, files_access
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext

# /projects/{projectId}/... : the project's files and folders
CanReadFiles = Annotated[ProjectContext, Depends(files_access(Permission.FILES_READ))]
CanUploadFiles = Annotated[ProjectContext, Depends(files_access(Permission.FILES_UPLOAD))]
CanManageFiles = Annotated[ProjectContext, Depends(files_access(Permission.FILES_MANAGE))]
# /projects/{projectId}/files/{fileId}: one file, hidden (404) from clients without drawings
CanOpenProjectFile = Annotated[
    ProjectContext, Depends(files_access(Permission.FILES_READ, single=True))
]
CanEditProjectFile = Annotated[
    ProjectContext, Depends(files_access(Permission.FILES_UPLOAD, single=True))
]
CanDeleteProjectFile = Annotated[
    ProjectContext, Depends(files_access(Permission.FILES_MANAGE, single=True))
]
# /files/{fileId}/...: the project is the file's
CanReadFile = Annotated[FileAccess, Depends(file_access(Permission.FILES_READ))]
