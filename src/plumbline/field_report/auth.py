from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

CanReadFieldReports = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_READ,
            scope="field-reports:read",
            module="fieldReports",
            feature=Feature.RECORDS,
        )
    ),
]
CanWriteFieldReports = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_WRITE,
            scope="field-reports:write",
            module="fieldReports",
            feature=Feature.RECORDS,
        )
    ),
]
