"""The issue list and export filters.

``status``, ``priority``, ``issueKind`` (comma-separated values), ``assigneeId`` (an id,
``me`` or ``none``), ``overdue``, ``externalId``, ``q`` (title/description, case-insensitive)
and ``updatedSince`` (the export's; the list's page applies it, in its own order).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated
from urllib.parse import parse_qsl

from fastapi import Depends, Query

from plumbline.errors import InvalidField
from plumbline.issue.schemas import KINDS, PRIORITIES, STATUSES
from plumbline.kit.pagination import UpdatedSince

ME, NONE = "me", "none"
ASSIGNEE_DOC = "A user's id; `me`: the caller; `none`: no assignee"
OVERDUE_DOC = "true: only OPEN or IN_PROGRESS issues due before today (UTC)"


@dataclass(frozen=True)
class IssueFilters:
    status: tuple[str, ...] = ()
    priority: tuple[str, ...] = ()
    issue_kind: tuple[str, ...] = ()
    assignee_id: str | None = None
    external_id: str | None = None
    q: str | None = None
    updated_since: datetime | None = None
    overdue: bool = False
    unassigned: bool = False

    def of_caller(self, user_id: str | None) -> IssueFilters:
        """``assigneeId=me`` as the caller's id (a key's caller is no one: nothing matches)."""
        if self.assignee_id != ME:
            return self
        return replace(self, assignee_id=user_id or "-")


def _values(field: str, raw: str | None, allowed: tuple[str, ...]) -> tuple[str, ...]:
    if raw is None:
        return ()
    values = tuple(dict.fromkeys(v.strip() for v in raw.split(",") if v.strip()))
    wrong = [v for v in values if v not in allowed]
    if wrong:
        message = f"must be one of {', '.join(allowed)}"
        raise InvalidField(field, message)
    return values


# async: FastAPI would run a plain function in a worker thread, a thread hop per request.
async def issue_filters(
    status: Annotated[str | None, Query(description="OPEN, IN_PROGRESS, RESOLVED, CLOSED")] = None,
    priority: Annotated[str | None, Query(description="LOW, MEDIUM, HIGH, URGENT")] = None,
    issue_kind: Annotated[
        str | None, Query(alias="issueKind", description="CONSTRUCTION, WORK_ORDER, OCCUPANT")
    ] = None,
    assignee_id: Annotated[
        str | None, Query(alias="assigneeId", max_length=32, description=ASSIGNEE_DOC)
    ] = None,
    external_id: Annotated[
        str | None, Query(alias="externalId", max_length=255, description="Exactly this key")
    ] = None,
    q: Annotated[
        str | None, Query(max_length=200, description="Text in the title or description")
    ] = None,
    updated_since: UpdatedSince = None,
    overdue: Annotated[bool, Query(description=OVERDUE_DOC)] = False,
) -> IssueFilters:
    return IssueFilters(
        status=_values("status", status, STATUSES),
        priority=_values("priority", priority, PRIORITIES),
        issue_kind=_values("issueKind", issue_kind, KINDS),
        assignee_id=None if assignee_id == NONE else assignee_id or None,
        unassigned=assignee_id == NONE,
        external_id=external_id or None,
        q=q.strip() or None if q else None,
        updated_since=updated_since,
        overdue=overdue,
    )


Filters = Annotated[IssueFilters, Depends(issue_filters)]


async def filters_of_query(query: str) -> IssueFilters:
    """The list's filters of a view's query string (a page's "all that match")."""
    params = dict(parse_qsl(query))
    return await issue_filters(
        status=params.get("status"),
        priority=params.get("priority"),
        issue_kind=params.get("issueKind"),
        assignee_id=params.get("assigneeId"),
        q=(params.get("q") or "")[:200] or None,
        overdue=params.get("overdue") in ("1", "true"),
    )
