"""Several Plumbline processes on one PostgreSQL, one Redis, one S3 stand-in and one SMTP sink,
started by a test: two ``plumbline serve`` and two ``plumbline worker``, each in a process group
of its own so that a test can ``kill -9`` one and start it again.

PostgreSQL only: the cluster's database is ``<the worker's database>_<name>``, created fresh,
migrated with ``plumbline db upgrade`` and dropped at the end."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import boto3
import httpx
from sqlalchemy import make_url

from plumbline.kit.ids import new_id
from tests.factories import SmtpSink
from tests.live import STARTUP, free_port

CRON = {"x-service-cron-secret": "test-cron-secret"}
ORIGIN = "http://127.0.0.1:8000"
# A bound on any wait for another process (a row, a lock, a message): never an assertion on
# time, only how long a test waits before failing with what it was waiting for.
WAIT = 90.0


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT) -> Any:
    """Poll ``check`` until it answers something truthy; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting ({timeout:.0f} s) for {what}")
        time.sleep(0.05)


async def until(what: str, check: Callable[[], Any], timeout: float = WAIT) -> Any:
    """``wait_for`` for async checks (``check`` returns an awaitable)."""
    deadline = time.monotonic() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting ({timeout:.0f} s) for {what}")
        await asyncio.sleep(0.05)


class Process:
    """One child process in a group of its own, its output in ``log``."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            out.write(f"--- start {self.name}\n".encode())
        self.popen = subprocess.Popen(
            self.args,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: killpg reaches what it starts
        )

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def signal(self, sig: int) -> None:
        assert self.popen is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, sig)

    def kill(self) -> None:
        """``kill -9`` of the whole group, then reaped."""
        if self.popen is None:
            return
        self.signal(signal.SIGKILL)
        self.popen.wait()

    def stop(self) -> None:
        if not self.alive:
            return
        assert self.popen is not None
        self.signal(signal.SIGTERM)
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


class Server(Process):
    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [sys.executable, "-m", "plumbline.cli", "serve", "--port", str(self.port)]
        super().__init__(name, args, env, log)

    def ready(self) -> bool:
        if not self.alive:
            raise RuntimeError(f"server {self.name} exited:\n{self.tail()}")
        try:
            return httpx.get(f"{self.url}/api/v1/health", timeout=2).status_code == 200
        except httpx.TransportError:
            return False


class Worker(Process):
    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        super().__init__(name, [sys.executable, "-m", "plumbline.cli", "worker"], env, log)
        self._starts = 0

    def start(self) -> None:
        self._starts += 1
        super().start()

    def ready(self) -> bool:
        if not self.alive:
            raise RuntimeError(f"worker {self.name} exited:\n{self.tail()}")
        return self.tail(200).count("Plumbline worker running jobs") >= self._starts


class Sink(SmtpSink):
    """The SMTP sink, which can hold the first delivery to one address (``hold(to)``): the
    sender's DATA waits for an answer until ``release`` is set, then gets a 451 (by then the
    test has killed it) and the message is not kept, as a real server would not keep it."""

    def __init__(self) -> None:
        super().__init__()
        self.holding: str | None = None
        self.held = threading.Event()
        self.release = threading.Event()
        self.held_peer: tuple[str, int] | None = None

    def hold(self, address: str) -> None:
        self.holding, self.held_peer = address, None
        self.held.clear()
        self.release.clear()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.holding is not None and self.holding in envelope.rcpt_tos:
            self.holding, self.held_peer = None, tuple(session.peer)
            self.held.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "451 4.3.0 Held by the test"
        return await super().handle_DATA(server, session, envelope)


def pid_with_local_port(port: int, pids: list[int]) -> int | None:
    """Which of ``pids`` owns the loopback TCP socket bound to local ``port`` (from /proc)."""
    inodes = {
        fields[9]
        for fields in (line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:])
        if int(fields[1].rsplit(":", 1)[1], 16) == port
    }
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:[") and target[8:-1] in inodes:
                        return pid
    return None


class Cluster:
    """``servers['a']``, ``servers['b']``, ``workers[0..1]``, the ``smtp`` sink, the database
    (``connect()``, ``rows()``) and the seeded ``worlds``."""

    def __init__(self, name: str, base_url: str, moto_url: str, redis_url: str) -> None:
        server = make_url(base_url)
        self.database = f"{server.database}_{name}"
        self.admin_dsn = _dsn(base_url)
        self.dsn = _dsn(server.set(database=self.database).render_as_string(False))
        self.dir = Path(tempfile.mkdtemp(prefix=f"plumbline-{name}-"))
        self.smtp = Sink()
        self.bucket = f"cluster-{new_id()[-12:].lower()}"
        self.moto_url = moto_url
        self.env = {
            **os.environ,
            "PLUMBLINE_DATABASE_URL": server.set(database=self.database).render_as_string(False),
            "PLUMBLINE_VAR_DIR": str(self.dir / "var"),
            "PLUMBLINE_OUTBOX_DIR": str(self.dir / "outbox"),
            "PLUMBLINE_JOBS": "worker",
            "PLUMBLINE_SCHEDULER": "off",
            "PLUMBLINE_REDIS_URL": redis_url,
            "PLUMBLINE_PUBSUB_PREFIX": f"cluster-{new_id()}",  # keys and channels of its own
            "PLUMBLINE_STORAGE": "s3",
            "PLUMBLINE_S3_ENDPOINT_URL": moto_url,
            "PLUMBLINE_S3_BUCKET": self.bucket,
            "PLUMBLINE_S3_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "PLUMBLINE_SMTP_URL": self.smtp.url,
            "PLUMBLINE_LOG_LEVEL": "WARNING",
        }
        log = self.dir / "cluster.log"
        self.log = log
        self.servers = {n: Server(n, self.env, log) for n in ("a", "b")}
        self.workers = [Worker(f"worker{i}", self.env, log) for i in (1, 2)]
        self.worlds: list[dict[str, Any]] = []

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, worlds: int) -> None:
        self._admin(
            f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)',
            f'CREATE DATABASE "{self.database}"',
        )
        boto3.client(
            "s3",
            endpoint_url=self.moto_url,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        ).create_bucket(Bucket=self.bucket)
        self.smtp.__enter__()
        self._cli("db", "upgrade")
        seeding = subprocess.Popen(
            [sys.executable, "-m", "tests.scale.seed", str(worlds)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for process in self.processes:  # importing the app while the seed runs
            process.start()
        out, err = seeding.communicate()
        assert seeding.returncode == 0, err.decode()
        self.worlds = list(json.loads(out))
        self.wait_ready()

    def take(self, count: int) -> list[dict[str, Any]]:
        """``count`` seeded worlds no other test module was given."""
        assert len(self.worlds) >= count, "seed more worlds (POOL in tests/scale/conftest.py)"
        taken, self.worlds = self.worlds[:count], self.worlds[count:]
        return taken

    @property
    def processes(self) -> list[Process]:
        return [*self.servers.values(), *self.workers]

    def wait_ready(self) -> None:
        for process in self.processes:
            wait_for(f"{process.name} to be ready", process.ready, STARTUP)  # type: ignore[attr-defined]

    def ensure(self) -> None:
        """Every process running again (after a test killed one)."""
        for process in self.processes:
            if not process.alive:
                process.start()
        self.wait_ready()

    def close(self) -> None:
        for process in self.processes:
            with contextlib.suppress(Exception):
                process.stop()
        with contextlib.suppress(Exception):
            self.smtp.__exit__(None, None, None)
        with contextlib.suppress(Exception):
            self._admin(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')

    def _admin(self, *statements: str) -> None:
        async def run() -> None:
            conn = await asyncpg.connect(self.admin_dsn)
            try:
                for statement in statements:
                    await conn.execute(statement)
            finally:
                await conn.close()

        asyncio.run(run())

    def _cli(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "-m", "plumbline.cli", *args],
            env=self.env,
            check=True,
            capture_output=True,
        )

    # -- the database ----------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[asyncpg.Connection]:
        conn = await asyncpg.connect(self.dsn)
        try:
            yield conn
        finally:
            await conn.close()

    async def rows(self, query: str, *args: Any) -> list[asyncpg.Record]:
        async with self.connect() as conn:
            return list(await conn.fetch(query, *args))

    async def value(self, query: str, *args: Any) -> Any:
        async with self.connect() as conn:
            return await conn.fetchval(query, *args)

    async def blocked_backend(self, statement: str) -> int:
        """The pid of the cluster's backend whose statement (``statement``: an SQL ``LIKE``
        pattern) waits on a lock the test holds, once there is one."""

        async def check() -> int | None:
            found = await self.value(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND wait_event_type ="
                " 'Lock' AND state = 'active' AND query ILIKE $2 ORDER BY query_start LIMIT 1",
                self.database,
                statement,
            )
            return int(found) if found else None

        return int(await until(f"a server statement like {statement!r} blocked on a lock", check))

    async def backend_gone(self, pid: int) -> None:
        """Wait until PostgreSQL ended the killed server's backend (its transaction rolled
        back: nobody will ever send its COMMIT)."""

        async def check() -> bool:
            return not await self.value("SELECT 1 FROM pg_stat_activity WHERE pid = $1", pid)

        await until(f"backend {pid} to end after its client was killed", check)

    # -- mail ------------------------------------------------------------------------------
    def message_ids(self) -> list[str]:
        return [_message_id(raw) for _, raw in list(self.smtp.messages)]

    def subjects(self) -> list[str]:
        return [
            str(email.message_from_bytes(raw, policy=email.policy.default)["Subject"])
            for _, raw in list(self.smtp.messages)
        ]

    def subjects_to_world(self, world: dict[str, Any]) -> list[str]:
        """The subjects of the messages to the seeded people of ``world``."""
        people = ("owner", "admin", "manager", "member")
        return [s for person in people for s in self.subjects_to(world[person]["email"])]

    def subjects_to(self, address: str) -> list[str]:
        return [str(m["Subject"]) for m in self.smtp.mails(address)]


def _dsn(url: str) -> str:
    """The plain ``postgresql://`` DSN asyncpg takes, from the SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _message_id(raw: bytes) -> str:
    for line in raw.split(b"\r\n\r\n", 1)[0].replace(b"\r\n", b"\n").split(b"\n"):
        if line.lower().startswith(b"message-id:"):
            return line.split(b":", 1)[1].strip().decode()
    raise AssertionError("a message without a Message-ID")


@contextlib.contextmanager
def cluster(name: str, moto_url: str, redis_url: str, worlds: int) -> Iterator[Cluster]:
    running = Cluster(name, os.environ["PLUMBLINE_DATABASE_URL"], moto_url, redis_url)
    try:
        running.start(worlds)
        yield running
    except BaseException:
        print(f"cluster log ({running.log}):\n{running.processes[0].tail(80)}")
        raise
    finally:
        running.close()


class Http:
    """An ``httpx.AsyncClient`` per server, with the trusted Origin."""

    def __init__(self, running: Cluster) -> None:
        self.clients = {
            name: httpx.AsyncClient(base_url=server.url, headers={"Origin": ORIGIN}, timeout=60)
            for name, server in running.servers.items()
        }

    def __getitem__(self, name: str) -> httpx.AsyncClient:
        return self.clients[name]

    async def aclose(self) -> None:
        for client in self.clients.values():
            await client.aclose()
