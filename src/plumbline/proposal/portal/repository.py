"""The portal's one query: the proposal a link's token opens."""

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.models import Project, Proposal, Workspace


async def by_token_hash(
    db: AsyncSession, token_hash: str
) -> tuple[Proposal, Project, Workspace] | None:
    """The live proposal a portal token opens, with its project and workspace."""
    query = (
        select(Proposal, Project, Workspace)
        .join(Project, Project.id == Proposal.project_id)
        .join(Workspace, Workspace.id == Proposal.workspace_id)
        .where(
            Proposal.token_hash == token_hash,
            Proposal.deleted_at.is_(None),
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .with_for_update(of=Proposal)
    )
    row = (await db.execute(query)).one_or_none()
    return (row[0], row[1], row[2]) if row else None
