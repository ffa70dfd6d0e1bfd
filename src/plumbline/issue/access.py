"""Which issues the caller may see, as checks shared by the issue services."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.errors import found
from plumbline.issue import repository as repo
from plumbline.issue.errors import IssueNotFound, IssuesNotShared
from plumbline.models import Issue
from plumbline.records.visibility import Visibility


def visibility(ctx: ProjectContext) -> Visibility:
    return Visibility.of(ctx, "showIssues")


def require_shared(ctx: ProjectContext) -> Visibility:
    """Collections answer 403 to a client of a project that does not share its issues (their
    items answer 404, like any issue the caller cannot see)."""
    return visibility(ctx).collection(IssuesNotShared)


async def require_row(db: AsyncSession, ctx: ProjectContext, issue_id: str) -> Row[Any]:
    """The issue's ``FIELDS.columns`` row within what the caller may see, else 404."""
    row: Row[Any] | None = await repo.get_row(db, visibility(ctx), issue_id)
    return found(row, IssueNotFound())


async def require_entity(db: AsyncSession, ctx: ProjectContext, issue_id: str) -> Issue:
    return found(await repo.get_entity(db, visibility(ctx), issue_id), IssueNotFound())
