"""Test-only helpers for the field-report tests."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import FieldReport, Job, Project


def url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/field-reports{suffix}"


async def insert_reports(project: Project, count: int) -> None:
    async with database.sessionmaker() as db:
        now = clock.now()
        rows: list[dict[str, Any]] = [
            {
                "id": new_id(),
                "project_id": project.id,
                "workspace_id": project.workspace_id,
                "title": f"Report {n}",
                "report_date": date(2026, 1, 1) + timedelta(days=n % 300),
                "report_kind": "DAILY",
                "status": "DRAFT",
                "manpower": [{"company": "Acme", "trade": None, "workers": n % 7, "hours": 8}],
                "email_count": 0,
                "created_at": now,
                "updated_at": now,
            }
            for n in range(count)
        ]
        await db.execute(FieldReport.__table__.insert(), rows)
        await db.commit()


async def outbox_rows_to(address: str) -> int:
    """Queued e-mails (sent or not) whose recipients include ``address``."""
    async with database.sessionmaker() as db:
        rows = (await db.execute(select(Job.payload).where(Job.name == "mail.send"))).scalars()
        return sum(1 for payload in rows if address in payload.get("to", []))
