"""The shape of ``src/``: no import circle between files, no file over 400 lines, audit entries
written by the audit package alone (docs/decisions.md, "Code structure")."""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import plumbline

PACKAGE = Path(plumbline.__file__).parent
MAX_LINES = 400
MIGRATIONS = PACKAGE / "migrations" / "versions"  # applied revisions: never rewritten
AUDIT = PACKAGE / "audit"
AUDIT_SERVICE = "plumbline.audit.service"

Graph = dict[str, set[str]]


def modules(package: Path) -> dict[str, Path]:
    """Every module under ``package`` by its dotted name (a package's ``__init__`` by its own)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _source(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` reads from, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that ``name`` imports, from every import statement in the file:
    at module level, inside a function and under ``if TYPE_CHECKING`` alike (an import moved
    into a function to dodge a circle is still a circle). ``from p import m`` where ``m`` is a
    module names ``p.m``; the packages above an imported module count too (their ``__init__``
    runs first), except the importing module's own."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _source(name, path, node)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                named.add(sub if sub in known else source)
    found = set()
    for target in named:
        parts = target.split(".")
        for end in range(len(parts), 0, -1):
            candidate = ".".join(parts[:end])
            if candidate in known and not f"{name}.".startswith(f"{candidate}."):
                found.add(candidate)
    return found


def import_graph(package: Path) -> Graph:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def _groups(graph: Graph) -> list[list[str]]:
    """The groups of two or more modules that all reach each other (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def circles(graph: Graph) -> list[list[str]]:
    """One shortest circle through the first module of each group, ``[a, b, a]``."""
    found = []
    for group in _groups(graph):
        start, members = group[0], set(group)
        came_from: dict[str, str] = {}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            if start in graph[node]:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                found.append([*reversed(path), start])
                break
            for nxt in sorted(graph[node] & members):
                if nxt not in came_from and nxt != start:
                    came_from[nxt] = node
                    queue.append(nxt)
    return found


def audit_record_calls(name: str, path: Path) -> list[int]:
    """The lines calling ``record`` on the audit service (``audit.record(...)``, by any name
    the file gives it)."""
    tree = ast.parse(path.read_text(), str(path))
    services, service_modules = set(), {AUDIT_SERVICE}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _source(name, path, node)
            for alias in node.names:
                if f"{source}.{alias.name}" == AUDIT_SERVICE:
                    service_modules.add(alias.asname or alias.name)
                elif source == AUDIT_SERVICE and alias.name == "audit":
                    services.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            service_modules.update(
                alias.asname for alias in node.names if alias.name == AUDIT_SERVICE and alias.asname
            )
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "record"
        and (
            (isinstance(node.func.value, ast.Name) and node.func.value.id in services)
            or (
                isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "audit"
                and ast.unparse(node.func.value.value) in service_modules
            )
        )
    )


def _shown(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent.parent))


def test_no_import_circle_between_files() -> None:
    found = circles(import_graph(PACKAGE))
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_file_over_400_lines() -> None:
    sizes = {
        path: len(path.read_text().splitlines())
        for path in sorted(PACKAGE.rglob("*.py"))
        if MIGRATIONS not in path.parents
    }
    long = [f"{_shown(path)}: {n}" for path, n in sizes.items() if n > MAX_LINES]
    assert not long, f"files over {MAX_LINES} lines (make them packages):\n" + "\n".join(long)


def test_audit_entries_written_only_by_the_audit_package() -> None:
    found = [
        f"{_shown(path)}:{line}"
        for name, path in modules(PACKAGE).items()
        if AUDIT not in path.parents
        for line in audit_record_calls(name, path)
    ]
    assert not found, (
        "direct audit.record calls outside the audit package (write through its helpers, "
        "such as audit_change):\n" + "\n".join(found)
    )


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root / "pkg"


def test_the_walk_finds_a_circle_however_it_is_imported(tmp_path: Path) -> None:
    package = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",  # a submodule named in from-import
            "pkg/b.py": "def f():\n    from .sub.c import g\n",  # relative, in a function
            "pkg/sub/__init__.py": "",
            "pkg/sub/c.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from .. import a\n",
            "pkg/d.py": "import pkg.a\n",  # imports the circle, not in it
        },
    )
    assert circles(import_graph(package)) == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]


def test_the_walk_counts_a_package_init_that_imports_back(tmp_path: Path) -> None:
    package = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/x/__init__.py": "from pkg.y import f\n",
            "pkg/x/inner.py": "",
            "pkg/y.py": "from pkg.x.inner import g\n",  # runs pkg/x/__init__.py first
        },
    )
    assert circles(import_graph(package)) == [["pkg.x", "pkg.y", "pkg.x"]]


def test_the_audit_check_finds_the_call_by_any_name(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "from plumbline.audit.service import audit as trail\n"
        "from plumbline.audit import service\n"
        "async def f(db):\n"
        "    await trail.record(db, action='x')\n"
        "    await service.audit.record(db, action='y')\n"
        "    await other.record(db)\n"
    )
    assert audit_record_calls("plumbline.m", path) == [4, 5]
