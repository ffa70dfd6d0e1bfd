"""SSE fan-out: N viewers on one file version, events published through viewer-state saves;
per-subscriber delivery latency (from just before the PUT is sent to the event's arrival).

``python -m benchmarks.sse_fanout`` (needs PostgreSQL on 127.0.0.1:5432). Settings:
BENCH_SSE_SUBSCRIBERS (default 1000), BENCH_SSE_EVENTS (20), BENCH_SSE_USERS (20: the viewers
are spread over this many signed-in users). The server runs with PLUMBLINE_RATE_LIMITS=false,
because 1000 connects from a few users exceed the 24 connects/min/user limit.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta

import httpx
import orjson

from benchmarks.harness import check_main

SUBSCRIBERS = int(os.environ.get("BENCH_SSE_SUBSCRIBERS", "1000"))
EVENTS = int(os.environ.get("BENCH_SSE_EVENTS", "20"))
USERS = int(os.environ.get("BENCH_SSE_USERS", "20"))
CRON_SECRET = "bench-cron-secret"  # noqa: S105 - a throwaway server's secret
ORIGIN = "http://127.0.0.1:8000"


async def seed(users: int) -> dict[str, object]:
    """A workspace, ``users`` signed-in members, a project and one file version."""
    from plumbline.db import database
    from plumbline.kit import clock, crypto
    from plumbline.models import (
        AuthSession,
        File,
        FileVersion,
        Membership,
        Project,
        User,
        Workspace,
    )

    async with database.sessionmaker() as db:
        now = clock.now()
        workspace = Workspace(name="Bench Co", slug="bench-sse", created_at=now, updated_at=now)
        db.add(workspace)
        await db.flush()
        project = Project(workspace_id=workspace.id, name="Tower", created_at=now, updated_at=now)
        db.add(project)
        await db.flush()
        cookies = []
        for i in range(users):
            user = User(
                name=f"Viewer {i}",
                email=f"viewer{i}@example.com",
                email_verified=True,
                created_at=now,
                updated_at=now,
            )
            db.add(user)
            await db.flush()
            db.add(
                Membership(
                    workspace_id=workspace.id,
                    user_id=user.id,
                    role="SUPER_ADMIN" if i == 0 else "MEMBER",
                    joined_at=now,
                )
            )
            token = crypto.random_token()
            db.add(
                AuthSession(
                    user_id=user.id,
                    token_hash=crypto.sha256_hex(token),
                    expires_at=now + timedelta(days=1),
                    created_at=now,
                    updated_at=now,
                )
            )
            cookies.append(crypto.signed(token, "session"))
        file = File(
            project_id=project.id,
            workspace_id=workspace.id,
            name="A-101.pdf",
            normalized_name="a-101.pdf",
            created_at=now,
            updated_at=now,
        )
        db.add(file)
        await db.flush()
        version = FileVersion(
            file_id=file.id,
            project_id=project.id,
            workspace_id=workspace.id,
            version=1,
            storage_key="bench/a-101.pdf",
            size_bytes=1,
            content_type="application/pdf",
            created_at=now,
        )
        db.add(version)
        await db.commit()
        await database.dispose()
        return {"versionId": version.id, "cookies": cookies}


@dataclass
class Subscriber:
    index: int
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    connection_id: str | None = None
    arrivals: dict[int, float] = field(default_factory=dict)
    failed: str | None = None


async def subscribe(
    client: httpx.AsyncClient, url: str, cookie: str, sub: Subscriber, stop: asyncio.Event
) -> None:
    """Read the stream with a minimal parser: only hello and viewer_state are decoded."""
    headers = {"Cookie": f"auth.session_token={cookie}"}
    try:
        async with client.stream("GET", url, headers=headers) as response:
            if response.status_code != 200:
                sub.failed = f"HTTP {response.status_code}"
                sub.connected.set()
                return
            buffer = b""
            async for chunk in response.aiter_raw():
                arrived = time.perf_counter()
                buffer += chunk
                *blocks, buffer = buffer.split(b"\n\n")
                for block in blocks:
                    if block.startswith(b"event: viewer_state\n"):
                        data = orjson.loads(block.split(b"data: ", 1)[1])
                        sub.arrivals.setdefault(data["revision"], arrived)
                    elif block.startswith(b"event: hello\n"):
                        sub.connection_id = orjson.loads(block.split(b"data: ", 1)[1])[
                            "connectionId"
                        ]
                        sub.connected.set()
                if stop.is_set():
                    return
    except httpx.HTTPError as exc:
        if not stop.is_set():
            sub.failed = type(exc).__name__
        sub.connected.set()


async def heartbeats(
    api: httpx.AsyncClient, url: str, cookie: str, sub: Subscriber, stop: asyncio.Event
) -> None:
    """Keeps the viewer in presence (75 s timeout) with a heartbeat every 30-40 s: sparser
    than a browser's 25 s, so 1,000 viewers do not swamp a small machine while connecting."""
    await sub.connected.wait()
    headers = {"Cookie": f"auth.session_token={cookie}"}
    while not stop.is_set() and sub.connection_id and not sub.failed:
        await asyncio.sleep(30 + 10 * random.random())
        try:
            response = await api.post(
                url, json={"connectionId": sub.connection_id}, headers=headers
            )
        except httpx.HTTPError as exc:
            sub.failed = f"heartbeat {type(exc).__name__}"
            return
        if response.status_code != 200:
            sub.failed = f"heartbeat HTTP {response.status_code}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def drive(base: str, version_id: str, cookies: list[str]) -> str:
    events_url = f"{base}/api/v1/file-versions/{version_id}/viewer-collab/events"
    heartbeat_url = f"/api/v1/file-versions/{version_id}/viewer-collab/heartbeat"
    limits = httpx.Limits(max_connections=SUBSCRIBERS + 50, max_keepalive_connections=50)
    timeout = httpx.Timeout(30, read=None)
    stop = asyncio.Event()
    subs = [Subscriber(i) for i in range(SUBSCRIBERS)]
    async with (
        httpx.AsyncClient(limits=limits, timeout=timeout) as streams,
        httpx.AsyncClient(base_url=base, headers={"Origin": ORIGIN}, timeout=60) as api,
        httpx.AsyncClient(
            base_url=base,
            headers={"Origin": ORIGIN},
            limits=httpx.Limits(max_connections=100),
            timeout=httpx.Timeout(60, pool=None),
        ) as beats,
    ):
        started = time.perf_counter()
        tasks = []
        for batch in range(0, SUBSCRIBERS, 50):
            for sub in subs[batch : batch + 50]:
                cookie = cookies[sub.index % len(cookies)]
                tasks.append(asyncio.create_task(subscribe(streams, events_url, cookie, sub, stop)))
                tasks.append(
                    asyncio.create_task(heartbeats(beats, heartbeat_url, cookie, sub, stop))
                )
            await asyncio.gather(*(s.connected.wait() for s in subs[batch : batch + 50]))
        connect_seconds = time.perf_counter() - started
        connected = sum(1 for s in subs if s.connection_id and not s.failed)
        await asyncio.sleep(2)  # let the join presence storm settle

        owner = {"Cookie": f"auth.session_token={cookies[0]}"}
        sent: dict[int, float] = {}
        put_ms: list[float] = []
        state_url = f"/api/v1/file-versions/{version_id}/viewer-state"
        for revision in range(1, EVENTS + 1):
            body = {"viewerState": {"markups": [revision]}, "baseRevision": revision - 1}
            sent[revision] = time.perf_counter()
            response = await api.put(state_url, json=body, headers=owner)
            put_ms.append((time.perf_counter() - sent[revision]) * 1000)
            response.raise_for_status()
            await asyncio.sleep(0.25)
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline:
            if all(len(s.arrivals) >= EVENTS for s in subs if s.connection_id):
                break
            await asyncio.sleep(0.1)
        metrics = (
            await api.get(
                "/api/v1/internal/collab-metrics", headers={"x-service-cron-secret": CRON_SECRET}
            )
        ).json()
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    latencies = [
        (arrived - sent[revision]) * 1000
        for s in subs
        for revision, arrived in s.arrivals.items()
        if revision in sent
    ]
    first: dict[int, float] = {}
    for s in subs:
        for revision, arrived in s.arrivals.items():
            first[revision] = min(first.get(revision, arrived), arrived)
    spread = [
        (arrived - first[revision]) * 1000 for s in subs for revision, arrived in s.arrivals.items()
    ]
    expected = connected * EVENTS
    failures = sorted({s.failed for s in subs if s.failed})
    text = (
        f"\nSSE fan-out: {SUBSCRIBERS} subscribers on one file version, {EVENTS} viewer_state events"
        f" (server: one uvicorn worker, PLUMBLINE_RATE_LIMITS=false)\n"
        f"  connected: {connected}/{SUBSCRIBERS} in {connect_seconds:.1f} s"
        f"{' (failures: ' + ', '.join(failures) + ')' if failures else ''}\n"
        f"  received: {len(latencies)}/{expected} deliveries"
        f" ({100 * len(latencies) / max(expected, 1):.1f}%)\n"
        f"  latency from PUT sent to event received: "
        f"p50 {percentile(latencies, 0.5):.1f} ms, p99 {percentile(latencies, 0.99):.1f} ms,"
        f" max {max(latencies):.1f} ms\n"
        f"  fan-out spread (arrival minus the first subscriber's arrival of the same event): "
        f"p50 {percentile(spread, 0.5):.1f} ms, p99 {percentile(spread, 0.99):.1f} ms\n"
        f"  PUT round trip: p50 {percentile(put_ms, 0.5):.1f} ms\n"
        f"  server metrics: {orjson.dumps(metrics).decode()}\n"
        if latencies
        else f"\nSSE fan-out: no deliveries ({connected} connected; failures: {failures})\n"
    )
    print(text, flush=True)
    return text


def main() -> None:
    from benchmarks.harness import fresh_database, serve

    with fresh_database("sse") as env:
        env = {**env, "PLUMBLINE_CRON_SECRET": CRON_SECRET}
        env.pop("PLUMBLINE_REDIS_URL", None)
        seeded = orjson.loads(
            subprocess.run(
                [sys.executable, "-m", "benchmarks.sse_fanout", "seed", str(USERS)],
                env=env,
                capture_output=True,
                check=True,
            ).stdout
        )
        with serve("plumbline.app:create_app", env, factory=True) as url:
            asyncio.run(drive(url, seeded["versionId"], seeded["cookies"]))


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(
        __name__, {"BENCH_SSE_SUBSCRIBERS": "4", "BENCH_SSE_EVENTS": "2", "BENCH_SSE_USERS": "2"}
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["seed"]:
        print(orjson.dumps(asyncio.run(seed(int(sys.argv[2])))).decode())
    else:
        main()
