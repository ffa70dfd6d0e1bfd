"""A job for the tests: appends its number and the process id to a file (``--include`` it in
``plumbline worker``)."""

import asyncio
import os
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.jobs import Permanent, task
from plumbline.jobs.registry import Payload


@task("tests.record")
async def record(db: AsyncSession, payload: Payload) -> None:
    # One short append per run: O_APPEND keeps lines of concurrent processes whole.
    with Path(payload["path"]).open("a") as out:
        out.write(f"{payload['n']} {os.getpid()}\n")


@task("tests.fails")
async def fails(db: AsyncSession, payload: Payload) -> None:
    """Records its run, then fails: for now (retried), or for good when ``payload["never"]``."""
    await record(db, payload)
    if payload.get("never"):
        raise Permanent("This job can never succeed")
    raise RuntimeError("Try again later")


def runs(path: Path) -> list[tuple[int, int]]:
    if not path.exists():
        return []
    lines = path.read_text().splitlines()
    return [(int(n), int(pid)) for n, pid in (line.split() for line in lines)]


@task("tests.slow")
async def slow(db: AsyncSession, payload: Payload) -> None:
    """Notes that it started, then waits for the test's go-ahead (a file), then records its run:
    a job in hand while its worker is asked to stop."""
    started, go = Path(payload["path"] + ".started"), Path(payload["path"] + ".go")
    started.write_text(str(os.getpid()))
    for _ in range(2400):  # at most 2 minutes: a guard against a hang
        if go.exists():
            break
        await asyncio.sleep(0.05)
    await record(db, payload)
