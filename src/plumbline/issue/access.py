"""Which issues the caller may see, as checks shared by the issue services."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.issue import repository as repo
from plumbline.issue.errors import IssueNotFound, IssuesNotShared
from plumbline.records import hidden_from_client


def require_shared(ctx: ProjectContext) -> None:
    """Collections answer 403 to a client of a project that does not share its issues (their
    items answer 404, like any issue the caller cannot see)."""
    if hidden_from_client(ctx, "showIssues"):
        raise IssuesNotShared()


async def require_row(db: AsyncSession, ctx: ProjectContext, issue_id: str) -> Row[Any]:
    """The issue's ``repository.COLUMNS`` row within what the caller may see, else 404."""
    row: Row[Any] | None = await repo.get_row(db, ctx, issue_id)
    if row is None:
        raise IssueNotFound()
    return row
