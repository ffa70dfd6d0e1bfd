"""Uploads then downloads 1 GiB through the local storage backend and reports the server's
memory growth (target < 64 MiB: bytes are streamed, never held) and the throughput.

``python -m benchmarks.files_transfer``; ``BENCH_FILES_DB=postgres`` uses a fresh PostgreSQL
database (see ``benchmarks.harness``), the default is SQLite in a temporary directory.
``BENCH_FILES_MIB`` changes the size (default 1024).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from benchmarks.harness import check_main, free_port, fresh_database

MiB = 1024 * 1024
SIZE_MIB = int(os.environ.get("BENCH_FILES_MIB", "1024"))
TARGET_GROWTH_MIB = 64
CHUNK = MiB


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc (psutil is not a dependency)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class RssSampler(threading.Thread):
    def __init__(self, pid: int, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak = rss_bytes(pid)
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, rss_bytes(self.pid))
            time.sleep(self.interval)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.peak


@contextmanager
def sqlite_database() -> Iterator[dict[str, str]]:
    var = Path(tempfile.mkdtemp(prefix="plumbline-bench-files-"))
    env = {
        **os.environ,
        "PLUMBLINE_DATABASE_URL": f"sqlite+aiosqlite:///{var}/bench.db",
        "PLUMBLINE_VAR_DIR": str(var),
        "PLUMBLINE_STORAGE_DIR": str(var / "objects"),
        "PLUMBLINE_OUTBOX_DIR": str(var / "outbox"),
        "PLUMBLINE_SECRET_KEY": "benchmark-secret",
        "PLUMBLINE_LOG_LEVEL": "WARNING",
        "PLUMBLINE_RATE_LIMITS": "false",
    }
    subprocess.run([sys.executable, "-m", "plumbline.cli", "db", "upgrade"], env=env, check=True)
    try:
        yield env
    finally:
        shutil.rmtree(var, ignore_errors=True)


def seed(env: dict[str, str]) -> tuple[str, str]:
    """The demo project id and its API key (all scopes)."""
    out = subprocess.run(
        [sys.executable, "-m", "plumbline.cli", "demo"],
        env={**env, "COLUMNS": "300", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    project = re.search(r"project:\s+(\S+)", out)
    key = re.search(r"API key:\s+(\S+)", out)
    if project is None or key is None:
        raise RuntimeError(f"unexpected demo output: {out}")
    return project.group(1), key.group(1)


@contextmanager
def server(env: dict[str, str]) -> Iterator[tuple[str, int]]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "plumbline.app:create_app", "--factory",
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
            "--no-access-log",
        ],
        env={**env, "PLUMBLINE_PUBLIC_URL": url},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("server did not start")
            time.sleep(0.1)
        yield url, process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


def block(i: int) -> bytes:
    """Deterministic, non-repeating 1 MiB blocks (not compressible by accident)."""
    seed_bytes = hashlib.sha256(i.to_bytes(8, "big")).digest()
    return seed_bytes * (CHUNK // len(seed_bytes))


async def transfer(url: str, project_id: str, key: str, size_mib: int) -> dict[str, float]:
    headers = {"x-api-key": key}
    size = size_mib * MiB
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=600) as http:
        target = (
            await http.post(
                "/api/v1/files/presign-upload",
                json={
                    "fileName": "bench.pdf",
                    "contentType": "application/pdf",
                    "sizeBytes": size,
                    "projectId": project_id,
                },
            )
        ).json()
        digest = hashlib.sha256()

        async def body() -> AsyncIterator[bytes]:
            for i in range(size_mib):
                chunk = block(i)
                digest.update(chunk)
                yield chunk

        started = time.perf_counter()
        put = await http.put(
            target["uploadUrl"],
            content=body(),
            headers={**target["headers"], "Content-Length": str(size)},
        )
        upload_s = time.perf_counter() - started
        put.raise_for_status()
        started = time.perf_counter()
        done = await http.post(
            "/api/v1/files/complete-upload",
            json={"uploadId": target["uploadId"], "sha256": digest.hexdigest()},
        )
        complete_s = time.perf_counter() - started
        done.raise_for_status()
        file_id = done.json()["id"]
        received = hashlib.sha256()
        count = 0
        started = time.perf_counter()
        async with http.stream("GET", f"/api/v1/files/{file_id}/content") as response:
            response.raise_for_status()
            async for chunk in response.aiter_raw():
                received.update(chunk)
                count += len(chunk)
        download_s = time.perf_counter() - started
        if count != size or received.hexdigest() != digest.hexdigest():
            raise RuntimeError("downloaded bytes differ from the upload")
    return {"upload_s": upload_s, "complete_s": complete_s, "download_s": download_s}


async def warm_up(url: str, project_id: str, key: str) -> None:
    """Load every code path once (imports, pools) so growth measures the transfer only."""
    await transfer(url, project_id, key, 2)


def main() -> None:
    backend = os.environ.get("BENCH_FILES_DB", "sqlite")
    database = fresh_database("files") if backend == "postgres" else sqlite_database()
    with database as env:
        project_id, key = seed(env)
        with server(env) as (url, pid):
            asyncio.run(warm_up(url, project_id, key))
            baseline = rss_bytes(pid)
            sampler = RssSampler(pid)
            sampler.start()
            timings = asyncio.run(transfer(url, project_id, key, SIZE_MIB))
            peak = sampler.stop()
    growth = (peak - baseline) / MiB
    verdict = "meets" if growth < TARGET_GROWTH_MIB else "misses"
    print(f"files_transfer ({backend}, local storage, {SIZE_MIB} MiB):")
    print(f"  server RSS: baseline {baseline / MiB:.1f} MiB, peak {peak / MiB:.1f} MiB, "
          f"growth {growth:.1f} MiB ({verdict} < {TARGET_GROWTH_MIB} MiB)")  # fmt: skip
    print(f"  upload (PUT):            {SIZE_MIB / timings['upload_s']:.0f} MB/s "
          f"({timings['upload_s']:.1f} s)")  # fmt: skip
    print(f"  complete (SHA-256 check): {timings['complete_s']:.1f} s")
    print(f"  download (content):      {SIZE_MIB / timings['download_s']:.0f} MB/s "
          f"({timings['download_s']:.1f} s)")  # fmt: skip


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_FILES_MIB": "2"})


if __name__ == "__main__":
    main()
