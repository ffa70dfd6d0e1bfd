from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature, require_feature
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


def template_access(
    permission: Permission, *, write: bool
) -> Callable[..., Awaitable[WorkspaceContext]]:
    """Workspace members holding ``permission`` (internal members only: externals hold no
    workspace permission), on a plan with proposals (402 otherwise)."""
    member = workspace_access(permission)

    async def dependency(
        ctx: Annotated[WorkspaceContext, Depends(member)],
    ) -> WorkspaceContext:
        require_feature(ctx.workspace, Feature.PROPOSALS, write=write)
        return ctx

    return dependency


CanReadTemplates = Annotated[
    WorkspaceContext, Depends(template_access(Permission.RECORDS_READ, write=False))
]
CanWriteTemplates = Annotated[
    WorkspaceContext, Depends(template_access(Permission.PROPOSAL_TEMPLATES_WRITE, write=True))
]
