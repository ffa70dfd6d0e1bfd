"""Every benchmark's ``check()`` (``python -m benchmarks --check NAME``): its set-up and first
requests at a small size, the app's answers compared with its baseline's, so that a benchmark
cannot rot unnoticed when the routes change (issue 40, item 13).

The benchmarks run on PostgreSQL (a database each, made and dropped by ``benchmarks.harness``)
and start servers, about half a minute to a few minutes each: these tests run only in the
PostgreSQL pass of .ci/run (``PLUMBLINE_TEST_DATABASE_URL`` set), on that server. They need
neither wrk nor valgrind: a check sends one request where a benchmark runs wrk, and runs the
callgrind side without valgrind.

Two test files share the list (``test_checks_even.py``, ``test_checks_odd.py``): the suite
gives each file to one worker (``--dist loadfile``), so the halves run side by side.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATABASE = os.environ.get("PLUMBLINE_TEST_DATABASE_URL", "")

on_postgresql = pytest.mark.skipif(
    not DATABASE.startswith("postgresql"),
    reason="the benchmarks' checks run on PostgreSQL (PLUMBLINE_TEST_DATABASE_URL)",
)


def _admin_dsn() -> str:
    """The test server's ``postgres`` database, where the benchmarks make theirs."""
    url = urlsplit(DATABASE)
    return f"postgresql://{url.netloc}/postgres"


def run_check(name: str) -> None:
    """``python -m benchmarks --check NAME``, which must end well."""
    env = {**os.environ, "BENCH_PG_ADMIN": _admin_dsn(), "BENCH_START_SECONDS": "300"}
    for leaked in ("PLUMBLINE_DATABASE_URL", "PLUMBLINE_TEST_DATABASE_URL"):
        env.pop(leaked, None)
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--check", name],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "1 of 1 benchmarks ran to the end" in done.stdout
