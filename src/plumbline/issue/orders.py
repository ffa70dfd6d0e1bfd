"""The issue list's orders (``sort``): newest first unless the caller names one of these,
each paged by its own keyset cursor (``kit.pagination.Order``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from plumbline.errors import InvalidField
from plumbline.kit.ordering import Order
from plumbline.models import Issue

T = Issue.__table__.c
PRIORITY_RANK = {"LOW": 1, "MEDIUM": 2, "HIGH": 3, "URGENT": 4}


def _both(
    name: str, column: object, field: str, rank: dict[str, int] | None = None
) -> dict[str, Order]:
    return {
        name: Order(name, column, field, rank=rank),
        f"-{name}": Order(f"-{name}", column, field, descending=True, rank=rank),
    }


ORDERS: dict[str, Order] = {
    **_both("due", T.due_date, "due_date"),
    **_both("priority", T.priority, "priority", PRIORITY_RANK),
    **_both("updated", T.updated_at, "updated_at"),
    **_both("number", T.number, "number"),
}
SORT_DOC = (
    "The order: `due` (due date, soonest first), `priority` (LOW first), `updated` (last "
    "change, oldest first), `number`; a leading `-` reverses it (`-priority`: URGENT first). "
    "Issues without a due date come last either way; ties go by id. Left out: newest first. "
    "A cursor pages only the order it was made in; not with `updatedSince`."
)


async def issue_order(
    sort: Annotated[str | None, Query(max_length=20, description=SORT_DOC)] = None,
) -> Order | None:
    if not sort:
        return None
    order = ORDERS.get(sort)
    if order is None:
        raise InvalidField("sort", f"must be one of {', '.join(ORDERS)}")
    return order


Sort = Annotated[Order | None, Depends(issue_order)]
