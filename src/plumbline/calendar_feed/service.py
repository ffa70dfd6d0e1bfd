"""Calendar feeds: create (the secret URL shown once), list, revoke, and the feed itself.

Only the token's SHA-256 is stored. A fetch reads the feed with its owner's access (one
statement), then one statement per kind of record the owner still reads: a fixed number
whatever the rows. A project feed whose owner no longer sees the project answers 404, as an
unknown or revoked one does; a personal feed shows what is due for its owner in the projects
they see now."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, audit_change, audit_stamp, created
from plumbline.auth.principal import Principal
from plumbline.authz import repository as authz_repository
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, member_context
from plumbline.calendar_feed import due_repository as due
from plumbline.calendar_feed import entries, ics, repository
from plumbline.calendar_feed.auth import (
    ISSUES,
    OM,
    PROPOSALS,
    PUNCH,
    RFIS,
    SCHEDULE,
    Section,
    readable,
)
from plumbline.calendar_feed.errors import ExternalProjectFeed, FeedNotFound
from plumbline.calendar_feed.schemas import FeedCreate
from plumbline.config import settings
from plumbline.errors import NotFound, found
from plumbline.kit import clock, crypto
from plumbline.kit.pagination import PageParams
from plumbline.models import CalendarFeed
from plumbline.om.recurrence import zone

ENTITY = "calendar_feed"
FEED_PATH = "/api/v1/calendar/{token}.ics"
LAST_USED_PRECISION = timedelta(minutes=1)
MAX_NAME = 200
DUE_DATES = ": due dates"


def feed_url(token: str) -> str:
    return settings.public_url.rstrip("/") + FEED_PATH.format(token=token)


def _with_kind(body: dict[str, Any]) -> dict[str, Any]:
    body["kind"] = "USER" if body["projectId"] is None else "PROJECT"
    return body


def _read(row: Any) -> dict[str, Any]:
    return _with_kind(repository.FIELDS.row(row))


def _created(feed: CalendarFeed, token: str) -> dict[str, Any]:
    """The new feed and its URL, shown this once."""
    fields = repository.FIELDS
    return _with_kind(fields.read(fields.of(feed))) | {"url": feed_url(token)}


@dataclass(frozen=True)
class Feed:
    """A fetched feed: the iCalendar text and the name of the file."""

    body: bytes
    filename: str


class CalendarFeedService:
    async def list_mine(
        self, db: AsyncSession, principal: Principal, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The caller's personal feeds, newest first."""
        rows = await repository.list_feeds(db, page=page, user_id=principal.require_user().id)
        rows, headers = page.finish(rows)
        return [_read(row) for row in rows], headers

    async def list_project(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's feeds: every owner's for those who manage API keys (ADMIN+), who
        may revoke any; the caller's own for everyone else."""
        owner = None if ctx.can(Permission.API_KEYS_MANAGE) else ctx.user_id
        rows = await repository.list_feeds(db, page=page, project_id=ctx.project.id, user_id=owner)
        rows, headers = page.finish(rows)
        return [_read(row) for row in rows], headers

    async def create_mine(
        self, db: AsyncSession, principal: Principal, body: FeedCreate
    ) -> dict[str, Any]:
        user = principal.require_user()
        # A name of up to 200 characters leaves room for the suffix within the column's 200.
        default = f"{user.name[: MAX_NAME - len(DUE_DATES)]}{DUE_DATES}"
        feed, token = await self._create(db, user.id, None, body.name or default)
        await audit_as(db, principal, (ENTITY, feed.id), "calendar_feed.created", _audited(feed))
        return _created(feed, token)

    async def create_project(
        self, db: AsyncSession, ctx: ProjectContext, body: FeedCreate
    ) -> dict[str, Any]:
        if ctx.is_external or ctx.user_id is None:
            raise ExternalProjectFeed()
        feed, token = await self._create(
            db, ctx.user_id, ctx.project, body.name or ctx.project.name
        )
        await audit_change(db, ctx, (ENTITY, feed.id), "calendar_feed.created", _audited(feed))
        return _created(feed, token)

    async def _create(
        self, db: AsyncSession, user_id: str, project: Any, name: str
    ) -> tuple[CalendarFeed, str]:
        token = crypto.random_token()
        feed = CalendarFeed(
            user_id=user_id,
            project_id=project.id if project is not None else None,
            workspace_id=project.workspace_id if project is not None else None,
            name=name,
            token_hash=crypto.sha256_hex(token),
            created_at=clock.now(),
        )
        db.add(feed)
        await db.flush()
        return feed, token

    async def revoke_mine(self, db: AsyncSession, principal: Principal, feed_id: str) -> None:
        """Idempotent: revoking a revoked feed keeps its first revocation time."""
        feed = found(
            await repository.get_feed(
                db, feed_id, project_id=None, user_id=principal.require_user().id
            ),
            FeedNotFound.message,
        )
        if feed.revoked_at is None:
            feed.revoked_at = clock.now()
            changes = {"revokedAt": [None, clock.iso(feed.revoked_at)]}
            await audit_as(db, principal, (ENTITY, feed.id), "calendar_feed.revoked", changes)

    async def revoke_project(self, db: AsyncSession, ctx: ProjectContext, feed_id: str) -> None:
        """The caller's own feed of the project, or anyone's for ADMIN+; idempotent."""
        owner = None if ctx.can(Permission.API_KEYS_MANAGE) else ctx.user_id
        feed = found(
            await repository.get_feed(db, feed_id, project_id=ctx.project.id, user_id=owner),
            FeedNotFound.message,
        )
        if feed.revoked_at is None:
            feed.revoked_at = clock.now()
            await audit_stamp(
                db, ctx, (ENTITY, feed.id), "calendar_feed.revoked", "revokedAt", feed.revoked_at
            )

    async def fetch(self, db: AsyncSession, token: str) -> Feed:
        """The feed of ``token`` as its owner may see it now; 404 when unknown, revoked, or a
        project feed whose owner lost the project."""
        token_hash = crypto.sha256_hex(token)
        row = await repository.feed_by_hash(db, token_hash)
        if row is None or not crypto.constant_time_equals(row[0].token_hash, token_hash):
            raise FeedNotFound()
        feed, owner, *access = row
        principal = Principal(user=owner)
        if feed.project_id is None:
            found_rows = await authz_repository.member_projects(db, owner.id)
            contexts = [member_context(principal, *found_row) for found_row in found_rows]
            events = await _collect(db, USER_KINDS, contexts, owner.id)
            names = {ctx.project.id: ctx.project.name for ctx in contexts}
            events = [
                replace(e, summary=f"{e.summary} ({names[e.project_id or '']})") for e in events
            ]
        else:
            try:
                ctx = member_context(principal, *access)
            except NotFound:
                raise FeedNotFound() from None
            if ctx.is_external:
                raise FeedNotFound()
            events = await _collect(db, PROJECT_KINDS, [ctx], None)
        now = clock.now()
        if feed.last_used_at is None or feed.last_used_at < now - LAST_USED_PRECISION:
            await repository.mark_used(db, feed.id, now)
        body = ics.write(
            name=feed.name,
            calendar_uid=f"feed-{feed.id}",
            host=urlsplit(settings.public_url).hostname or "plumbline",
            entries=events,
            now=now,
        )
        return Feed(body, f"{feed.id}.ics")


@dataclass(frozen=True)
class Kind:
    """One kind of record of a feed: who reads it, its statement, its events."""

    section: Section
    query: Callable[[AsyncSession, Sequence[str], str | None], Awaitable[Sequence[Any]]]
    convert: entries.Convert


# A project's feed: its timeline and everything due in it.
PROJECT_KINDS = (
    Kind(SCHEDULE, due.tasks, entries.tasks),
    Kind(OM, due.maintenance, entries.maintenance),
    Kind(OM, due.inspections, entries.inspections),
    Kind(RFIS, due.rfis, entries.rfis),
    Kind(PUNCH, due.punch, entries.punch),
    Kind(PROPOSALS, due.proposals, entries.proposals),
)
# A user's feed: what is due for them in every project they see.
USER_KINDS = (
    Kind(ISSUES, due.issues, entries.issues),
    Kind(RFIS, due.rfis, entries.rfis),
    Kind(PUNCH, due.punch, entries.punch),
    Kind(OM, due.maintenance, entries.maintenance),
    Kind(OM, due.inspection_runs, entries.inspection_runs),
    Kind(PROPOSALS, due.proposals, entries.proposals),
    Kind(SCHEDULE, due.tasks, entries.tasks),
)


async def _collect(
    db: AsyncSession, kinds: Sequence[Kind], contexts: Sequence[ProjectContext], user_id: str | None
) -> list[ics.Entry]:
    """One statement per kind over the projects whose records of that kind the owner reads."""
    zones: dict[str, ZoneInfo] = {ctx.project.id: zone(ctx.project.timezone) for ctx in contexts}
    events: list[ics.Entry] = []
    for kind in kinds:
        project_ids = [ctx.project.id for ctx in contexts if readable(ctx, kind.section)]
        events += kind.convert(await kind.query(db, project_ids, user_id), zones)
    return events


def _audited(feed: CalendarFeed) -> dict[str, list[Any]]:
    return created({"name": feed.name, "projectId": feed.project_id})


calendar_feed = CalendarFeedService()
