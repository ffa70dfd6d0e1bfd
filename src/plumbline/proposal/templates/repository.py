"""Every proposal template query: always within one workspace."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import ProposalTemplate

# Every column, as the template's read is built from them.
COLUMNS = tuple(ProposalTemplate.__table__.columns)


async def list_rows(db: AsyncSession, workspace_id: str, page: PageParams) -> Sequence[Any]:
    query = select(*COLUMNS).where(ProposalTemplate.workspace_id == workspace_id)
    return (await db.execute(page.apply(query, ProposalTemplate.id))).all()


async def get(db: AsyncSession, workspace_id: str, template_id: str) -> ProposalTemplate | None:
    query = select(ProposalTemplate).where(
        ProposalTemplate.id == template_id, ProposalTemplate.workspace_id == workspace_id
    )
    return (await db.execute(query)).scalar_one_or_none()


async def name_taken(
    db: AsyncSession, workspace_id: str, name: str, other_than: str | None = None
) -> bool:
    query = select(ProposalTemplate.id).where(
        ProposalTemplate.workspace_id == workspace_id, ProposalTemplate.name == name
    )
    if other_than is not None:
        query = query.where(ProposalTemplate.id != other_than)
    return (await db.execute(query.limit(1))).first() is not None
