"""``kill -9`` of a server in the middle of a write, and of a worker in the middle of a job.

"The middle" without mocks: the test takes a real PostgreSQL lock from a connection of its own
(``LOCK TABLE ... IN SHARE MODE``, or a row's ``FOR UPDATE``) on what the request writes last,
so the server's transaction stops there with its earlier statements done; the test kills the
server while it waits, releases the lock and waits for PostgreSQL to end the dead server's
backend. For the worker, the SMTP sink holds the job's delivery unanswered (a real slow
server) and the test kills the worker that holds it.

After each crash: nothing of the interrupted request is left (rows counted), every counter
equals what exists (storage, sequence numbers, versions, digest runs against mails), every
request answered 2xx before the kill is still there, and the same request sent to the other
server, or the job run by the other worker, succeeds exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import asyncpg
import httpx
import pytest

from plumbline.kit.ids import new_id
from tests.scale.cluster import CRON, Cluster, Http, pid_with_local_port, wait_for
from tests.scale.conftest import POSTGRES_ONLY
from tests.scale.flows import (
    Json,
    complete,
    due_schedule,
    mail_settled,
    pdf,
    presign,
    sent_proposal,
)

pytestmark = POSTGRES_ONLY
WORLDS = 6


@contextlib.asynccontextmanager
async def holding(
    running: Cluster, *statements: str, args: tuple[Any, ...] = ()
) -> AsyncIterator[None]:
    """A transaction of the test's own that ran ``statements`` (taking their locks) until the
    block ends, then rolled back."""
    conn: asyncpg.Connection = await asyncpg.connect(running.dsn)
    transaction = conn.transaction()
    await transaction.start()
    try:
        for statement in statements:
            await conn.execute(statement, *args[: statement.count("$")])
        yield
    finally:
        await transaction.rollback()
        await conn.close()


async def crash_server_during(
    running: Cluster,
    request: Callable[[], Coroutine[Any, Any, httpx.Response]],
    blocked: str,
    *locks: str,
    args: tuple[Any, ...] = (),
) -> None:
    """Send ``request`` to server A while the test holds ``locks``; once its statement like
    ``blocked`` waits on them, ``kill -9`` the server; then release and wait for PostgreSQL to
    end its backend (the transaction no COMMIT will ever come for)."""
    server = running.servers["a"]
    async with holding(running, *locks, args=args):
        sent = asyncio.create_task(request())
        pid = await running.blocked_backend(blocked)
        server.kill()
        with pytest.raises(httpx.TransportError):
            await sent  # no answer: nothing was acknowledged
    await running.backend_gone(pid)
    server.start()  # restarting while the test checks through server B


async def count(running: Cluster, query: str, *args: Any) -> int:
    return int(await running.value(query, *args))


async def test_upload_completion(running: Cluster, http: Http, worlds: list[Json]) -> None:
    world = worlds[0]
    first = pdf("acknowledged")
    target = await presign(http["a"], world, first, "Kept.pdf")
    kept = await complete(http["a"], world, target["uploadId"], first)
    assert kept.status_code == 200, kept.text
    second = pdf("interrupted" * 10)
    target = await presign(http["a"], world, second, "Interrupted.pdf")

    # The storage counter is updated and the file row inserted; the version's insert waits.
    await crash_server_during(
        running,
        lambda: complete(http["a"], world, target["uploadId"], second),
        "INSERT INTO file_versions%",
        "LOCK TABLE file_versions IN SHARE MODE",
    )

    async def files() -> tuple[int, int, int]:
        row = (
            await running.rows(
                "SELECT w.storage_used_bytes AS used, (SELECT coalesce(sum(size_bytes), 0)"
                " FROM file_versions v WHERE v.workspace_id = w.id) AS stored, (SELECT count(*)"
                " FROM files f WHERE f.workspace_id = w.id) AS files FROM workspaces w"
                " WHERE w.id = $1",
                world["workspaceId"],
            )
        )[0]
        return int(row["used"]), int(row["stored"]), int(row["files"])

    assert await files() == (len(first), len(first), 1)  # the acknowledged file, only
    done = await complete(http["b"], world, target["uploadId"], second)  # completed again, on B
    assert done.status_code == 200, done.text
    assert await files() == (len(first) + len(second),) * 2 + (2,)
    running.ensure()  # A restarted serves both
    for answer in (kept, done):
        read = await http["a"].get(
            f"/api/v1/files/{answer.json()['id']}/presign-read", headers=world["manager"]["headers"]
        )
        assert read.status_code == 200, read.text


async def test_digest_run(running: Cluster, http: Http, worlds: list[Json]) -> None:
    world = worlds[1]
    await due_schedule(http["a"], world)
    await mail_settled(running)
    route = "/api/v1/internal/om-maintenance-reminders"

    # The day's run is claimed and its e-mails queued; the notifications' insert waits.
    await crash_server_during(
        running,
        lambda: http["a"].post(route, headers=CRON),
        "INSERT INTO notifications%",
        "LOCK TABLE notifications IN SHARE MODE",
    )
    runs = "SELECT count(*) FROM digest_runs WHERE workspace_id = $1 AND kind = 'om-maintenance'"
    assert await count(running, runs, world["workspaceId"]) == 0
    notes = (
        "SELECT count(*) FROM notifications WHERE workspace_id = $1 AND kind = 'MAINTENANCE_DUE'"
    )
    assert await count(running, notes, world["workspaceId"]) == 0
    await mail_settled(running)
    assert [s for s in running.subjects_to_world(world) if "Maintenance due" in s] == []

    again = await http["b"].post(route, headers=CRON)  # the day's run, on B
    assert again.status_code == 200, again.text
    assert again.json()["workspacesNotified"] == 1
    assert await count(running, runs, world["workspaceId"]) == 1
    members = await running.value(
        "SELECT members FROM digest_runs WHERE workspace_id = $1 AND kind = 'om-maintenance'",
        world["workspaceId"],
    )
    await mail_settled(running)
    mails = [s for s in running.subjects_to_world(world) if "Maintenance due" in s]
    assert len(mails) == again.json()["membersEmailed"] == members >= 1
    running.ensure()
    replay = await http["a"].post(route, headers=CRON)  # A restarted: already sent today
    assert replay.status_code == 200 and replay.json()["workspacesNotified"] == 0


def tasks(count: int, tag: str) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{tag}-{i}",
            "name": f"{tag} task {i}",
            "startDate": "2026-12-01T00:00:00Z",
            "endDate": "2026-12-05T00:00:00Z",
        }
        for i in range(count)
    ]


async def test_schedule_replacement(running: Cluster, http: Http, worlds: list[Json]) -> None:
    world = worlds[2]
    url = f"/api/v1/projects/{world['projectId']}/schedule"
    headers = world["manager"]["headers"]
    kept = await http["a"].put(url, json={"tasks": tasks(3, "kept")}, headers=headers)
    assert kept.status_code == 200, kept.text
    assert kept.json()["version"] == 1

    # The version is taken, the old tasks deleted and the new ones inserted; the audit waits.
    await crash_server_during(
        running,
        lambda: http["a"].put(url, json={"tasks": tasks(5, "lost")}, headers=headers),
        "INSERT INTO audit_logs%",
        "LOCK TABLE audit_logs IN SHARE MODE",
    )

    async def stored() -> tuple[int, list[str], int]:
        version = await running.value(
            "SELECT version FROM schedules WHERE project_id = $1", world["projectId"]
        )
        ids = [
            r["id"]
            for r in await running.rows(
                "SELECT id FROM schedule_tasks WHERE project_id = $1 ORDER BY position",
                world["projectId"],
            )
        ]
        replaced = await count(
            running,
            "SELECT count(*) FROM audit_logs WHERE project_id = $1"
            " AND action = 'schedule.replaced'",
            world["projectId"],
        )
        return int(version), ids, replaced

    assert await stored() == (1, [t["id"] for t in tasks(3, "kept")], 1)
    again = await http["b"].put(url, json={"tasks": tasks(5, "new")}, headers=headers)
    assert again.status_code == 200, again.text
    assert await stored() == (2, [t["id"] for t in tasks(5, "new")], 2)


async def test_proposal_acceptance(running: Cluster, http: Http, worlds: list[Json]) -> None:
    world = worlds[3]
    proposal = await sent_proposal(http["a"], world, hours=720)
    await mail_settled(running)
    [invitation] = running.smtp.mails(proposal["clientEmail"])
    body = invitation.get_body(preferencelist=("plain",))
    assert body is not None
    token = re.search(r"/portal/proposals/([\w-]+)", body.get_content())
    assert token, body.get_content()
    accept = f"/api/v1/public/proposals/{token.group(1)}/accept"

    # The proposal is updated and audited; the sender's notification waits.
    await crash_server_during(
        running,
        lambda: http["a"].post(accept, json={"signerName": "Dana Client"}),
        "INSERT INTO notifications%",
        "LOCK TABLE notifications IN SHARE MODE",
    )

    async def state() -> tuple[str, int, int]:
        status = await running.value("SELECT status FROM proposals WHERE id = $1", proposal["id"])
        audited = await count(
            running,
            "SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action = 'proposal.accepted'",
            proposal["id"],
        )
        noted = await count(
            running,
            "SELECT count(*) FROM notifications WHERE user_id = $1 AND kind = 'PROPOSAL_ACCEPTED'",
            world["member"]["id"],
        )
        return str(status), audited, noted

    assert await state() == ("SENT", 0, 0)
    accepted = await http["b"].post(accept, json={"signerName": "Dana Client"})
    assert accepted.status_code == 200, accepted.text
    assert await state() == ("ACCEPTED", 1, 1)
    running.ensure()
    twice = await http["a"].post(accept, json={"signerName": "Dana Client"})
    assert twice.status_code == 409, twice.text


async def test_bulk_write(running: Cluster, http: Http, worlds: list[Json]) -> None:
    world = worlds[4]
    url = f"/api/v1/projects/{world['projectId']}/issues"
    headers = world["manager"]["headers"]
    single = await http["a"].post(url, json={"title": "Acknowledged"}, headers=headers)
    assert single.status_code == 200, single.text
    seeded = await http["a"].post(
        f"{url}/bulk", json={"records": [{"externalId": "B-1", "title": "Kept"}]}, headers=headers
    )
    assert seeded.status_code == 200, seeded.text
    locked = seeded.json()["results"][0]["id"]
    # In key order: three creates, one assigned to the member (whose notification's insert
    # waits on the lock the test holds), the update of B-1, a last create.
    records = [
        *({"externalId": f"A-{i}", "title": f"New {i}"} for i in range(3)),
        {"externalId": "B-0", "title": "Assigned", "assigneeId": world["member"]["id"]},
        {"externalId": "B-1", "title": "Changed"},
        {"externalId": "C-1", "title": "Last"},
    ]

    await crash_server_during(
        running,
        lambda: http["a"].post(f"{url}/bulk", json={"records": records}, headers=headers),
        "INSERT INTO notifications%",
        "LOCK TABLE notifications IN SHARE MODE",
    )

    async def issues() -> tuple[list[int], int, int]:
        numbers = [
            r["number"]
            for r in await running.rows(
                "SELECT number FROM issues WHERE project_id = $1 ORDER BY number",
                world["projectId"],
            )
        ]
        counter = await running.value(
            "SELECT value FROM project_counters WHERE project_id = $1 AND kind = 'issue'",
            world["projectId"],
        )
        created = await count(
            running,
            "SELECT count(*) FROM audit_logs WHERE project_id = $1 AND action = 'issue.created'",
            world["projectId"],
        )
        return numbers, int(counter), created

    assert await issues() == ([1, 2], 2, 2)  # the two acknowledged, numbers not skipped
    title = "SELECT title FROM issues WHERE id = $1"
    assert await running.value(title, locked) == "Kept"
    again = await http["b"].post(f"{url}/bulk", json={"records": records}, headers=headers)
    assert again.status_code == 200, again.text
    assert (again.json()["created"], again.json()["updated"]) == (5, 1)
    assert await issues() == ([1, 2, 3, 4, 5, 6, 7], 7, 7)
    assert await running.value(title, locked) == "Changed"


async def test_worker_killed_in_the_middle_of_a_job(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    """The SMTP sink holds the proposal's e-mail unanswered; the worker sending it is killed;
    the other worker sends it: one message at the sink, one attempt recorded."""
    world = worlds[5]
    await mail_settled(running)
    client = f"client-{new_id()}@example.com"
    running.smtp.hold(client)
    proposal = await sent_proposal(http["a"], world, hours=720, client_email=client)
    wait_for("a worker to start delivering the e-mail", running.smtp.held.is_set)
    assert running.smtp.held_peer is not None
    workers = {w.popen.pid: w for w in running.workers if w.popen is not None and w.alive}
    owner = pid_with_local_port(running.smtp.held_peer[1], list(workers))
    assert owner is not None, "no worker holds the SMTP connection"
    busy = workers[owner]
    busy.kill()
    assert busy.popen is not None and busy.popen.returncode == -signal.SIGKILL
    running.smtp.release.set()
    busy.start()  # restarted at once: whichever worker claims the job sends it

    await mail_settled(running)  # the other worker took the job over
    assert len(running.smtp.mails(client)) == 1
    job = (
        await running.rows(
            "SELECT status, attempts FROM jobs WHERE name = 'mail.send' AND payload->'to' ? $1",
            client,
        )
    )[0]
    assert (job["status"], job["attempts"]) == ("done", 1)  # the killed attempt left nothing
    assert proposal["clientEmail"] == client
    running.ensure()
    await mail_settled(running)
    assert len(running.smtp.mails(client)) == 1
    ids = running.message_ids()
    assert len(ids) == len(set(ids))
