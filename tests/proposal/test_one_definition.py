"""The proposal statuses are listed once, in ``proposal/status.py`` (issue 25 part 1): no other
module lists them, and no other proposal module writes a group of them by hand."""

from __future__ import annotations

import ast
from pathlib import Path

import plumbline
from plumbline.proposal.status import STATUSES

SOURCE = Path(plumbline.__file__).parent
PROPOSAL = SOURCE / "proposal"
THE_DEFINITION = PROPOSAL / "status.py"


def _named(node: ast.AST) -> set[str]:
    return {
        child.value
        for child in ast.walk(node)
        if isinstance(child, ast.Constant) and child.value in STATUSES
    }


def _groups(tree: ast.AST) -> list[tuple[int, set[str]]]:
    """Tuples, lists, sets and subscripts (``Literal[...]``) written with two or more statuses."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Subscript):
            elements = node.slice if isinstance(node, ast.Subscript) else node
            if isinstance(elements, ast.Tuple | ast.List | ast.Set):
                named = {e.value for e in elements.elts if isinstance(e, ast.Constant)}
                if len(named & set(STATUSES)) >= 2:
                    found.append((node.lineno, named & set(STATUSES)))
    return found


def _modules() -> list[Path]:
    return [p for p in sorted(SOURCE.rglob("*.py")) if "migrations" not in p.parts]


def test_the_definition_lists_every_status() -> None:
    assert set(STATUSES) == {
        "DRAFT", "SENT", "VIEWED", "ACCEPTED", "DECLINED", "CHANGES_REQUESTED", "EXPIRED"
    }  # fmt: skip
    assert _groups(ast.parse(THE_DEFINITION.read_text()))


def test_no_module_outside_proposal_names_proposal_statuses_together() -> None:
    """A module elsewhere may use one of the words (a field report is a DRAFT too); two or
    more is a second list of the proposal's statuses."""
    listed = {}
    for path in _modules():
        if PROPOSAL in path.parents:
            continue
        named = _named(ast.parse(path.read_text()))
        if len(named) >= 2:
            listed[str(path.relative_to(SOURCE))] = sorted(named)
    assert listed == {}, "list proposal statuses only in plumbline/proposal/status.py"


def test_no_proposal_module_writes_a_group_of_statuses_by_hand() -> None:
    """Groups (editable, live, answered...) are named in ``status.py`` and imported."""
    written = {}
    for path in _modules():
        if PROPOSAL in path.parents and path != THE_DEFINITION:
            groups = _groups(ast.parse(path.read_text()))
            if groups:
                written[str(path.relative_to(SOURCE))] = groups
    assert written == {}, "name the group in plumbline/proposal/status.py"
