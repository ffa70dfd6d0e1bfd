"""``make bench``: every benchmark in turn, each in its own interpreter (one benchmark's imports,
caches and event loop cannot change another's figures), on to the end even when one fails;
exits 1 naming the ones that failed.

``python -m benchmarks --check``: every benchmark's ``check()`` instead (its set-up and first
requests at a small size, the app and its baseline compared), in its own interpreter too;
tests/benchmarks/test_checks.py runs them. ``python -m benchmarks [--check] NAME...``: only those.
"""

from __future__ import annotations

import subprocess
import sys
import time

BENCHMARKS = (
    "projects",
    "issues",
    "bulk",
    "floor",
    "cpu",
    "instructions",
    "access",
    "files_transfer",
    "sse_fanout",
    "drawing_ai_sandbox",
    "conditional",
    "webhooks",
    "changes",
    "soak",
    "lists",
    "scale",
    "scim",
    "digests",
    "startup",
    "pages",
)


def run(names: list[str], checking: bool) -> list[str]:
    """Each benchmark's ``main()`` (or ``check()``) in a new interpreter; the names that failed."""
    failed = []
    function = "check" if checking else "main"
    for name in names:
        print(f"\n== benchmarks.{name}{' (check)' if checking else ''}", flush=True)
        started = time.monotonic()
        code = f"from benchmarks.{name} import {function}; {function}()"
        done = subprocess.run([sys.executable, "-c", code], check=False)
        took = time.monotonic() - started
        if done.returncode != 0:
            failed.append(name)
            print(f"== benchmarks.{name}: FAILED (exit {done.returncode}, {took:.0f} s)")
        else:
            print(f"== benchmarks.{name}: done in {took:.0f} s", flush=True)
    return failed


def main(argv: list[str]) -> int:
    checking = "--check" in argv
    names = [a for a in argv if a != "--check"] or list(BENCHMARKS)
    unknown = sorted(set(names) - set(BENCHMARKS))
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        return 2
    failed = run(names, checking)
    print(f"\n{len(names) - len(failed)} of {len(names)} benchmarks ran to the end", end="")
    print(f"; failed: {', '.join(failed)}" if failed else "", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
