from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

CanReadPunch = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_READ, scope="punch:read", module="punch", feature=Feature.RECORDS
        )
    ),
]
CanWritePunch = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_WRITE, scope="punch:write", module="punch", feature=Feature.RECORDS
        )
    ),
]
