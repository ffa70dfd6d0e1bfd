"""The middle layer's shared helpers stay the only way to do their job (issue 25): a walk of the
source with ``ast`` fails on a new audit entry, OpenAPI error response, one-field 400 or
load-or-404 written by hand."""

import ast
from collections.abc import Iterator
from pathlib import Path

import plumbline

SRC = Path(plumbline.__file__).parent


def _modules() -> Iterator[tuple[str, ast.AST]]:
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] == "migrations":
            continue
        yield relative.as_posix(), ast.parse(path.read_text())


def _calls(tree: ast.AST) -> Iterator[ast.Call]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def test_audit_entries_go_through_audit_change_or_audit_as() -> None:
    direct = [
        module
        for module, tree in _modules()
        if not module.startswith("audit/")
        for call in _calls(tree)
        if isinstance(call.func, ast.Attribute)
        and call.func.attr == "record"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "audit"
    ]
    assert direct == []


def test_error_responses_are_declared_by_openapi_errors() -> None:
    by_hand = [
        module
        for module, tree in _modules()
        if module not in ("openapi.py", "kit/schema.py")
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and node.id == "ErrorBody"
    ]
    assert by_hand == []


def test_one_field_errors_are_invalid_field() -> None:
    by_hand = [
        module
        for module, tree in _modules()
        if module != "errors.py"
        for call in _calls(tree)
        if isinstance(call.func, ast.Name) and call.func.id in ("ValidationFailed", "BadRequest")
        for keyword in call.keywords
        if keyword.arg == "details"
        and isinstance(keyword.value, ast.List)
        and len(keyword.value.elts) == 1
    ]
    assert by_hand == []


def test_load_or_404_is_found() -> None:
    """``if row is None: raise NotFound(...)`` is ``found(row, ...)``."""
    by_hand = [
        module
        for module, tree in _modules()
        if module != "errors.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and isinstance(node.test.ops[0], ast.Is)
        and isinstance(node.test.comparators[0], ast.Constant)
        and node.test.comparators[0].value is None
        and len(node.body) == 1
        and isinstance(node.body[0], ast.Raise)
        and isinstance(node.body[0].exc, ast.Call)
        and isinstance(node.body[0].exc.func, ast.Name)
        and node.body[0].exc.func.id.endswith("NotFound")
    ]
    assert by_hand == []
