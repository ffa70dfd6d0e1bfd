"""The server `plumbline serve` runs: uvicorn, where a stop asked for with SIGTERM exits 0, with
work to do before the app starts (the demo's seeding) and once it serves: once it has answered
an HTTP request (its own ``/api/v1/health``), what `plumbline serve` prints (its URL, the
demo's banner)."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from types import FrameType

import uvicorn
from uvicorn.supervisors import Multiprocess

Prepare = Callable[[], Awaitable[None]]
Started = Callable[[], None]
# What the server asks itself before saying it serves: any answer will do (503 too, when the
# database is down: the server answers, and says so there).
PROBE = "/api/v1/health"
PROBE_SECONDS = 120.0


async def answers(url: str, seconds: float = PROBE_SECONDS) -> bool:
    """Whether the server at ``url`` answers an HTTP request within ``seconds``."""
    import httpx

    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient(timeout=10) as client:
        while True:
            try:
                await client.get(url + PROBE)
                return True
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    return False
                await asyncio.sleep(0.05)


class Server(uvicorn.Server):
    """One process: ``prepare`` runs in the server's event loop before the app starts (the socket
    already listens: requests wait), ``started`` once the app has started and answered a request
    at ``url`` (after the startup log lines)."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        url: str,
        prepare: Prepare | None = None,
        started: Started | None = None,
    ) -> None:
        super().__init__(config)
        self.url, self.prepare, self.on_started = url, prepare, started
        self.announcing: asyncio.Task[None] | None = None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if self.prepare is not None:
            await self.prepare()
        await super().startup(sockets)
        if self.started and not self.should_exit and self.on_started is not None:
            # The server answers once this returns to the loop: ask it from a task.
            self.announcing = asyncio.create_task(self._announce(self.on_started))

    async def _announce(self, started: Started) -> None:
        if await answers(self.url) and not self.should_exit:
            started()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGTERM:
            # uvicorn notes the signal to raise it again once it has shut down, so that the process
            # dies by it: status 143, which `make run` and supervisors report as a failure. A stop
            # that was asked for and went cleanly is a success (SIGINT keeps uvicorn's way).
            self.should_exit = True
            return
        super().handle_exit(sig, frame)


class Supervisor(Multiprocess):
    """Several worker processes (uvicorn's supervisor, which exits 0 on SIGTERM); ``started`` runs
    once every worker has started its app and the server has answered a request at ``url``."""

    def __init__(
        self,
        config: uvicorn.Config,
        sockets: list[socket.socket],
        *,
        url: str,
        started: Started | None = None,
    ) -> None:
        super().__init__(config, sockets)
        self.url, self.on_started = url, started

    def init_processes(self) -> None:
        super().init_processes()
        if self.on_started is None:
            return
        timeout = self.config.timeout_worker_healthcheck
        if all(p.wait_until_ready(timeout, self.should_exit) for p in self.processes) and (
            asyncio.run(answers(self.url))
        ):
            self.on_started()
