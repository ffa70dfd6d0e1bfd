"""Who reaches a project's proposals: the route aliases and the one load-or-404.

Internal members and API keys read and write; external collaborators (clients included) see no
proposals here (403 on the list, 404 on one): clients answer them through the portal."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.errors import AppError, found
from plumbline.models import Proposal
from plumbline.proposal import repository
from plumbline.proposal.errors import ProposalsInternal
from plumbline.records.visibility import Visibility


def _access(
    permission: Permission, scope: str, externals: Callable[[], AppError] | None = None
) -> Callable[..., Awaitable[ProjectContext]]:
    return project_access(
        permission, scope=scope, module="proposals", feature=Feature.PROPOSALS, externals=externals
    )


CanReadProposals = Annotated[
    ProjectContext, Depends(_access(Permission.RECORDS_READ, "proposals:read"))
]
# Writes refuse external collaborators before the body is read (403).
CanWriteProposals = Annotated[
    ProjectContext,
    Depends(_access(Permission.RECORDS_WRITE, "proposals:write", externals=ProposalsInternal)),
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
