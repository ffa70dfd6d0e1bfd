"""Benchmark harness: a fresh PostgreSQL database, server processes, wrk, and ratio reports.

Every figure is measured in the same run as its baseline, on this machine, so the ratio is
what matters; absolute requests/s depend on the machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

PG_ADMIN = os.environ.get("BENCH_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres")
DURATION = int(os.environ.get("BENCH_SECONDS", "10"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "32"))
# How long a server may take to answer its first request: over 30 s on a busy 2-core machine.
START_SECONDS = int(os.environ.get("BENCH_START_SECONDS", "120"))
# A check (``python -m benchmarks --check``): each benchmark's set-up and first requests at a
# small size, its comparisons and assertions included; ``wrk`` sends one request instead of a
# run and ``benchmarks.instructions`` counts nothing (no valgrind).
CHECKING = os.environ.get("BENCH_CHECK") == "1"


def check_main(module: str, sizes: dict[str, str], *args: str) -> None:
    """``python -m module`` as a check: in its own interpreter, with ``BENCH_CHECK=1`` and the
    small ``sizes`` (environment settings the module reads when imported)."""
    env = {**os.environ, **sizes, "BENCH_CHECK": "1"}
    subprocess.run([sys.executable, "-m", module, *args], env=env, check=True)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _psql(sql: str) -> None:
    subprocess.run(["psql", PG_ADMIN, "-q", "-c", sql], check=True)


@contextmanager
def fresh_database(name: str) -> Iterator[dict[str, str]]:
    """A new PostgreSQL database with the migrations applied; yields the server environment."""
    db = f"plumbline_bench_{name}_{os.getpid()}"
    _psql(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
    _psql(f"CREATE DATABASE {db}")
    var = Path(tempfile.mkdtemp(prefix="plumbline-bench-"))
    env = {
        **os.environ,
        "PLUMBLINE_DATABASE_URL": f"postgresql+asyncpg://postgres@127.0.0.1:5432/{db}",
        "PLUMBLINE_VAR_DIR": str(var),
        "PLUMBLINE_STORAGE_DIR": str(var / "objects"),
        "PLUMBLINE_OUTBOX_DIR": str(var / "outbox"),
        "PLUMBLINE_SECRET_KEY": "benchmark-secret",
        "PLUMBLINE_LOG_LEVEL": "WARNING",
        "PLUMBLINE_RATE_LIMITS": "false",
        "BENCH_DSN": f"postgresql://postgres@127.0.0.1:5432/{db}",
    }
    # In-process rate limits, no SMTP, no plan gates: the same conditions for both servers.
    for unset in ("PLUMBLINE_REDIS_URL", "PLUMBLINE_SMTP_URL", "PLUMBLINE_BILLING"):
        env.pop(unset, None)
    subprocess.run([sys.executable, "-m", "plumbline.cli", "db", "upgrade"], env=env, check=True)
    try:
        yield env
    finally:
        _psql(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        shutil.rmtree(var, ignore_errors=True)


def seed(env: dict[str, str], kind: str, count: int) -> str:
    """``benchmarks.seed`` run against the database of ``env``: its JSON (ids, credentials)."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.seed", kind, str(count)],
        env=env,
        capture_output=True,
        check=True,
    ).stdout.decode()


@contextmanager
def serve(app: str, env: dict[str, str], *, factory: bool) -> Iterator[str]:
    """``uvicorn <app>`` with one worker on a free port; yields its base URL."""
    port = free_port()
    args = [sys.executable, "-m", "uvicorn", app, "--host", "127.0.0.1", "--port", str(port)]
    args += ["--log-level", "warning", "--no-access-log", "--workers", "1"]
    if factory:
        args.append("--factory")
    process = subprocess.Popen(args, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{app} did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def difference(app: Any, baseline: Any, where: str = "") -> str | None:
    """Where two JSON values first differ (a path and both values), or None when equal."""
    if isinstance(app, dict) and isinstance(baseline, dict):
        for key in sorted(app.keys() | baseline.keys()):
            if key not in app or key not in baseline:
                side = "the baseline" if key not in baseline else "the app"
                return f"{where}.{key}: missing from {side}"
            found = difference(app[key], baseline[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(app, list | tuple) and isinstance(baseline, list | tuple):
        if len(app) != len(baseline):
            return f"{where}: {len(app)} items from the app, {len(baseline)} from the baseline"
        for i, (a, b) in enumerate(zip(app, baseline, strict=True)):
            found = difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if app == baseline else f"{where}: app {app!r}, baseline {baseline!r}"


def same(what: str, app: Any, baseline: Any) -> None:
    """Fails, naming the first difference, unless the app and its baseline answered alike."""
    found = difference(app, baseline)
    if found is not None:
        raise AssertionError(f"{what}: the app and the baseline differ at {found}")


@dataclass
class Result:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int
    timeouts: int = 0


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    url: str,
    headers: dict[str, str],
    *,
    method: str = "GET",
    body: str | None = None,
    connections: int = CONNECTIONS,
    seconds: int = DURATION,
) -> Result:
    """Drive ``url`` with wrk for BENCH_SECONDS over BENCH_CONNECTIONS connections (unless
    given); when checking, one request that must answer 2xx."""
    if CHECKING:
        return _one_request(url, headers, method, body)
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk")
    lines = [f'wrk.method = "{method}"']
    lines += [f'wrk.headers["{k}"] = "{v}"' for k, v in headers.items()]
    if body is not None:
        lines.append(f"wrk.body = [[{body}]]")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write("\n".join(lines) + "\n")
    args = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s", "--latency"]
    try:
        out = subprocess.run(
            [*args, "-s", script.name, url],
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 60,
        ).stdout
    finally:
        os.unlink(script.name)

    def find(pattern: str) -> re.Match[str]:
        match = re.search(pattern, out)
        if match is None:
            raise RuntimeError(f"unexpected wrk output:\n{out}")
        return match

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    timeouts = re.search(r"Socket errors: .*timeout (\d+)", out)
    return Result(
        float(find(r"Requests/sec:\s+([\d.]+)").group(1)),
        _ms(*find(r"50%\s+([\d.]+)(us|ms|s)").groups()),
        _ms(*find(r"99%\s+([\d.]+)(us|ms|s)").groups()),
        int(errors.group(1)) if errors else 0,
        int(timeouts.group(1)) if timeouts else 0,
    )


def _one_request(url: str, headers: dict[str, str], method: str, body: str | None) -> Result:
    started = time.perf_counter()
    answer = httpx.request(method, url, headers=headers, content=body, timeout=120)
    assert answer.is_success, f"{method} {url}: {answer.status_code} {answer.text[:300]}"
    ms = (time.perf_counter() - started) * 1000
    return Result(1000 / ms, ms, ms, 0)


def report(
    title: str, app: Result, baseline: Result, target: float | None = None, name: str = "plumbline"
) -> str:
    ratio = app.requests_per_second / baseline.requests_per_second
    verdict = (
        "" if target is None else (" (meets" if ratio >= target else " (misses") + f" {target})"
    )
    rows = "".join(
        f"  {label:18} {r.requests_per_second:>10.1f} {r.p50_ms:>9.2f} {r.p99_ms:>9.2f}"
        f" {r.errors:>8} {r.timeouts:>9}\n"
        for label, r in ((name, app), ("baseline", baseline))
    )
    text = (
        f"\n{title}\n"
        f"  {'':18} {'req/s':>10} {'p50 ms':>9} {'p99 ms':>9} {'non-2xx':>8} {'timeouts':>9}\n"
        f"{rows}"
        f"  ratio ({name} / baseline req/s): {ratio:.2f}{verdict}\n"
    )
    print(text, flush=True)
    return text


def describe(tool_note: str) -> None:
    """The conditions of the run, printed before its figures."""
    print(
        f"{tool_note}: wrk -t1 -c{CONNECTIONS} -d{DURATION}s on this machine "
        f"({os.cpu_count()} CPUs), PostgreSQL, one uvicorn worker per server, "
        "rate limits off (PLUMBLINE_RATE_LIMITS=false), log level WARNING",
        flush=True,
    )
