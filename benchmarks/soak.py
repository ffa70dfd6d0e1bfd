"""Soak: a bounded mixed load on one `plumbline serve` over loopback for a set time; zero 5xx
and flat memory expected.

``python -m benchmarks.soak [--minutes 2] [--sample 10] [--warmup SECONDS] [--digest-seconds 30]``
(needs PostgreSQL on 127.0.0.1:5432, like every benchmark: a fresh database, dropped after).

The load, each kind a loop of one request at a time with a short pause (so it is bounded: the
figures are latencies and memory, not a maximum rate): reads (the issue list, a project), writes
(create and update issues), uploads (presign + PUT + complete of a 4 KiB file), SSE subscribers
(a few long-lived co-viewing streams, fed by a viewer-state save every 2 s), portal traffic
(the public proposal and occupant pages and their JSON), and the daily digests and reminders
through the ``/internal`` routes every ``--digest-seconds``. The server's RSS is read from
/proc every ``--sample`` seconds; growth is measured from the first sample after the warm-up
(default: a quarter of the run, at most 60 s) to the last one. Exits 1 on any 5xx, any
other non-2xx (the load only sends valid requests), any transport error or RSS growth of
10 % or more.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import hashlib
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from benchmarks.harness import START_SECONDS, check_main, free_port, fresh_database, seed

CRON_SECRET = "soak-cron-secret"  # noqa: S105 - a throwaway server's secret
CRON = {"x-service-cron-secret": CRON_SECRET}
SUBSCRIBERS = 3
PAUSE = 0.05  # seconds between two requests of one loop


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, dict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )
    transport_errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    sse_events: int = 0
    sse_connects: int = 0
    rss: list[tuple[float, int]] = field(default_factory=list)

    def record(self, kind: str, started: float, response: httpx.Response) -> httpx.Response:
        self.latencies[kind].append((time.perf_counter() - started) * 1000)
        self.statuses[kind][response.status_code] += 1
        return response

    @property
    def server_errors(self) -> int:
        return sum(n for codes in self.statuses.values() for s, n in codes.items() if s >= 500)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Load:
    def __init__(self, base: str, seeded: dict[str, Any], stats: Stats, stop: asyncio.Event):
        self.base, self.stats, self.stop = base, stats, stop
        self.project = seeded["projectId"]
        self.key = {"x-api-key": seeded["key"]}
        self.cookie = {"Cookie": f"auth.session_token={seeded['cookie']}", "Origin": base}
        self.http = httpx.AsyncClient(base_url=base, timeout=60)
        self.issue_ids: list[str] = []
        self.version_id = ""
        self.proposal_token = ""
        self.occupant_token = ""

    async def call(self, kind: str, method: str, url: str, **kwargs: Any) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            response = await self.http.request(method, url, **kwargs)
        except httpx.TransportError:
            self.stats.transport_errors[kind] += 1
            return None
        return self.stats.record(kind, started, response)

    async def loop(self, body: Any, pause: float = PAUSE) -> None:
        while not self.stop.is_set():
            await body()
            await asyncio.sleep(pause)

    # -- what the loops do ------------------------------------------------------------------
    async def read(self) -> None:
        await self.call(
            "issue list",
            "GET",
            f"/api/v1/projects/{self.project}/issues?limit=50",
            headers=self.key,
        )
        await self.call("project", "GET", f"/api/v1/projects/{self.project}", headers=self.cookie)

    async def write(self) -> None:
        made = await self.call(
            "issue create",
            "POST",
            f"/api/v1/projects/{self.project}/issues",
            json={"title": "Soak: sealant missing", "priority": "HIGH"},
            headers=self.key,
        )
        if made is not None and made.status_code == 200:
            self.issue_ids.append(made.json()["id"])
        if self.issue_ids:
            issue = self.issue_ids[len(self.issue_ids) // 2]
            await self.call(
                "issue update",
                "PATCH",
                f"/api/v1/projects/{self.project}/issues/{issue}",
                json={"title": f"Soak: updated {time.monotonic():.0f}"},
                headers=self.key,
            )

    async def upload(self, name: str = "Soak.pdf") -> dict[str, Any] | None:
        data = b"%PDF-1.4\n" + os.urandom(4096) + b"\n%%EOF\n"
        target = await self.call(
            "upload presign",
            "POST",
            "/api/v1/files/presign-upload",
            json={
                "fileName": name,
                "contentType": "application/pdf",
                "sizeBytes": len(data),
                "projectId": self.project,
            },
            headers=self.cookie,
        )
        if target is None or target.status_code != 200:
            return None
        body = target.json()
        put = await self.call(
            "upload put", "PUT", body["uploadUrl"], content=data, headers=body["headers"]
        )
        if put is None or put.status_code != 200:
            return None
        done = await self.call(
            "upload complete",
            "POST",
            "/api/v1/files/complete-upload",
            json={"uploadId": body["uploadId"], "sha256": hashlib.sha256(data).hexdigest()},
            headers=self.cookie,
        )
        return done.json() if done is not None and done.status_code == 200 else None

    async def portal(self) -> None:
        token, occupant = self.proposal_token, self.occupant_token
        await self.call("portal proposal", "GET", f"/api/v1/public/proposals/{token}")
        await self.call("portal proposal page", "GET", f"/portal/proposals/{token}")
        await self.call("portal occupant", "GET", f"/api/v1/occupant/{occupant}/meta")
        await self.call("portal occupant page", "GET", f"/portal/occupant/{occupant}")

    async def digests(self) -> None:
        for route in (
            "om-maintenance-reminders",
            "om-inspection-reminders",
            "om-work-order-aging-reminders",
            "proposal-reminders",
        ):
            await self.call("digests", "POST", f"/api/v1/internal/{route}", headers=CRON)

    async def viewer_saves(self) -> None:
        revision = 0
        url = f"/api/v1/file-versions/{self.version_id}/viewer-state"
        while not self.stop.is_set():
            saved = await self.call(
                "viewer-state save",
                "PUT",
                url,
                json={"viewerState": {"markups": [revision]}, "baseRevision": revision},
                headers=self.cookie,
            )
            if saved is not None and saved.status_code == 200:
                revision = saved.json()["revision"]
            await asyncio.sleep(2)

    async def subscriber(self) -> None:
        url = f"{self.base}/api/v1/file-versions/{self.version_id}/viewer-collab/events"
        async with httpx.AsyncClient(timeout=httpx.Timeout(60, read=None)) as client:
            while not self.stop.is_set():
                started = time.perf_counter()
                try:
                    async with client.stream("GET", url, headers=self.cookie) as response:
                        self.stats.record("sse connect", started, response)
                        self.stats.sse_connects += 1
                        async for chunk in response.aiter_raw():
                            self.stats.sse_events += chunk.count(b"event: ")
                            if self.stop.is_set():
                                return
                except httpx.TransportError:
                    if not self.stop.is_set():
                        self.stats.transport_errors["sse"] += 1
                await asyncio.sleep(1)

    # -- the data the loops need ------------------------------------------------------------
    async def prepare(self, outbox: Path) -> None:
        done = await self.upload("Viewer.pdf")
        assert done is not None, "the first upload failed"
        self.version_id = done["fileVersionId"]
        made = await self.http.post(
            f"/api/v1/projects/{self.project}/proposals",
            json={
                "title": "Soak fit-out",
                "validUntil": "2099-12-31T17:00:00Z",
                "clientName": "Dana Client",
                "clientEmail": "client@example.com",
                "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
            },
            headers=self.cookie,
        )
        made.raise_for_status()
        sent = await self.http.post(
            f"/api/v1/projects/{self.project}/proposals/{made.json()['id']}/send",
            headers=self.cookie,
        )
        sent.raise_for_status()
        deadline = time.monotonic() + 60
        while not self.proposal_token:
            for path in outbox.glob("*.eml"):
                message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                body = message.get_body(preferencelist=("plain",))
                text = body.get_content() if body is not None else ""
                found = re.search(r"/portal/proposals/([A-Za-z0-9_-]+)", text)
                if found:
                    self.proposal_token = found.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError("the proposal e-mail never reached the outbox")
            await asyncio.sleep(0.2)
        link = await self.http.post(
            f"/api/v1/projects/{self.project}/om/occupant-links",
            json={"label": "Lobby"},
            headers=self.cookie,
        )
        link.raise_for_status()
        self.occupant_token = link.json()["token"]
        asset = await self.http.post(
            f"/api/v1/projects/{self.project}/om/assets",
            json={"tag": "AHU-1", "name": "Air handler"},
            headers=self.cookie,
        )
        asset.raise_for_status()
        schedule = await self.http.post(
            f"/api/v1/projects/{self.project}/om/maintenance",
            json={"assetId": asset.json()["id"], "title": "Filters", "frequency": "MONTHLY"},
            headers=self.cookie,
        )
        schedule.raise_for_status()


async def drive(
    base: str, pid: int, seeded: dict[str, Any], outbox: Path, args: argparse.Namespace
) -> Stats:
    stats, stop = Stats(), asyncio.Event()
    load = Load(base, seeded, stats, stop)
    await load.prepare(outbox)
    duration = args.minutes * 60

    async def sample() -> None:
        started = time.monotonic()
        while not stop.is_set():
            stats.rss.append((time.monotonic() - started, rss_kib(pid)))
            await asyncio.sleep(args.sample)

    async def digest_loop() -> None:
        while not stop.is_set():
            await load.digests()
            await asyncio.sleep(args.digest_seconds)

    tasks = [
        asyncio.create_task(coro)
        for coro in (
            sample(),
            load.loop(load.read),
            load.loop(load.read),
            load.loop(load.write),
            load.loop(load.upload),
            load.loop(load.portal),
            load.viewer_saves(),
            digest_loop(),
            *(load.subscriber() for _ in range(SUBSCRIBERS)),
        )
    ]
    await asyncio.sleep(duration)
    stop.set()
    stats.rss.append((duration, rss_kib(pid)))
    await asyncio.wait(tasks, timeout=90)
    for task in tasks:
        task.cancel()
    await load.http.aclose()
    return stats


def report(stats: Stats, args: argparse.Namespace, load_before: tuple[float, ...]) -> bool:
    warmup = args.warmup if args.warmup is not None else min(60.0, args.minutes * 60 / 4)
    after = [(t, kib) for t, kib in stats.rss if t >= warmup] or stats.rss[-1:]
    start, end = after[0][1], after[-1][1]
    growth = (end - start) / start * 100
    requests = sum(len(v) for v in stats.latencies.values())
    transport = sum(stats.transport_errors.values())
    load_after = os.getloadavg()
    print(
        f"\nSoak: {args.minutes:g} min on loopback, one `plumbline serve` ({os.cpu_count()} CPUs), "
        f"load average {load_before[0]:.2f} at the start, {load_after[0]:.2f} at the end "
        f"(15-min {load_after[2]:.2f})"
    )
    print(f"  {'kind':24} {'requests':>9} {'p50 ms':>9} {'p99 ms':>9} {'5xx':>5}  other non-2xx")
    for kind in sorted(stats.latencies):
        values, codes = stats.latencies[kind], stats.statuses[kind]
        errors = sum(n for s, n in codes.items() if s >= 500)
        other = {s: n for s, n in codes.items() if (s < 200 or s >= 300) and s < 500}
        print(
            f"  {kind:24} {len(values):>9} {percentile(values, 0.5):>9.1f}"
            f" {percentile(values, 0.99):>9.1f} {errors:>5}  {other or ''}"
        )
    print(
        f"  total {requests} requests, {stats.server_errors} 5xx, {transport} transport errors; "
        f"SSE: {stats.sse_connects} connects, {stats.sse_events} events received"
    )
    print(
        f"  server RSS: {stats.rss[0][1] / 1024:.1f} MiB at the first sample, "
        f"{start / 1024:.1f} MiB after the {warmup:.0f} s warm-up, {end / 1024:.1f} MiB at the end "
        f"({growth:+.1f} %), peak {max(k for _, k in stats.rss) / 1024:.1f} MiB; "
        f"{len(stats.rss)} samples every {args.sample:g} s"
    )
    refused = sum(
        n for codes in stats.statuses.values() for s, n in codes.items() if 300 <= s < 500
    )
    ok = stats.server_errors == 0 and transport == 0 and refused == 0 and growth < 10
    verdict = "pass (no 5xx, no other non-2xx, RSS growth under 10 %)" if ok else "FAIL"
    print(f"  verdict: {verdict}", flush=True)
    return ok


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.soak", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before RSS counts")
    parser.add_argument("--digest-seconds", type=float, default=30.0)
    args = parser.parse_args(
        argv if argv is not None else sys.argv[1:] if __name__ == "__main__" else []
    )
    load_before = os.getloadavg()
    with fresh_database("soak") as env:
        seeded = orjson.loads(seed(env, "soak", 200))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = env | {"PLUMBLINE_PUBLIC_URL": base, "PLUMBLINE_CRON_SECRET": CRON_SECRET}
        server = subprocess.Popen(
            [sys.executable, "-m", "plumbline.cli", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + START_SECONDS
            while True:
                try:
                    if httpx.get(f"{base}/api/v1/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start")
                time.sleep(0.2)
            stats = asyncio.run(
                drive(base, server.pid, seeded, Path(env["PLUMBLINE_OUTBOX_DIR"]), args)
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
    if not report(stats, args, load_before):
        raise SystemExit(1)


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(
        __name__, {}, "--minutes", "0.3", "--sample", "3", "--warmup", "3", "--digest-seconds", "5"
    )


if __name__ == "__main__":
    main()
