"""Finding an issue by what a person types in global search: its number (``12``, ``#12``) or
words of its title, among the issues the person may see (the list's own visibility rule)."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.issue import repository as repo
from plumbline.issue.access import require_shared
from plumbline.kit import search

NUMBER = re.compile(r"#?(\d{1,9})")


async def find(
    db: AsyncSession, ctx: ProjectContext, text: str, limit: int = 8
) -> list[dict[str, Any]]:
    """``id``, ``number``, ``title``, ``status`` of the matching issues: the one of that number
    first, then the newest whose title matches; one query."""
    text = text.strip()
    if not text:
        return []
    number = NUMBER.fullmatch(text)
    matches = [search.matches(text, repo.T.title)]
    if number:
        matches.append(repo.T.number == int(number.group(1)))
    query = (
        select(repo.T.id, repo.T.number, repo.T.title, repo.T.status)
        .where(*repo.visible(require_shared(ctx)), or_(*matches))
        .order_by((repo.T.number == int(number.group(1))).desc() if number else repo.T.id.desc())
        .order_by(repo.T.id.desc())
        .limit(limit)
    )
    rows = (await db.execute(search.inline(query, text))).all()
    return [dict(r._mapping) for r in rows]
