"""`plumbline serve` as a real process: the port it binds is the one it trusts and prints."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import pytest

from tests.live import free_port


async def test_serve_trusts_the_port_it_is_bound_to(world, tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PLUMBLINE_LOG_LEVEL": "INFO", "NO_COLOR": "1", "COLUMNS": "300"}
    # the suite's explicit public URL and origins would win over the port
    for name in ("PLUMBLINE_PUBLIC_URL", "PLUMBLINE_TRUSTED_ORIGINS"):
        env.pop(name, None)
    log = tmp_path / "serve.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "plumbline.cli", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        assert process.stdout is not None
        printed = process.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        assert f"listening on {url}" in printed, printed
        # printed once bound and listening: a connection succeeds at once (and waits for the app)
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            assert (await http.get("/api/v1/health")).status_code == 200
            for origin in (url, f"http://localhost:{port}"):
                created = await http.post(
                    f"/api/v1/projects/{world.project.id}/issues",
                    json={"title": "From the served port"},
                    headers={**world.member.headers, "Origin": origin},
                )
                assert created.status_code == 200, created.text
            foreign = await http.post(
                f"/api/v1/projects/{world.project.id}/issues",
                json={"title": "From the default port"},
                headers={**world.member.headers, "Origin": "http://127.0.0.1:8000"},
            )
            assert foreign.status_code == 403
            # links are built on the served URL
            target = await http.post(
                "/api/v1/files/presign-upload",
                json={
                    "fileName": "Port.pdf",
                    "contentType": "application/pdf",
                    "sizeBytes": 10,
                    "projectId": world.project.id,
                },
                headers={**world.member.headers, "Origin": url},
            )
            assert target.json()["uploadUrl"].startswith(f"{url}/api/v1/storage/upload/")
    finally:
        process.terminate()
        process.wait(timeout=30)
        assert process.stdout is not None
        process.stdout.close()
    # every line the server wrote, uvicorn's included, is JSON
    lines = [orjson.loads(line) for line in log.read_text().splitlines()]
    messages = {(line["logger"], line["message"]) for line in lines}
    assert ("uvicorn.error", "Application startup complete.") in messages
    assert any(
        logger == "plumbline.access" and message == "request" for logger, message in messages
    )
    assert not [line for line in lines if re.search(r"\x1b\[", str(line))]


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_exits_cleanly_on_sigterm(workers: int) -> None:
    # One process: uvicorn raised SIGTERM again once shut down, so the process died by it (143).
    # Two: the log configuration handed to the workers could not be pickled.
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "plumbline.cli", "serve"),
            *("--port", str(free_port()), "--workers", str(workers)),
        ],
        env={**os.environ, "PLUMBLINE_LOG_LEVEL": "INFO", "NO_COLOR": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:  # the app has started
        if "Application startup complete" in line:
            break
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    process.stderr.close()
