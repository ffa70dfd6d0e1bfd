"""In-app notifications written by the record modules; the actor is never notified."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.principal import Principal
from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.errors import found
from plumbline.events import live
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Mail
from plumbline.kit.pagination import PageParams
from plumbline.mail.tasks import queue
from plumbline.models import Notification
from plumbline.notification import repository as repo

KINDS = (
    "ISSUE_ASSIGNED",
    "ISSUE_COMMENTED",
    "RFI_ASSIGNED",
    "RFI_REVIEW",
    "RFI_ANSWERED",
    "RFI_CLOSED",
    "RFI_REOPENED",
    "PUNCH_ASSIGNED",
    "PROPOSAL_VIEWED",
    "PROPOSAL_ACCEPTED",
    "PROPOSAL_DECLINED",
    "PROPOSAL_CHANGES_REQUESTED",
    "PROPOSAL_MESSAGE",
    "PROPOSAL_EXPIRING",
    "MAINTENANCE_ASSIGNED",
    "MAINTENANCE_DUE",
    "INSPECTION_DUE",
    "WORK_ORDER_AGING",
    "OCCUPANT_REQUEST",
    "LOW_STOCK",
    "INVITE_ACCEPTED",
    "WEBHOOK_DISABLED",
)

KEYS = tuple(to_camel(column.key) for column in repo.COLUMNS)


class NotificationService:
    async def notify(
        self,
        db: AsyncSession,
        user_ids: Iterable[str | None],
        *,
        kind: str,
        title: str,
        body: str | None = None,
        href: str | None = None,
        workspace_id: str | None = None,
        project_id: str | None = None,
        actor_id: str | None = None,
    ) -> list[str]:
        """One row per recipient (deduplicated, actor excluded) in a single INSERT."""
        recipients = sorted({u for u in user_ids if u and u != actor_id})
        row = {
            "workspace_id": workspace_id,
            "project_id": project_id,
            "title": title,
            "body": body,
            "href": href,
        }
        await self.notify_each(db, kind, [{**row, "user_id": u} for u in recipients])
        return recipients

    async def notify_each(self, db: AsyncSession, kind: str, rows: list[dict[str, Any]]) -> None:
        """One notification of ``kind`` per row (``user_id``, ``title`` and optionally
        ``body``, ``href``, ``workspace_id``, ``project_id``), in a single INSERT."""
        if kind not in KINDS:
            raise ValueError(f"unknown notification kind {kind}")
        if not rows:
            return
        now = clock.now()
        await db.execute(
            insert(Notification),
            [
                {
                    "body": None,
                    "href": None,
                    "workspace_id": None,
                    "project_id": None,
                    **row,
                    "id": new_id(),
                    "kind": kind,
                    "title": row["title"][:500],
                    "read_at": None,
                    "created_at": now,
                }
                for row in rows
            ],
        )
        live.notified(db, [row["user_id"] for row in rows])

    async def assigned(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        user_ids: Iterable[str | None],
        *,
        kind: str,
        title: str,
        what: str,
        record_title: str,
        href: str,
    ) -> list[str]:
        """Tells the people just given a record (``what``, e.g. "issue #12"): an in-app
        notification and an e-mail each, sent once the request has committed; never the actor."""
        recipients = await self.notify(
            uow.session,
            user_ids,
            kind=kind,
            title=title,
            body=ctx.project.name,
            href=href,
            workspace_id=ctx.workspace.id,
            project_id=ctx.project.id,
            actor_id=ctx.user_id,
        )
        by = ctx.principal.user.name if ctx.principal.user else "An integration"
        link = f"{settings.public_url.rstrip('/')}{href}"
        subject = " ".join(title.split())[:200]  # no line breaks in a header
        for person in await repo.contacts(uow.session, recipients):
            text = (
                f"Hello {person.name},\n\n{by} assigned you {what} on {ctx.project.name}:"
                f"\n\n{record_title}\n\n{link}\n"
            )
            queue(uow, Mail(to=[person.email], subject=subject, text=text))
        return recipients

    async def list_for(
        self, db: AsyncSession, principal: Principal, *, unread_only: bool, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The caller's notifications, newest first, one query per page."""
        user = principal.require_user()
        rows = await repo.list_for_user(db, user.id, unread_only=unread_only, page=page)
        # Date-times go to the encoder as they are: it writes them as ``clock.iso`` does.
        rows, headers = page.finish(rows)
        return [dict(zip(KEYS, row, strict=True)) for row in rows], headers

    async def open(
        self, db: AsyncSession, principal: Principal, notification_id: str
    ) -> str | None:
        """Mark one of the caller's notifications read and return where it points (404 for
        another person's)."""
        user = principal.require_user()
        row = found(await repo.one_for_user(db, user.id, notification_id), "Notification not found")
        await repo.mark_read(db, user.id, [notification_id], clock.now())
        return str(row.href) if row.href else None

    async def unread(self, db: AsyncSession, user_id: str) -> int:
        """How many of the person's notifications are unread."""
        return await repo.unread_count(db, user_id)

    async def mark_read(self, db: AsyncSession, principal: Principal, ids: list[str] | None) -> int:
        """Mark the caller's unread notifications read (these ids, or all); others are untouched."""
        user = principal.require_user()
        if ids is not None and not ids:
            return 0
        return await repo.mark_read(db, user.id, ids, clock.now())


notification = NotificationService()
