"""``kit/`` is domain-free: it may lean on settings and the error tree, never on the app."""

import ast
from pathlib import Path

import plumbline.kit

ALLOWED = ("plumbline.kit", "plumbline.config", "plumbline.errors")


def test_kit_imports_nothing_from_the_app() -> None:
    root = Path(plumbline.kit.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found += [
                f"{path.relative_to(root)}: {name}"
                for name in names
                if name.startswith("plumbline") and not name.startswith(ALLOWED)
            ]
    assert found == []
