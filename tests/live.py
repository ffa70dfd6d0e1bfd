"""A real server process on a free loopback port, for tests where a real socket matters."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import httpx

# A safety bound on a server process's start, never a timed assertion: on a loaded machine
# (parallel workers, other suites) importing the app alone can take 20 s.
STARTUP = 120  # seconds


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """``with LiveServer(env={...}) as server: httpx.get(server.url + "/api/v1/health")``.

    The process inherits the test environment (database, storage, secrets) plus ``env``; its
    stderr (the JSON log lines) goes to ``log`` when given, at uvicorn's ``log_level``. It is
    uvicorn started as `plumbline serve` starts it (no proxy headers); with ``serve=True``, it
    is `plumbline serve` itself, for tests of how the server is really launched."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        port: int | None = None,
        *,
        log: Path | None = None,
        log_level: str = "warning",
        serve: bool = False,
    ) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **(env or {})}
        self.log, self.log_level = log, log_level
        self.serve = serve
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LiveServer:
        command = (
            [
                sys.executable, "-m", "plumbline.cli", "serve",
                "--host", "127.0.0.1", "--port", str(self.port),
            ]
            if self.serve
            else [
                sys.executable, "-m", "uvicorn", "plumbline.app:create_app", "--factory",
                "--host", "127.0.0.1", "--port", str(self.port), "--log-level", self.log_level,
                "--no-proxy-headers",
            ]
        )  # fmt: skip
        env = (
            {**self.env, "PLUMBLINE_LOG_LEVEL": self.log_level.upper()} if self.serve else self.env
        )
        self.process = subprocess.Popen(
            command, env=env, stderr=self.log.open("ab") if self.log else None
        )
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}")
            try:
                if httpx.get(f"{self.url}/api/v1/health", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError(f"server did not start within {STARTUP} s")

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway ``redis-server`` on a free loopback port (no persistence), stopped on exit;
    without one on PATH, the Redis on 127.0.0.1:6379."""
    binary = shutil.which("redis-server")
    if binary is None:
        yield "redis://127.0.0.1:6379/0"
        return
    port = free_port()
    process = subprocess.Popen(
        [
            binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--daemonize", "no", "--loglevel", "warning",
        ],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + STARTUP
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
