"""Who reaches a workspace's proposal templates: members read, MANAGER and above write."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.workspace import WorkspaceContext, workspace_access

CanReadTemplates = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.RECORDS_READ, feature=Feature.PROPOSALS)),
]
CanWriteTemplates = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.PROPOSAL_TEMPLATES_WRITE, feature=Feature.PROPOSALS)),
]
