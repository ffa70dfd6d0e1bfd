"""The three O&M digests over many workspaces on PostgreSQL: run time and SQL statements.

``python -m benchmarks.digests`` seeds ``BENCH_DIGEST_WORKSPACES`` (2,000) workspaces, each with
one project in operations mode, two managers, an asset, and N open work orders (10 days old),
N maintenance schedules (a third overdue, a third due within the week) and N/5 inspection
templates, for N = 10 and N = 50 (``BENCH_DIGEST_PER``), each in a fresh database; then runs each
digest once in process (e-mails queued as jobs, ``PLUMBLINE_JOBS=worker``) and prints how long it
took and how many statements it sent. The statements must not grow with N.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import timedelta
from typing import Any

import orjson

from benchmarks.harness import check_main, fresh_database

WORKSPACES = int(os.environ.get("BENCH_DIGEST_WORKSPACES", "2000"))
PER = [int(n) for n in os.environ.get("BENCH_DIGEST_PER", "10,50").split(",")]


async def _seed(workspaces: int, per: int) -> None:
    from sqlalchemy import insert

    from plumbline.db import database
    from plumbline.kit import clock
    from plumbline.kit.ids import new_id
    from plumbline.models import (
        Asset,
        InspectionTemplate,
        Issue,
        MaintenanceSchedule,
        Membership,
        Project,
        User,
        Workspace,
    )

    now = clock.now()
    rows: dict[Any, list[dict[str, Any]]] = {
        model: []
        for model in (
            Workspace,
            User,
            Membership,
            Project,
            Asset,
            MaintenanceSchedule,
            Issue,
            InspectionTemplate,
        )
    }
    stamps = {"created_at": now, "updated_at": now}
    for w in range(workspaces):
        ws, project, asset = new_id(), new_id(), new_id()
        rows[Workspace].append({"id": ws, "name": f"Co {w}", "slug": f"co-{w}", **stamps})
        managers = [new_id(), new_id()]
        for n, user in enumerate(managers):
            rows[User].append(
                {"id": user, "name": f"M{n} {w}", "email": f"m{n}.{w}@example.com",
                 "email_verified": True, **stamps}
            )  # fmt: skip
            role = "SUPER_ADMIN" if n == 0 else "MANAGER"
            rows[Membership].append(
                {"workspace_id": ws, "user_id": user, "role": role, "joined_at": now}
            )
        rows[Project].append(
            {"id": project, "workspace_id": ws, "name": f"Building {w}", "operations_mode": True,
             **stamps}
        )  # fmt: skip
        rows[Asset].append(
            {"id": asset, "project_id": project, "workspace_id": ws, "tag": "AHU-1",
             "name": "Air handler", "status": "ACTIVE", "meters": [], **stamps}
        )  # fmt: skip
        for i in range(per):
            due = now + timedelta(days=(-3, 3, 30)[i % 3])
            rows[MaintenanceSchedule].append(
                {"project_id": project, "workspace_id": ws, "asset_id": asset,
                 "title": f"Task {i}", "frequency": "MONTHLY", "basis": "FIXED",
                 "anchor_day": due.day, "next_due_at": due, "assignee_id": managers[1],
                 "priority": "MEDIUM", "is_active": True, "checklist": [], **stamps}
            )  # fmt: skip
            opened = now - timedelta(days=10 + i)
            rows[Issue].append(
                {"project_id": project, "workspace_id": ws, "number": i + 1,
                 "title": f"Work order {i}", "status": "OPEN", "priority": "MEDIUM",
                 "issue_kind": "WORK_ORDER", "work_order_type": "CORRECTIVE", "checklist": [],
                 "created_at": opened, "updated_at": opened, "status_changed_at": opened}
            )  # fmt: skip
        for i in range(max(per // 5, 1)):
            due = now + timedelta(days=(-2, 4)[i % 2])
            rows[InspectionTemplate].append(
                {"project_id": project, "workspace_id": ws, "name": f"Walk {i}",
                 "frequency": "MONTHLY", "anchor_day": due.day, "next_due_at": due, "items": [],
                 **stamps}
            )  # fmt: skip
    async with database.sessionmaker() as db:
        for model, values in rows.items():
            for start in range(0, len(values), 5000):
                await db.execute(insert(model), values[start : start + 5000])
        await db.commit()


async def _measure(workspaces: int, per: int) -> list[dict[str, Any]]:
    from sqlalchemy import event

    from plumbline.db import database
    from plumbline.jobs import daily_tasks, run_now

    await _seed(workspaces, per)
    results = []
    digests = {k: name for k, name in daily_tasks().items() if name.startswith("digests.")}
    for kind, name in digests.items():
        statements: list[str] = []

        def count(*args: Any, box: list[str] = statements) -> None:
            box.append(args[2])

        event.listen(database.engine.sync_engine, "before_cursor_execute", count)
        started = time.perf_counter()
        counts = await run_now(name)
        seconds = time.perf_counter() - started
        event.remove(database.engine.sync_engine, "before_cursor_execute", count)
        results.append(
            {
                "digest": kind,
                "seconds": round(seconds, 2),
                "statements": len(
                    [
                        s
                        for s in statements
                        if not s.lstrip().upper().startswith(("BEGIN", "COMMIT"))
                    ]
                ),
                "workspaces": counts["workspacesNotified"],
                "emailed": counts["membersEmailed"],
            }
        )
    await database.dispose()
    return results


def main() -> None:
    if sys.argv[1:2] == ["run"]:
        per = int(sys.argv[2])
        sys.stdout.write(orjson.dumps(asyncio.run(_measure(WORKSPACES, per))).decode())
        return
    print(f"O&M digests over {WORKSPACES} workspaces (PostgreSQL, e-mails queued as jobs)")
    print(f"{'per workspace':>14} {'digest':<22} {'seconds':>8} {'statements':>10} "
          f"{'workspaces':>10} {'e-mails':>8}")  # fmt: skip
    for per in PER:
        with fresh_database(f"digests{per}") as env:
            env = {**env, "PLUMBLINE_JOBS": "worker"}
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.digests", "run", str(per)],
                env=env,
                capture_output=True,
                check=True,
            ).stdout
        for row in orjson.loads(out):
            print(
                f"{per:>14} {row['digest']:<22} {row['seconds']:>8} {row['statements']:>10} "
                f"{row['workspaces']:>10} {row['emailed']:>8}"
            )


def check() -> None:
    """``main()`` at a small size, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_DIGEST_WORKSPACES": "3", "BENCH_DIGEST_PER": "2"})


if __name__ == "__main__":
    main()
