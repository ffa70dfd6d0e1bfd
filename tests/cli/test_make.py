"""The Makefile: `make run` installs and runs the server alone, `make test` adds the test tools,
and neither undoes the other."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _commands(target: str) -> list[str]:
    """The uv commands `make <target>` would run (a dry run that ignores the stamps)."""
    result = subprocess.run(
        ["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return [line for line in result.stdout.splitlines() if " sync " in line or " run " in line]


def _uv(*args: str) -> str:
    uv = shutil.which("uv") or str(ROOT / ".uv" / "bin" / "uv")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_PYTHON": sys.executable}
    result = subprocess.run(
        [uv, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return result.stdout + result.stderr


def test_run_syncs_and_runs_without_the_test_tools() -> None:
    run = _commands("run")
    assert len(run) == 4 and all("--no-dev" in line for line in run)
    assert "--inexact" in run[0]
    for target in ("test", "lint", "typecheck"):
        commands = _commands(target)
        assert commands and not [line for line in commands if "--no-dev" in line]
    server = _uv("export", "--frozen", "--no-dev", "--no-hashes")
    everything = _uv("export", "--frozen", "--no-hashes")
    assert "\nuvicorn==" in server and "\npytest==" in everything
    assert "pytest==" not in server and "mypy==" not in server


def test_the_server_install_leaves_the_test_tools_in_place() -> None:
    # Against this very environment, which `make test` set up with the test tools.
    assert "Would make no changes" in _uv("sync", "--frozen", "--no-dev", "--inexact", "--dry-run")
