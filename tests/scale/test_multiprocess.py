"""Two `plumbline serve` and two `plumbline worker` processes on one PostgreSQL, one Redis, a
moto S3 server and an SMTP sink: what one server starts, the other sees; what both are asked to
do at once happens once; every e-mail reaches the sink once."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from typing import Any

import httpx
import orjson

from plumbline.kit.ids import new_id
from tests.scale.cluster import CRON, Cluster, Http, until
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
WORLDS = 3


async def test_presigned_upload_started_on_one_server_completes_on_the_other(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    world = worlds[0]
    data = pdf("A to B")
    target = await presign(http["a"], world, data, "A-to-B.pdf")
    assert target["uploadUrl"].startswith(running.moto_url)
    done = await complete(http["b"], world, target["uploadId"], data)
    assert done.status_code == 200, done.text
    again = await complete(http["a"], world, target["uploadId"], data)  # a repeat, on A
    assert again.status_code == 200 and again.json() == done.json()
    read = await http["a"].get(
        f"/api/v1/files/{done.json()['id']}/presign-read", headers=world["manager"]["headers"]
    )
    assert read.status_code == 200, read.text
    async with httpx.AsyncClient(timeout=60) as s3:
        assert (await s3.get(read.json()["url"])).content == data
    used, stored = await storage(running, world["workspaceId"])
    assert used == stored == len(data)


async def storage(running: Cluster, workspace_id: str) -> tuple[int, int]:
    """The workspace's storage counter and the sum of its file versions' sizes."""
    row = (
        await running.rows(
            "SELECT w.storage_used_bytes AS used, (SELECT coalesce(sum(size_bytes), 0) FROM"
            " file_versions v WHERE v.workspace_id = w.id) AS stored FROM workspaces w"
            " WHERE w.id = $1",
            workspace_id,
        )
    )[0]
    return int(row["used"]), int(row["stored"])


class Stream:
    """An SSE subscriber: each event as (name, data), in order of arrival."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.task: asyncio.Task[None] | None = None

    async def read(self, client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> None:
        async with client.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            buffer = b""
            async for chunk in response.aiter_raw():
                buffer += chunk
                *blocks, buffer = buffer.split(b"\n\n")
                for block in blocks:
                    fields = dict(
                        line.split(b": ", 1) for line in block.split(b"\n") if b": " in line
                    )
                    if b"event" in fields:
                        self.events.append(
                            (fields[b"event"].decode(), orjson.loads(fields.get(b"data", b"null")))
                        )

    def named(self, name: str) -> list[Any]:
        return [data for event, data in self.events if event == name]

    async def first(self, what: str, match: Any) -> Any:
        async def check() -> Any:
            if self.task is not None and self.task.done():
                self.task.result()  # the stream's own failure, if it ended with one
                raise AssertionError(f"the stream ended before {what}")
            return next((e for e in self.events if match(e)), None)

        return await until(what, check)


@contextlib.asynccontextmanager
async def subscribed(server_url: str, version_id: str, headers: dict[str, str]):  # type: ignore[no-untyped-def]
    stream = Stream()
    url = f"{server_url}/api/v1/file-versions/{version_id}/viewer-collab/events"
    async with httpx.AsyncClient(timeout=httpx.Timeout(60, read=None)) as client:
        stream.task = asyncio.create_task(stream.read(client, url, headers))
        try:
            await stream.first("the stream's hello", lambda e: e[0] == "hello")
            yield stream
        finally:
            stream.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await stream.task


async def test_an_sse_room_is_shared_across_both_servers(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    world = worlds[1]
    data = pdf("room")
    target = await presign(http["a"], world, data, "Room.pdf")
    done = await complete(http["a"], world, target["uploadId"], data)
    assert done.status_code == 200, done.text
    version = done.json()["fileVersionId"]
    member, manager = world["member"], world["manager"]
    # A viewer joining on server A shows in the presence the subscriber on B reads.
    async with (
        subscribed(running.servers["b"].url, version, member["headers"]) as on_b,
        subscribed(running.servers["a"].url, version, manager["headers"]) as on_a,
    ):
        await on_b.first(
            "the viewer on server A in the presence seen on server B",
            lambda e: (
                e[0] == "presence"
                and {m["userId"] for m in e[1]["members"]} == {member["id"], manager["id"]}
            ),
        )
        saved = await http["a"].put(
            f"/api/v1/file-versions/{version}/viewer-state",
            json={"viewerState": {"markups": ["from A"]}, "baseRevision": 0},
            headers=manager["headers"],
        )
        assert saved.status_code == 200, saved.text
        state = await on_b.first(
            "the markups saved on server A, on server B's stream",
            lambda e: e[0] == "viewer_state",
        )
        assert state[1]["revision"] == saved.json()["revision"]
        # ...and the other way round.
        beat = await http["b"].post(
            f"/api/v1/file-versions/{version}/viewer-collab/heartbeat",
            json={"connectionId": on_b.named("hello")[0]["connectionId"], "pageIndex": 3},
            headers=member["headers"],
        )
        assert beat.status_code == 200, beat.text
        await on_a.first(
            "the page of the viewer on server B, on server A's stream",
            lambda e: (
                e[0] == "presence"
                and any(m["pageIndex"] == 3 for m in e[1]["members"] if m["userId"] == member["id"])
            ),
        )


async def test_rate_limits_are_shared_by_both_servers(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    """Sign-in allows 10 attempts a minute per e-mail address: split across both servers, the
    11th is refused, whichever server it reaches."""
    body = {"email": f"nobody-{new_id()}@example.com", "password": "Wrong-Horse-9"}
    answers = [
        (await http["ab"[i % 2]].post("/api/auth/sign-in/email", json=body)).status_code
        for i in range(10)
    ]
    assert answers == [401] * 10
    for name in ("a", "b"):
        refused = await http[name].post("/api/auth/sign-in/email", json=body)
        assert refused.status_code == 429, refused.text
        assert "Retry-After" in refused.headers


async def test_daily_work_triggered_on_both_servers_at_once_happens_once(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    world = worlds[2]
    schedule = await due_schedule(http["a"], world)
    # Each client e-mailed once: six mails for the two workers. Expiring within 48 hours: the
    # other tests' proposals are valid longer.
    proposals = [await sent_proposal(http["ab"[i % 2]], world, hours=24) for i in range(6)]

    async def both(path: str, **kwargs: Any) -> list[httpx.Response]:
        return list(await asyncio.gather(*(http[name].post(path, **kwargs) for name in ("a", "b"))))

    digests = await both("/api/v1/internal/om-maintenance-reminders", headers=CRON)
    reminders = await both("/api/v1/internal/proposal-reminders", headers=CRON)
    generated = await both(
        f"/api/v1/projects/{world['projectId']}/om/maintenance/generate-work-orders",
        headers=world["manager"]["headers"],
    )
    for response in [*digests, *reminders, *generated]:
        assert response.status_code == 200, response.text

    # The digest: one run for the workspace today, claimed by one of the two calls.
    assert sorted(r.json()["workspacesNotified"] for r in digests) == [0, 1]
    emailed = sum(r.json()["membersEmailed"] for r in digests)
    runs = await running.rows(
        "SELECT members FROM digest_runs WHERE workspace_id = $1 AND kind = 'om-maintenance'",
        world["workspaceId"],
    )
    assert len(runs) == 1 and emailed >= 1
    # The reminders: one per proposal, between the two calls.
    assert sum(r.json()["reminded"] for r in reminders) == len(proposals)
    claimed = await running.value(
        "SELECT count(*) FROM proposal_reminders WHERE proposal_id = ANY($1::text[])",
        [p["id"] for p in proposals],
    )
    assert claimed == len(proposals)
    # The work order: created by one call, found by the other.
    created = [i for r in generated for i in r.json()["created"]]
    existing = [i for r in generated for i in r.json()["existing"]]
    assert len(created) == 1 and existing == created
    orders = await running.value(
        "SELECT count(*) FROM issues WHERE maintenance_schedule_id = $1", schedule["id"]
    )
    assert orders == 1
    assigned = await running.value(
        "SELECT count(*) FROM notifications WHERE user_id = $1 AND kind = 'ISSUE_ASSIGNED'",
        world["member"]["id"],
    )
    assert assigned == 1

    await mail_settled(running)
    manager_mails = running.subjects_to(world["manager"]["email"])
    assert sum("Maintenance due" in s for s in manager_mails) == 1, manager_mails
    member_mails = running.subjects_to(world["member"]["email"])
    assert sum(s.endswith("expires soon") for s in member_mails) == len(proposals), member_mails
    digests_to_world = [s for s in running.subjects_to_world(world) if "Maintenance due" in s]
    assert len(digests_to_world) == emailed == runs[0]["members"]


async def test_every_email_reaches_the_sink_once(
    running: Cluster, http: Http, worlds: list[Json]
) -> None:
    """Whatever the tests before queued, delivered by two competing workers: as many messages
    at the sink as mail jobs done, each Message-ID once."""
    world = worlds[0]
    for i in range(8):
        await sent_proposal(http["ab"[i % 2]], world, hours=720)
    done = await mail_settled(running)
    ids = running.message_ids()
    assert len(ids) == done, f"{len(ids)} messages at the sink for {done} mail jobs done"
    repeated = {k: n for k, n in Counter(ids).items() if n > 1}
    assert repeated == {}, f"delivered more than once: {repeated}"
