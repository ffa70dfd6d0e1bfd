"""What the cluster tests do through HTTP: an upload on S3, a sent proposal, an asset with a due
schedule, waiting for the workers to drain the mail queue."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import httpx

from plumbline.kit import clock
from plumbline.kit.ids import new_id
from tests.scale.cluster import Cluster, until

Json = dict[str, Any]


async def presign(api: httpx.AsyncClient, world: Json, data: bytes, name: str) -> Json:
    """Step 1 of the upload on ``api``'s server, step 2 (the PUT) straight to the S3 stand-in."""
    target = await api.post(
        "/api/v1/files/presign-upload",
        json={
            "fileName": name,
            "contentType": "application/pdf",
            "sizeBytes": len(data),
            "projectId": world["projectId"],
        },
        headers=world["manager"]["headers"],
    )
    assert target.status_code == 200, target.text
    body: Json = target.json()
    async with httpx.AsyncClient(timeout=60) as s3:
        put = await s3.put(body["uploadUrl"], content=data, headers=body["headers"])
    assert put.status_code == 200, put.text
    return body


async def complete(
    api: httpx.AsyncClient, world: Json, upload_id: str, data: bytes
) -> httpx.Response:
    return await api.post(
        "/api/v1/files/complete-upload",
        json={"uploadId": upload_id, "sha256": hashlib.sha256(data).hexdigest()},
        headers=world["manager"]["headers"],
    )


def pdf(label: str) -> bytes:
    return b"%PDF-1.4\n% " + label.encode() + b"\n" + b"0" * 2048 + b"\n%%EOF\n"


async def sent_proposal(
    api: httpx.AsyncClient, world: Json, hours: int = 24, client_email: str | None = None
) -> Json:
    """A proposal the member made and sent, valid for ``hours`` more hours (the client is
    e-mailed the portal link)."""
    headers = world["member"]["headers"]
    valid = clock.iso(clock.now() + timedelta(hours=hours))
    made = await api.post(
        f"/api/v1/projects/{world['projectId']}/proposals",
        json={
            "title": f"Fit-out {new_id()[-6:]}",
            "validUntil": valid,
            "clientName": "Dana Client",
            "clientEmail": client_email or f"client-{new_id()}@example.com",
            "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
        },
        headers=headers,
    )
    assert made.status_code == 200, made.text
    proposal: Json = made.json()
    sent = await api.post(
        f"/api/v1/projects/{world['projectId']}/proposals/{proposal['id']}/send", headers=headers
    )
    assert sent.status_code == 200, sent.text
    return proposal


async def due_schedule(api: httpx.AsyncClient, world: Json) -> Json:
    """An asset and a maintenance schedule overdue since yesterday, assigned to the member."""
    headers = world["manager"]["headers"]
    om = f"/api/v1/projects/{world['projectId']}/om"
    asset = await api.post(
        f"{om}/assets", json={"tag": f"AHU-{new_id()[-8:]}", "name": "Air handler"}, headers=headers
    )
    assert asset.status_code == 200, asset.text
    schedule = await api.post(
        f"{om}/maintenance",
        json={
            "assetId": asset.json()["id"],
            "title": "Filter change",
            "frequency": "MONTHLY",
            "nextDueAt": clock.iso(clock.now() - timedelta(days=1)),
            "assigneeId": world["member"]["id"],
        },
        headers=headers,
    )
    assert schedule.status_code == 200, schedule.text
    result: Json = schedule.json()
    return result


async def mail_settled(running: Cluster) -> int:
    """Wait until no ``mail.send`` job is queued (each one done or failed), then answer how
    many were done."""

    async def check() -> bool:
        queued = await running.value(
            "SELECT count(*) FROM jobs WHERE name = 'mail.send' AND status = 'queued'"
        )
        return int(queued) == 0

    await until("the workers to send every queued e-mail", check)
    failed = await running.rows(
        "SELECT last_error FROM jobs WHERE name = 'mail.send' AND status = 'failed'"
    )
    assert failed == [], failed
    return int(
        await running.value(
            "SELECT count(*) FROM jobs WHERE name = 'mail.send' AND status = 'done'"
        )
    )
