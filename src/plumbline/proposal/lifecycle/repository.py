"""Queries of the proposal lifecycle: names for the e-mails, revisions, comments, the thread."""

from pydantic.alias_generators import to_snake
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.db import Rows
from plumbline.kit.pagination import PageParams
from plumbline.models import (
    Project,
    ProposalComment,
    ProposalMessage,
    ProposalRevision,
    User,
    Workspace,
)
from plumbline.proposal.lifecycle.schemas import (
    ProposalCommentRead,
    ProposalMessageRead,
    ProposalRevisionRead,
)


async def names(db: AsyncSession, project_id: str, workspace_id: str) -> tuple[str, str]:
    """The project's and the workspace's names, for letters and e-mails."""
    query = (
        select(Project.name, Workspace.name)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(Project.id == project_id, Workspace.id == workspace_id)
    )
    row = (await db.execute(query)).one()
    return str(row[0]), str(row[1])


async def next_revision(db: AsyncSession, proposal_id: str) -> int:
    """The next revision number (called with the proposal's row locked)."""
    query = select(func.coalesce(func.max(ProposalRevision.number), 0)).where(
        ProposalRevision.proposal_id == proposal_id
    )
    return int((await db.execute(query)).scalar_one()) + 1


# The columns of each response, in its fields' order (``service.read_of``).
REVISIONS = tuple(getattr(ProposalRevision, to_snake(n)) for n in ProposalRevisionRead.model_fields)
COMMENTS = tuple(getattr(ProposalComment, to_snake(n)) for n in ProposalCommentRead.model_fields)
MESSAGES = tuple(getattr(ProposalMessage, to_snake(n)) for n in ProposalMessageRead.model_fields)


async def revisions(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    """Newest first (ids are time-sortable: the latest revision has the highest id)."""
    query = select(*REVISIONS).where(ProposalRevision.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalRevision.id))).all()


async def comments(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    query = select(*COMMENTS).where(ProposalComment.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalComment.id))).all()


async def messages(db: AsyncSession, proposal_id: str, page: PageParams) -> Rows:
    """The thread, newest first as every list (a page of the latest messages)."""
    query = select(*MESSAGES).where(ProposalMessage.proposal_id == proposal_id)
    return (await db.execute(page.apply(query, ProposalMessage.id))).all()


async def user_name(db: AsyncSession, user_id: str | None) -> str | None:
    if user_id is None:
        return None
    found = (await db.execute(select(User.name).where(User.id == user_id))).scalar_one_or_none()
    return str(found) if found is not None else None
