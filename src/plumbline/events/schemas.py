"""The change feed's query and answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import Query
from pydantic import BaseModel

from plumbline.events.feed import MAX_LIMIT


class Change(BaseModel):
    """A record as its last change in the page left it."""

    type: str
    id: str
    event: str | None = None  # the event type of that change ("issue.updated")
    changedAt: datetime | None = None
    data: dict[str, Any] | None = None  # the record as the API returned it then
    deletedAt: datetime | None = None  # set (alone with type and id) on a tombstone


class ChangesPage(BaseModel):
    changes: list[Change]
    cursor: str  # pass as ``since`` for the next page, or later for what changed since
    hasMore: bool


Since = Annotated[
    str | None,
    Query(
        max_length=200,
        description="The `cursor` of the previous page; none: from the oldest change kept",
    ),
]
Types = Annotated[
    str | None,
    Query(description="Comma-separated resource types (`issue,rfi`); none: every type"),
]
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Events per page (1..1000)")]
