"""In-app notifications written by the record modules; the actor is never notified."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Notification

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
    "MAINTENANCE_ASSIGNED",
    "MAINTENANCE_DUE",
    "INSPECTION_DUE",
    "WORK_ORDER_AGING",
    "OCCUPANT_REQUEST",
    "INVITE_ACCEPTED",
)


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
        if kind not in KINDS:
            raise ValueError(f"unknown notification kind {kind}")
        recipients = sorted({u for u in user_ids if u and u != actor_id})
        if not recipients:
            return []
        now = clock.now()
        rows = [
            {
                "id": new_id(),
                "user_id": user_id,
                "workspace_id": workspace_id,
                "project_id": project_id,
                "kind": kind,
                "title": title[:500],
                "body": body,
                "href": href,
                "read_at": None,
                "created_at": now,
            }
            for user_id in recipients
        ]
        await db.execute(insert(Notification), rows)
        return recipients


notification = NotificationService()
