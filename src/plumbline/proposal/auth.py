from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.authz.workspace import WorkspaceContext, workspace_access

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


CanReadTemplates = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.RECORDS_READ, feature=Feature.PROPOSALS)),
]
CanWriteTemplates = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.PROPOSAL_TEMPLATES_WRITE, feature=Feature.PROPOSALS)),
]
