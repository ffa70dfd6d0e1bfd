"""A checklist's items as stored (create and PATCH of issues, preventive work orders)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plumbline.kit.ids import new_id


def checklist(
    items: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Items as stored: each keeps its id or gets one (create and PATCH validate them alike).
    An item sent without an id keeps the id of the current item at its place when that one has
    the same label (and no item sent names it), so a list sent again changes nothing."""
    named = {item.get("id") for item in items}
    stored = []
    for i, item in enumerate(items):
        same = i < len(current) and current[i].get("label") == item.get("label")
        kept = current[i].get("id") if same and current[i].get("id") not in named else None
        stored.append({**item, "id": item.get("id") or kept or new_id()})
    return stored
