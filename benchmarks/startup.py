"""Start-up: how long before Plumbline does anything, against a bare interpreter and a bare server
measured in the same run (issue 40, item 7). ``python -m benchmarks.startup``.

- ``import plumbline.app`` (what every server worker, test worker and in-process benchmark
  imports first) against ``python -c pass``: wall time and CPU time (user + system) of the
  process, the best of ``BENCH_STARTUP_RUNS`` (5) each;
- ``plumbline demo --help``, a command that does not serve, against the same;
- ``plumbline serve`` on a fresh SQLite database: the time from the process's start to its
  first answer (``GET /api/v1/health``, asked every 50 ms) and to the line that says it listens
  (printed once it has answered), against ``uvicorn`` serving a bare ASGI app (``hello``
  below) from its start to its first answer.

The machine is shared: the CPU figures move less than the wall times. ``check()``: one run of
each, and the serve's line printed only once it answers.
"""

from __future__ import annotations

import os
import resource
import select
import subprocess
import sys
import time
from typing import Any

import httpx

from benchmarks.files_transfer import sqlite_database
from benchmarks.harness import START_SECONDS, check_main, free_port

RUNS = int(os.environ.get("BENCH_STARTUP_RUNS", "5"))
PROBE = "/api/v1/health"


async def hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The bare server's app: 200 and ``{}`` to every request."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"{}"})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``args`` (which must succeed)."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, _children_cpu() - cpu


def _best(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    runs = [_run(args, env) for _ in range(RUNS)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _first_answer(
    args: list[str], env: dict[str, str], port: int
) -> tuple[float, float, float | None]:
    """Seconds from starting ``args`` to its first HTTP answer on ``port``, the CPU seconds the
    process used by then, and the seconds to the stdout line that says it listens (None: none,
    as uvicorn alone prints nothing there); a request sent when that line shows must be answered
    at once. The process is stopped after."""
    url = f"http://127.0.0.1:{port}{PROBE}"
    started = time.perf_counter()
    process = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    answered: float | None = None
    cpu = 0.0
    listening: float | None = None
    announces = "plumbline.cli" in args
    try:
        while answered is None or (announces and listening is None):
            if time.perf_counter() - started > START_SECONDS or process.poll() is not None:
                raise RuntimeError(f"{args}: no answer, or no line saying it listens")
            ready, _, _ = select.select([process.stdout], [], [], 0.05)
            if ready and "listening on" in process.stdout.readline():
                listening = time.perf_counter() - started
                httpx.get(url, timeout=5)  # answered at once: a connection error fails here
            if answered is None:
                try:
                    httpx.get(url, timeout=5)
                    answered = time.perf_counter() - started
                    cpu = _process_cpu(process.pid)
                except httpx.TransportError:
                    pass
        return answered, cpu, listening
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()


def _figures() -> dict[str, Any]:
    python = sys.executable
    figures: dict[str, Any] = {"pass": _best([python, "-c", "pass"])}
    figures["import"] = _best([python, "-c", "import plumbline.app"])
    figures["cli"] = _best([python, "-m", "plumbline.cli", "demo", "--help"])
    with sqlite_database() as env:
        env = {**env, "PLUMBLINE_SCHEDULER": "off"}
        for name, args in (
            ("bare", [python, "-m", "uvicorn", "--log-level", "warning", "--port"]),
            ("serve", [python, "-m", "plumbline.cli", "serve", "--port"]),
        ):
            runs = []
            for _ in range(RUNS):
                port = free_port()
                tail = ["benchmarks.startup:hello"] if name == "bare" else []
                runs.append(_first_answer([*args, str(port), *tail], env, port))
            figures[name] = min(runs, key=lambda run: run[0])
    return figures


def _row(label: str, figure: tuple[float, float], base: tuple[float, float]) -> str:
    (wall, cpu), (base_wall, base_cpu) = figure, base
    return f"  {label:30} {wall:8.2f} {cpu:8.2f} {wall / base_wall:9.1f}x {cpu / max(base_cpu, 1e-3):8.1f}x"


def main() -> None:
    print(
        f"start-up: best of {RUNS} runs each, on this machine ({os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    figures = _figures()
    base = figures["pass"]
    print(f"\n  {'':30} {'wall s':>8} {'CPU s':>8} {'wall/base':>10} {'CPU/base':>9}")
    print(_row("python -c pass (baseline)", base, base))
    print(_row("import plumbline.app", figures["import"], base))
    print(_row("plumbline demo --help", figures["cli"], base))
    print(_row("uvicorn, a bare app: 1st answer", figures["bare"][:2], figures["bare"][:2]))
    print(_row("plumbline serve: 1st answer", figures["serve"][:2], figures["bare"][:2]))
    print(
        f"  (the serve's ratios against the bare server's; 'listening' printed at "
        f"{figures['serve'][2]:.2f} s)",
        flush=True,
    )


def check() -> None:
    """``main()`` with one run of each, its assertions included (``harness.check_main``)."""
    check_main(__name__, {"BENCH_STARTUP_RUNS": "1"})


if __name__ == "__main__":
    main()
