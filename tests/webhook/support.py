"""What the webhook tests share: writes through HTTP (each records its events), webhooks
created through HTTP, the due deliveries of one webhook run."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.jobs.runner import run_jobs
from plumbline.models import EventLog, WebhookDelivery
from tests.factories import World


async def create_issue(
    client: httpx.AsyncClient, world: World, *, headers: dict[str, str] | None = None, **body: Any
) -> dict[str, Any]:
    """A member's issue, through HTTP: its write records ``issue.created``."""
    answer = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Leak in the plant room", **body},
        headers={**world.member.headers, **(headers or {})},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


async def update_issue(
    client: httpx.AsyncClient, world: World, issue_id: str, **body: Any
) -> httpx.Response:
    return await client.patch(
        f"/api/v1/projects/{world.project.id}/issues/{issue_id}",
        json=body,
        headers=world.member.headers,
    )


async def event_ids(world: World, resource_id: str) -> list[str]:
    """The ids of a record's events, in the order they were written."""
    async with database.sessionmaker() as db:
        query = (
            select(EventLog.id)
            .where(EventLog.stream == world.project.id, EventLog.resource_id == resource_id)
            .order_by(EventLog.seq)
        )
        return list((await db.execute(query)).scalars())


def url(world: World, suffix: str = "") -> str:
    return f"/api/v1/projects/{world.project.id}/webhooks{suffix}"


async def create_webhook(
    client: httpx.AsyncClient,
    world: World,
    target: str,
    events: tuple[str, ...] = ("issue.created", "issue.updated"),
    **body: Any,
) -> dict[str, Any]:
    response = await client.post(
        url(world),
        json={"url": target, "events": list(events), **body},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def deliveries(
    client: httpx.AsyncClient, world: World, webhook_id: str, **params: str
) -> list[dict[str, Any]]:
    response = await client.get(
        url(world, f"/{webhook_id}/deliveries"), params=params, headers=world.admin.headers
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def run_pending(webhook_id: str) -> None:
    """Run the webhook's pending deliveries whose (re)try time has come (as the server's own
    loop, a worker or ``/internal/maintenance`` would), and no other job."""
    async with database.sessionmaker() as db:
        query = select(WebhookDelivery.job_id).where(
            WebhookDelivery.webhook_id == webhook_id, WebhookDelivery.status == "pending"
        )
        ids = [job_id for job_id in (await db.execute(query)).scalars() if job_id]
    await run_jobs(ids)
