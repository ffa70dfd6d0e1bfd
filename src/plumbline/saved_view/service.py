"""Saved views: a name for a list's filters, sort and columns, the person's own or shared
with the project's team (anyone who may open the list may save one)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField, NotFound
from plumbline.kit import clock
from plumbline.models import SavedView
from plumbline.saved_view import repository as repo

# What a view keeps of a URL: never the page's position.
DROPPED = frozenset({"cursor", "view", "submission", "csrf"})


def clean_query(query: str) -> str:
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=False) if k not in DROPPED]
    return urlencode(pairs)[:2000]


class SavedViews:
    async def of(self, db: AsyncSession, ctx: ProjectContext, page: str) -> list[dict[str, object]]:
        rows = await repo.visible(db, ctx.project.id, page, ctx.user_id or "")
        return [
            {
                "id": r.id,
                "name": r.name,
                "query": r.query,
                "shared": r.shared,
                "mine": r.user_id == ctx.user_id,
            }
            for r in rows
        ]

    async def save(
        self, db: AsyncSession, ctx: ProjectContext, page: str, name: str, query: str, shared: bool
    ) -> SavedView:
        name = " ".join(name.split())
        if not name:
            raise InvalidField("name", "Give the view a name")
        if len(name) > 80:
            raise InvalidField("name", "80 characters at most")
        view = SavedView(
            project_id=ctx.project.id,
            user_id=ctx.user_id,
            page=page,
            name=name,
            query=clean_query(query),
            shared=shared and not ctx.is_external,
            created_at=clock.now(),
        )
        db.add(view)
        await db.flush()
        return view

    async def delete(self, db: AsyncSession, ctx: ProjectContext, view_id: str) -> None:
        if not await repo.remove(db, ctx.project.id, view_id, ctx.user_id or ""):
            raise NotFound("View not found")


saved_views = SavedViews()
