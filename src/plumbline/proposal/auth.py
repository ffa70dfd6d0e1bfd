"""Who reaches a project's proposals: the route aliases and the one load-or-404.

Internal members and API keys read and write; external collaborators (clients included) see no
proposals here (403 on the list, 404 on one): clients answer them through the portal."""

from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.errors import found
from plumbline.models import Proposal
from plumbline.proposal import repository
from plumbline.records.visibility import Visibility

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


def visibility(ctx: ProjectContext) -> Visibility:
    """The project's proposals, for internal callers only."""
    return Visibility(ctx.project.id, shared=not ctx.is_external, contributor=None)


async def load(
    db: AsyncSession, ctx: ProjectContext, proposal_id: str, *, lock: bool = False
) -> Proposal:
    """The proposal the caller sees (its row locked with ``lock``); 404 otherwise."""
    return found(
        await repository.get(db, visibility(ctx), proposal_id, lock=lock), "Proposal not found"
    )
