"""The commands that do not serve import only what they use (issue 40, item 7): neither the app
nor its routes, schemas or database layer load for `plumbline --help`, `plumbline demo --help`
or `plumbline db --help`, and `import plumbline.app` alone does not load the routers (its
``create_app`` does). Each case runs in a fresh interpreter, which then lists sys.modules."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

# Modules whose import means the app (or a large part of it) was loaded.
HEAVY = (
    "plumbline.api",
    "plumbline.wiring",
    "plumbline.db",
    "plumbline.models",
    "plumbline.issue.endpoints",
    "plumbline.scim.endpoints",
    "plumbline.pages",
    "fastapi.routing",
    "sqlalchemy.orm",
    "fpdf",
    "scim2_models",
)

RUN_CLI = """
import sys
sys.argv = ["plumbline", *{args!r}]
from plumbline.cli import app
try:
    app()
except SystemExit:
    pass
"""
REPORT = "\nimport orjson; sys.stderr.write(orjson.dumps(sorted(sys.modules)).decode())"


def loaded(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}{REPORT}"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return set(orjson.loads(done.stderr.strip().splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in HEAVY or m == "plumbline.app")


@pytest.mark.parametrize("args", [["--help"], ["demo", "--help"], ["db", "--help"]])
def test_a_command_that_does_not_serve_loads_no_app(args: list[str]) -> None:
    modules = loaded(RUN_CLI.format(args=args))
    assert "plumbline.cli" in modules and "typer" in modules  # the command did run
    assert heavy(modules) == []


def test_importing_the_app_module_loads_no_routes() -> None:
    modules = loaded("import plumbline.app")
    assert "plumbline.app" in modules
    assert [m for m in heavy(modules) if m != "plumbline.app"] == []


def test_create_app_loads_the_routes() -> None:
    """The check above can fail: the same listing after ``create_app()`` holds the routes."""
    modules = loaded("from plumbline.app import create_app\ncreate_app()")
    assert {"plumbline.api", "plumbline.issue.endpoints", "fastapi.routing"} <= modules
