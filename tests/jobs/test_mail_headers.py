"""User text with a line separator in an e-mail header: the mail goes out with the subject on one
line, and a message that can never go out fails its job at once instead of for hours."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiosmtpd.controller import Controller

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from tests.factories import World, mail_jobs_to, make_world, read_mails, set_project
from tests.live import free_port

# Each ends a line for Python's e-mail package: before the fix, the message could not be built.
CRON = {"x-service-cron-secret": "test-cron-secret"}
SEPARATORS = {"u2028": "\u2028", "u2029": "\u2029", "u0085": "\x85", "crlf": "\r\n"}


def api(path: str) -> str:
    return f"/api/v1{path}"


async def delivered(outbox: Path, address: str) -> str:
    """The one e-mail to ``address``: its job is done and its subject is one line."""
    [job] = await mail_jobs_to(address)
    assert (job.status, job.attempts, job.last_error) == ("done", 1, None)
    [message] = read_mails(outbox, to=address)
    subject = str(message["Subject"])
    assert subject.splitlines() == [subject]
    return subject


@pytest.mark.parametrize("separator", SEPARATORS.values(), ids=SEPARATORS.keys())
async def test_an_occupant_request_title(
    client: httpx.AsyncClient, outbox: Path, separator: str
) -> None:
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    link = await client.post(
        api(f"/projects/{world.project.id}/om/occupant-links"),
        json={"label": "Lobby"},
        headers=world.manager.headers,
    )
    assert link.status_code == 200, link.text
    address = f"occupant-{new_id()}@example.com"
    body = {
        "title": f"Leaking tap{separator}3rd floor",
        "description": "Drips all day.",
        "reporterName": "Riley",
        "reporterEmail": address,
    }
    submitted = await client.post(api(f"/occupant/{link.json()['token']}/submit"), json=body)
    assert submitted.status_code == 200, submitted.text
    assert await delivered(outbox, address) == "We received your request: Leaking tap 3rd floor"


@pytest.mark.parametrize("separator", SEPARATORS.values(), ids=SEPARATORS.keys())
async def test_a_field_report_title(
    client: httpx.AsyncClient, world: World, outbox: Path, separator: str
) -> None:
    report = await client.post(
        api(f"/projects/{world.project.id}/field-reports"),
        json={"title": f"Daily{separator}North tower", "reportDate": "2026-06-03"},
        headers=world.member.headers,
    )
    assert report.status_code == 200, report.text
    address = f"owner-{new_id()}@example.com"
    sent = await client.post(
        api(f"/projects/{world.project.id}/field-reports/send-email"),
        json={"reportId": report.json()["id"], "recipients": [address]},
        headers=world.member.headers,
    )
    assert sent.status_code == 200 and sent.json()["sent"] == 1, sent.text
    subject = await delivered(outbox, address)
    assert subject == f"{world.project.name}: Daily North tower (2026-06-03)"


async def _rename_workspace(client: httpx.AsyncClient, world: World, name: str) -> None:
    response = await client.patch(
        api(f"/workspaces/{world.workspace.id}"), json={"name": name}, headers=world.owner.headers
    )
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("separator", SEPARATORS.values(), ids=SEPARATORS.keys())
async def test_a_workspace_name_in_an_invite(
    client: httpx.AsyncClient, world: World, outbox: Path, separator: str
) -> None:
    await _rename_workspace(client, world, f"Acme{separator}Builders")
    address = f"invitee-{new_id()}@example.com"
    response = await client.post(
        api(f"/workspaces/{world.workspace.id}/email-invites"),
        json={"email": address},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text
    assert await delivered(outbox, address) == "Ada Admin invited you to Acme Builders on Plumbline"


@pytest.mark.parametrize("separator", SEPARATORS.values(), ids=SEPARATORS.keys())
async def test_a_workspace_name_in_a_sent_proposal(
    client: httpx.AsyncClient, world: World, outbox: Path, separator: str
) -> None:
    await _rename_workspace(client, world, f"Acme{separator}Builders")
    address = f"client-{new_id()}@example.com"
    proposals = api(f"/projects/{world.project.id}/proposals")
    body: dict[str, Any] = {
        "title": f"Level 3{separator}fit-out",
        "validUntil": "2099-12-31T17:00:00Z",
        "clientName": "Dana",
        "clientEmail": address,
        "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
    }
    created = await client.post(proposals, json=body, headers=world.member.headers)
    assert created.status_code == 200, created.text
    proposal = created.json()
    sent = await client.post(f"{proposals}/{proposal['id']}/send", headers=world.member.headers)
    assert sent.status_code == 200 and sent.json()["status"] == "SENT", sent.text
    subject = await delivered(outbox, address)
    assert subject == f"Proposal {proposal['reference']} from Acme Builders"


class Sink:
    """A real SMTP server: refuses recipients whose address starts with ``refused-`` for good
    (550) and, while ``busy``, those starting with ``busy-`` for now (450); keeps the rest."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], bytes]] = []
        self.busy = True

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        if address.startswith("refused-"):
            return "550 5.1.1 No such mailbox"
        if address.startswith("busy-") and self.busy:
            return "450 4.2.1 Mailbox busy"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append((list(envelope.rcpt_tos), envelope.original_content or b""))
        return "250 OK"


@pytest.fixture
def sink(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sink]:
    handler = Sink()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    monkeypatch.setattr(settings, "smtp_url", f"smtp://127.0.0.1:{controller.port}")
    yield handler
    controller.stop()


async def _invite(client: httpx.AsyncClient, world: World, address: str) -> None:
    response = await client.post(
        api(f"/workspaces/{world.workspace.id}/email-invites"),
        json={"email": address},
        headers=world.admin.headers,
    )
    assert response.status_code == 200, response.text


async def test_a_separator_in_a_header_over_real_smtp(
    client: httpx.AsyncClient, world: World, sink: Sink
) -> None:
    await _rename_workspace(client, world, "Acme\u2028Builders\u2029and\x85Sons\r\nLtd")
    address = f"invitee-{new_id()}@example.com"
    await _invite(client, world, address)
    [(recipients, raw)] = [m for m in sink.received if address in m[0]]
    assert recipients == [address]
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert message["Subject"] == "Ada Admin invited you to Acme Builders and Sons Ltd on Plumbline"
    [job] = await mail_jobs_to(address)
    assert (job.status, job.attempts) == ("done", 1)


async def test_an_address_refused_for_good_fails_at_once(
    client: httpx.AsyncClient, world: World, sink: Sink
) -> None:
    refused = f"refused-{new_id()}@example.com"
    await _invite(client, world, refused)
    [job] = await mail_jobs_to(refused)
    assert (job.status, job.attempts) == ("failed", 1)
    assert job.finished_at is not None and "550" in (job.last_error or "")
    assert [e["attempt"] for e in job.errors] == [1]

    busy = f"busy-{new_id()}@example.com"  # refused for now (4xx): retried later
    await _invite(client, world, busy)
    [job] = await mail_jobs_to(busy)
    assert (job.status, job.attempts, job.finished_at) == ("queued", 1, None)
    assert "450" in (job.last_error or "")
    sink.busy = False
    clock.set_now(job.run_at)
    maintenance = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert maintenance.status_code == 200, maintenance.text
    [job] = await mail_jobs_to(busy)
    assert (job.status, job.attempts) == ("done", 2)
    assert [m for m in sink.received if busy in m[0]]
