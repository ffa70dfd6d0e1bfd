"""A job for the tests: appends its number and the process id to a file (``--include`` it in
``plumbline worker``)."""

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
