from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

CanReadProposals = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_READ,
            scope="proposals:read",
            module="proposals",
            feature=Feature.PROPOSALS,
        )
    ),
]
CanWriteProposals = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_WRITE,
            scope="proposals:write",
            module="proposals",
            feature=Feature.PROPOSALS,
        )
    ),
]
