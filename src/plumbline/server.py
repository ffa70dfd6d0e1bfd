"""The server `plumbline serve` runs: uvicorn, where a stop asked for with SIGTERM exits 0, with
work to do before the app starts (the demo's seeding) and once it serves (the demo's banner)."""

from __future__ import annotations

import signal
import socket
from collections.abc import Awaitable, Callable
from types import FrameType

import uvicorn
from uvicorn.supervisors import Multiprocess

Prepare = Callable[[], Awaitable[None]]
Started = Callable[[], None]


class Server(uvicorn.Server):
    """One process: ``prepare`` runs in the server's event loop before the app starts (the socket
    already listens: requests wait), ``started`` once the app has started and serves, after the
    startup log lines."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        prepare: Prepare | None = None,
        started: Started | None = None,
    ) -> None:
        super().__init__(config)
        self.prepare, self.on_started = prepare, started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        if self.prepare is not None:
            await self.prepare()
        await super().startup(sockets)
        if self.started and not self.should_exit and self.on_started is not None:
            self.on_started()

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
    once every worker has started its app."""

    def __init__(
        self,
        config: uvicorn.Config,
        sockets: list[socket.socket],
        *,
        started: Started | None = None,
    ) -> None:
        super().__init__(config, sockets)
        self.on_started = started

    def init_processes(self) -> None:
        super().init_processes()
        if self.on_started is None:
            return
        timeout = self.config.timeout_worker_healthcheck
        if all(p.wait_until_ready(timeout, self.should_exit) for p in self.processes):
            self.on_started()
