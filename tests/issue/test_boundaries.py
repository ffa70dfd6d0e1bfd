"""The issue module knows nothing of O&M: work-order completion reaches O&M through
``issue.hooks``, connected in ``plumbline.wiring`` (issue 25)."""

import ast
from pathlib import Path

import plumbline

ISSUE = Path(plumbline.__file__).parent / "issue"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_the_issue_package_does_not_import_om() -> None:
    offending = {
        f"{path.name}: {name}"
        for path in ISSUE.glob("*.py")
        for name in _imports(path)
        if name == "plumbline.om" or name.startswith(("plumbline.om.", "plumbline.occupant"))
    }
    assert not offending
