"""`plumbline serve` and `plumbline worker` as real processes, for the deployment's tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.live import STARTUP, free_port


@contextmanager
def serving(env: dict[str, str], log: Path | None = None) -> Iterator[str]:
    """`plumbline serve` on a free port until the block ends (SIGTERM); its URL once it
    answers ``/api/v1/ready`` at all, ready or not (a server whose database is down too)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "plumbline.cli", "serve", "--port", str(port)],
        env={**os.environ, "NO_COLOR": "1", **env},
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab") if log else subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}")
            try:
                httpx.get(f"{url}/api/v1/ready", timeout=10)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=60)
