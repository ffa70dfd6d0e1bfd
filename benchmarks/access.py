"""What the ORM adds to a read, counted under callgrind: ``python -m benchmarks.access``.

The projects list's gap to its floor (``BENCH_INSTR_ROUTE=projects python -m
benchmarks.instructions``) is mostly the ORM on the read path. Each side here is one piece of a
GET request, done BENCH_ACCESS_ROUNDS (200) times after a warm-up, on the database of
``benchmarks.seed projects``:

- ``session``: a read session opened as a GET route opens it (``Database.read_sessionmaker``,
  its connection in AUTOCOMMIT) and committed, with no statement;
- ``connection``: the same on a Core connection (what ``benchmarks.floor`` does);
- ``orm``: ``session`` plus the workspace access statement (``SESSION_MEMBERSHIP``: the session,
  its user, the workspace and the membership) loaded as four entities, as every
  ``/workspaces/{w}/...`` route does;
- ``core``: ``session`` plus the same statement run on the session's connection (rows, no
  entities);
- ``snapshots``: ``session`` plus the statement read as the app reads it now
  (``plumbline.snapshots``: its rows made into snapshots of the four entities).

Needs PostgreSQL on 127.0.0.1:5432 and valgrind.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from benchmarks.harness import check_main, fresh_database, seed
from benchmarks.instructions import _instructions

ROUNDS = int(os.environ.get("BENCH_ACCESS_ROUNDS", "200"))
SIDES = ("session", "connection", "orm", "core", "snapshots")


def _side(which: str, seeded: dict[str, str]) -> Callable[[], Awaitable[Any]]:
    from plumbline.auth.session import session_params, session_token
    from plumbline.authz.workspace import SESSION_MEMBERSHIP
    from plumbline.db import AUTOCOMMIT, database
    from plumbline.kit import clock

    token = session_token(seeded["cookie"])
    assert token is not None

    def params() -> dict[str, Any]:
        return {**session_params(token, clock.now()), "workspace_id": seeded["workspaceId"]}

    async def connection() -> None:
        async with database.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")

    async def read(read_as: str | None) -> None:
        session = database.read_sessionmaker()
        await session.connection(execution_options=AUTOCOMMIT)
        statement = SESSION_MEMBERSHIP.statement
        if read_as == "entities":
            assert (await session.execute(statement, params())).first() is not None
        elif read_as == "rows":
            conn = await session.connection()
            assert (await conn.execute(statement, params())).first() is not None
        elif read_as == "snapshots":
            assert (await SESSION_MEMBERSHIP.first(session, params())) is not None
        await session.commit()

    sides: dict[str, Callable[[], Awaitable[Any]]] = {
        "session": lambda: read(None),
        "connection": connection,
        "orm": lambda: read("entities"),
        "core": lambda: read("rows"),
        "snapshots": lambda: read("snapshots"),
    }
    return sides[which]


async def _count(which: str, seeded: dict[str, str]) -> None:
    run = _side(which, seeded)
    for _ in range(50):
        await run()
    gc.collect()
    gc.freeze()
    print("ready", flush=True)
    sys.stdin.readline()
    for _ in range(ROUNDS):
        await run()
    print("done", flush=True)
    sys.stdin.readline()


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        import uvloop

        uvloop.run(_count(sys.argv[2], orjson.loads(os.environ["BENCH_SEEDED"])))
        return
    print(f"What the ORM adds to a read, k instructions each ({ROUNDS} rounds under callgrind)")
    with fresh_database("access") as env:
        seeded = seed(env, "projects", 1)
        counts = {
            which: _instructions(which, {**env, "BENCH_SEEDED": seeded}, "benchmarks.access")
            / ROUNDS
            for which in SIDES
        }
    for which in SIDES:
        print(f"  {which:12} {counts[which] / 1000:8,.0f} k", flush=True)
    print(
        f"  the read session over a Core connection: {(counts['session'] - counts['connection']) / 1000:+,.0f} k"
    )
    print(
        f"  the access statement as entities over rows: {(counts['orm'] - counts['core']) / 1000:+,.0f} k"
    )
    print(
        f"  the access statement as snapshots over rows: {(counts['snapshots'] - counts['core']) / 1000:+,.0f} k"
    )


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_ACCESS_ROUNDS": "2"})


if __name__ == "__main__":
    main()
