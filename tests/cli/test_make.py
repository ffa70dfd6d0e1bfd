"""The Makefile: `make run` installs and runs the server alone, `make test` adds the test tools
(and what the suite needs besides Python, scripts/test-deps), neither undoes the other, and the
installs are quiet."""

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
    # sync, migrate, serve (which seeds the demo itself)
    assert len(run) == 3 and all("--no-dev" in line for line in run)
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


def test_installs_are_quiet() -> None:
    for target in ("run", "test"):
        syncs = [line for line in _commands(target) if " sync " in line]
        assert syncs and all("--quiet" in line for line in syncs), syncs


def test_make_run_serves_on_the_host_and_port_given() -> None:
    result = subprocess.run(
        ["make", "-n", "run", "PORT=8731", "HOST=0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "plumbline serve --host 0.0.0.0 --port 8731 --demo" in result.stdout


def test_make_test_gets_what_the_suite_needs_first() -> None:
    commands = subprocess.run(
        ["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    deps = commands.index("scripts/test-deps")
    assert deps < next(i for i, line in enumerate(commands) if " pytest " in f"{line} ")
    assert "make test-deps" in (ROOT / ".ci" / "run").read_text()


def _test_deps(path: Path, chromium: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(ROOT / "scripts" / "test-deps")],
        env={"PATH": str(path), "CHROMIUM": str(chromium)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_test_deps_says_in_one_line_what_is_missing(tmp_path: Path) -> None:
    # a bare machine: no redis-server, no Chromium, no npm, and no apt-get to install them with
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "id").symlink_to(shutil.which("id") or "/usr/bin/id")
    result = _test_deps(bare, tmp_path / "chromium")
    assert result.returncode == 1 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "make test needs redis-server chromium npm" in line
    assert "apt-get install redis-server chromium npm" in line


def test_test_deps_is_silent_when_everything_is_there(tmp_path: Path) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    # (axe-core is in node_modules already: `make test` ran this script before the suite)
    for name in ("redis-server", "chromium", "npm"):
        (tools / name).write_text("#!/bin/sh\n")
        (tools / name).chmod(0o755)
    (tools / "id").symlink_to(shutil.which("id") or "/usr/bin/id")
    result = _test_deps(tools, tools / "chromium")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
