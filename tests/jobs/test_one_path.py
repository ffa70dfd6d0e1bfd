"""Scheduled work has one path: every periodic or deferred task is a job declared in its domain's
``tasks.py``, and the scheduler, the ``/internal`` routes and ``plumbline digests run`` all run
those same jobs through the job kit (a walk of the source with ``ast``, and the live lists)."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

from fastapi import routing
from fastapi.routing import APIRoute
from typer.testing import CliRunner

import plumbline
from plumbline.app import create_app
from plumbline.cli import app as cli
from plumbline.internal.service import HOUSEKEEPING
from plumbline.jobs import daily_tasks
from plumbline.jobs.registry import TASK_MODULES, TASKS, load_tasks

SRC = Path(plumbline.__file__).parent
# Where circles are not allowed (issue 25): the job kit and the packages scheduled work uses.
NO_CIRCLES = ("jobs", "digest", "internal", "mail", "proposal.tasks")
# The daily tasks of PRODUCT §13, by the name the CLI, the scheduler and the digest rows use.
DAILY = ["om-maintenance", "om-inspections", "om-work-order-aging", "proposal-reminders"]
# A task's engine, called by its tasks module alone (another caller would be a second path).
ENGINES = {("plumbline.digest.service", "run"): "digest/tasks.py"}


def modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        if "migrations" not in path.parts:
            parts = path.relative_to(SRC.parent).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path, ast.parse(path.read_text())


def _is_task_call(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Name) and func.id == "task") or (
        isinstance(func, ast.Attribute) and func.attr == "task"
    )


def declared_tasks() -> dict[str, list[str]]:
    """Each module's functions decorated with ``@task(...)``."""
    found: dict[str, list[str]] = {}
    for name, _, tree in modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                _is_task_call(d) for d in node.decorator_list
            ):
                found.setdefault(name, []).append(node.name)
    return found


def test_every_task_is_declared_in_a_tasks_module_the_kit_loads() -> None:
    declared = declared_tasks()
    assert declared and all(module.endswith(".tasks") for module in declared), declared
    assert sorted(declared) == sorted(TASK_MODULES)
    # ``task(...)`` is called as a decorator, nowhere else (no task assembled in a loop).
    for name, _, tree in modules():
        calls = [n for n in ast.walk(tree) if _is_task_call(n)]
        decorators = [
            d
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            for d in n.decorator_list
        ]
        assert all(call in decorators for call in calls), name


def _engine_uses(tree: ast.Module, module: str, function: str) -> bool:
    """Whether ``tree`` imports ``module.function``, or ``module`` and then uses ``.function``."""
    parent, _, leaf = module.rpartition(".")
    bound = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.module == module and any(a.name == function for a in node.names):
            return True
        if node.module == parent:
            bound |= {a.asname or a.name for a in node.names if a.name == leaf}
    return any(
        isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and (n.value.id, n.attr) in {(b, function) for b in bound}
        for n in ast.walk(tree)
    )


def test_no_module_reaches_a_task_but_through_the_job_kit() -> None:
    declared = declared_tasks()
    reached = []
    for name, path, tree in modules():
        for node in ast.walk(tree):  # a task function imported by name: a second way in
            if isinstance(node, ast.ImportFrom) and node.module in declared:
                functions = set(declared[node.module])
                reached += [f"{name}: {a.name}" for a in node.names if a.name in functions]
        for (module, function), owner in ENGINES.items():
            if not path.as_posix().endswith(owner) and _engine_uses(tree, module, function):
                reached.append(f"{name}: {module}.{function}")
    assert reached == []


def _job_names(tree: ast.AST) -> Iterator[str]:
    """The literal job names given to ``enqueue``, ``run_task`` and ``run_now``."""
    at = {"enqueue": 1, "run_task": 1, "run_now": 0}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            index = at.get(called)
            if index is not None and len(node.args) > index:
                argument = node.args[index]
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                    yield argument.value


def test_every_job_named_anywhere_is_registered() -> None:
    load_tasks()
    named = {job for _, _, tree in modules() for job in _job_names(tree)}
    assert named and named <= set(TASKS), named - set(TASKS)
    assert set(HOUSEKEEPING) <= set(TASKS)


def _route_tasks() -> dict[str, list[str]]:
    """The job names each ``POST /internal/*`` route runs."""
    found = {}
    for ctx in routing.iter_route_contexts(create_app().routes):
        route, path = ctx.original_route, str(ctx.path)
        if isinstance(route, APIRoute) and "POST" in route.methods and "/internal/" in path:
            source = textwrap.dedent(inspect.getsource(route.endpoint))
            found[path] = list(_job_names(ast.parse(source)))
    return found


def test_scheduler_internal_routes_and_cli_run_the_same_daily_jobs() -> None:
    daily = daily_tasks()
    assert list(daily) == DAILY and set(daily.values()) <= set(TASKS)

    # Each digest or reminder route runs one daily task through the kit; maintenance queues.
    routes = _route_tasks()
    assert routes.pop("/api/v1/internal/maintenance") == []
    assert sorted(name for names in routes.values() for name in names) == sorted(daily.values())
    assert all(len(names) == 1 for names in routes.values()), routes

    # The CLI knows exactly the daily tasks, in their order.
    result = CliRunner().invoke(cli, ["digests", "run", "no-such-digest"])
    assert result.exit_code == 2
    known = re.search(r"known: (.*)", result.output)
    assert known and known.group(1).strip().split(", ") == DAILY

    # The scheduler runs whatever the kit lists as daily, through the kit.
    scheduler = ast.parse((SRC / "digest" / "scheduler.py").read_text())
    called = {
        n.func.id for n in ast.walk(scheduler) if isinstance(n, ast.Call) and hasattr(n.func, "id")
    }
    assert {"daily_tasks", "run_now"} <= called


def _graph() -> dict[str, set[str]]:
    """Every import between our modules (function-level ones too: a late import is still a
    circle), ``from a import b`` pointing at ``a.b`` when that is a module."""
    names = {name for name, _, _ in modules()}
    graph: dict[str, set[str]] = {}
    for name, _, tree in modules():
        edges = graph.setdefault(name, set())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                edges |= {a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom) and node.module in names:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    edges.add(sub if sub in names else node.module)
        edges.discard(name)
    return graph


def test_no_import_circle_in_the_scheduled_work() -> None:
    graph = _graph()
    circles = []
    for start in graph:
        if not start.removeprefix("plumbline.").startswith(NO_CIRCLES):
            continue
        stack, seen = [(start, [start])], set()
        while stack:
            module, path = stack.pop()
            for target in graph.get(module, ()):
                if target == start:
                    circles.append(" -> ".join([*path, start]))
                elif target not in seen:
                    seen.add(target)
                    stack.append((target, [*path, target]))
    assert circles == []
