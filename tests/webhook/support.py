"""What the webhook tests share: events written as a write records them, webhooks created
through HTTP, the due deliveries of one webhook run."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from plumbline import wiring
from plumbline.db import UnitOfWork, database
from plumbline.events import hooks
from plumbline.events.hooks import Event
from plumbline.jobs.runner import run_jobs
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Project, WebhookDelivery
from tests.factories import World


def event(
    project: Project,
    type: str = "issue.created",
    resource_id: str | None = None,
    data: dict[str, Any] | None = None,
) -> Event:
    resource = type.rsplit(".", 1)[0]
    ident = resource_id or new_id()
    return Event(
        id=new_id(),
        type=type,
        created_at=clock.now(),
        workspace_id=project.workspace_id,
        project_id=project.id,
        actor={"type": "system", "id": None},
        resource=resource,
        resource_id=ident,
        data=data if data is not None else {"id": ident, "title": f"{type} {ident}"},
    )


async def emit(*events: Event, fail: bool = False) -> None:
    """Events written in one transaction, as a write records them (``events.hooks.written``):
    committed (its jobs run after, inline), or rolled back when ``fail``."""
    wiring.connect()
    async with database.sessionmaker() as session:
        uow = UnitOfWork(session)
        await hooks.written(session, list(events))
        await session.flush()
        if fail:
            await uow.rollback()
        else:
            await uow.commit()


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
