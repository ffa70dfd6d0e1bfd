"""A provider's lookup, ``GET /scim/v2/{w}/Users?filter=userName eq "..."``, in a workspace of
1,000 and of BENCH_SCIM_USERS (20,000) SCIM Users: the median time per lookup in process on
PostgreSQL, and the ratio of the two (a lookup reads one row through the index, so about 1.0;
before it read every User, and the ratio followed the number of Users). ``python -m
benchmarks.scim``."""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import time

import httpx
import orjson
from sqlalchemy import text

from benchmarks.harness import check_main, fresh_database, seed

USERS = int(os.environ.get("BENCH_SCIM_USERS", "20000"))
LOOKUPS = 60

INSERT_USERS = """
INSERT INTO scim_users (id, workspace_id, user_name, user_name_key, active, attributes,
                        created_at, updated_at)
SELECT 'u' || lpad(g::text, 8, '0'), :w, 'Person' || g || '@example.com',
       'person' || g || '@example.com', false, '{}', now(), now()
FROM generate_series(1, :n) g
"""


async def _lookups(count: int, seeded: dict[str, str]) -> float:
    """Median seconds per lookup with ``count`` Users in the workspace."""
    from plumbline.app import create_app
    from plumbline.db import database
    from plumbline.kit import crypto

    workspace = seeded["workspaceId"]
    token = f"pscim_{crypto.random_token()}"
    async with database.engine.begin() as conn:
        await conn.execute(text("UPDATE workspaces SET plan = 'enterprise'"))
        await conn.execute(
            text(
                "INSERT INTO scim_tokens (id, workspace_id, token_hash, created_at) "
                "VALUES ('benchmark', :w, :h, now())"
            ),
            {"w": workspace, "h": crypto.sha256_hex(token)},
        )
        await conn.execute(text(INSERT_USERS), {"w": workspace, "n": count})
        await conn.execute(text("ANALYZE scim_users"))
    app = create_app()
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {token}"}
    times = []
    client = httpx.AsyncClient(transport=transport, base_url="http://bench")
    async with app.router.lifespan_context(app), client:
        for n in range(LOOKUPS + 10):
            person = 1 + n * (count // (LOOKUPS + 10))
            started = time.perf_counter()
            answer = await client.get(
                f"/scim/v2/{workspace}/Users",
                params={"filter": f'userName eq "PERSON{person}@EXAMPLE.COM"'},
                headers=headers,
            )
            if n >= 10:  # the first ones warm up
                times.append(time.perf_counter() - started)
            assert answer.status_code == 200, answer.text
            assert answer.json()["totalResults"] == 1, answer.text
    return statistics.median(times)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        seeded = orjson.loads(os.environ["BENCH_SEEDED"])
        print(asyncio.run(_lookups(int(sys.argv[2]), seeded)), flush=True)
        return
    print(f"SCIM userName lookups, {LOOKUPS} each, median in process on PostgreSQL")
    medians = {}
    for count in (1000, USERS):
        with fresh_database("scim") as env:
            seeded = seed(env, "projects", 1)
            env = {**env, "BENCH_SEEDED": seeded}
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.scim", "--one", str(count)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            medians[count] = float(done.stdout.strip().splitlines()[-1])
        print(f"  {count:>7,} Users: {medians[count] * 1000:6.1f} ms per lookup", flush=True)
    print(f"  ratio {USERS:,} / 1,000 Users: {medians[USERS] / medians[1000]:.2f} (flat: about 1)")


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_SCIM_USERS": "100"})


if __name__ == "__main__":
    main()
