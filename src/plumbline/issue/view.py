"""An issue as its page shows it: the issue, its comments, its history in words (from the audit
log), the people it may be given to, the drawing it is pinned on, its costs when it is a work
order, and what the caller may do with it. A fixed number of statements, whatever the history.

The page's words are the templates' (gettext): a history line here is who, what and when, with
the values as stored; ``issues/_history.html`` says it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Permission, ProjectRole
from plumbline.authz.project import ProjectContext
from plumbline.config import settings
from plumbline.issue import repository as repo
from plumbline.issue.comments import issue_comments
from plumbline.issue.photos import PHOTOS
from plumbline.issue.schemas import STATUSES
from plumbline.issue.service import issue as issue_service
from plumbline.kit.pagination import PageParams
from plumbline.records.repository import assignable_people

HISTORY = 50  # the latest entries shown
# Stamps the service writes with a status change: the status line says it.
STAMPS = frozenset({"statusChangedAt", "resolvedAt", "closedAt", "checklist", "pin"})
# The fields a page edits in place, in the order it shows them (camelCase, as the PATCH).
EDITABLE = (
    "title",
    "description",
    "priority",
    "assigneeId",
    "dueDate",
    "issueKind",
    "workOrderType",
    "location",
    "status",
)


@dataclass(frozen=True)
class Line:
    """One thing that happened: ``kind`` created, changed, commented, deleted or other (then
    ``field`` is the action); ``field``, ``before`` and ``after`` for a change."""

    actor: str | None
    kind: str
    at: datetime
    field: str | None = None
    before: Any = None
    after: Any = None


def photo_limits() -> dict[str, Any]:
    """The photos' limits as the upload service checks them (said before an upload)."""
    most = min(PHOTOS.max_bytes, settings.max_upload_bytes)
    return {"types": sorted(PHOTOS.types or ()), "max_bytes": most, "max_count": PHOTOS.max_count}


def transitions(status: str) -> list[str]:
    """The statuses an issue may move to from ``status`` (the service lets any follow any
    other: ``IssueService.change``), the next ones in the usual flow first."""
    at = STATUSES.index(status) if status in STATUSES else 0
    return [*STATUSES[at + 1 :], *reversed(STATUSES[:at])]


def _lines(rows: Any, names: dict[str, str]) -> list[Line]:
    lines: list[Line] = []
    for action, changes, at, actor, name in rows:
        who = name if name else ("API key" if actor == "api_key" else None)
        if action == "issue.updated":
            for field, pair in (changes or {}).items():
                if field in STAMPS or not isinstance(pair, list) or len(pair) != 2:
                    continue
                before, after = pair
                if field == "assigneeId":
                    before, after = names.get(before, before), names.get(after, after)
                elif field == "costs":  # the totals om.costs keeps: the total says it
                    before, after = (before or {}).get("total"), (after or {}).get("total")
                lines.append(Line(who, "changed", at, field, before, after))
        elif action in ("issue.created", "issue.commented", "issue.deleted"):
            lines.append(Line(who, action.removeprefix("issue."), at))
        else:
            lines.append(Line(who, "other", at, action))
    return lines


async def history(db: AsyncSession, ctx: ProjectContext, issue_id: str) -> list[Line]:
    """The issue's latest audit entries as lines, newest first: two statements at most (the
    entries with their authors, then the names of the people assigned and unassigned)."""
    rows = await repo.history(db, ctx.project.id, issue_id, HISTORY)
    people = {
        value
        for row in rows
        for value in (row[1] or {}).get("assigneeId") or ()
        if isinstance(value, str)
    }
    return _lines(rows, await repo.names(db, sorted(people)))


def may(ctx: ProjectContext, issue: dict[str, Any]) -> dict[str, bool]:
    """What the caller may do on the issue, as the services decide it: edit (and its assignee
    only for the team), comment, delete (MANAGER+ any, a MEMBER their own)."""
    write = ctx.can(Permission.RECORDS_WRITE)
    own = ctx.user_id is not None and issue["createdBy"] == ctx.user_id
    return {
        "write": write,
        "assign": write and not ctx.is_external,
        "comment": write or ctx.project_role == ProjectRole.CLIENT,
        "delete": ctx.can(Permission.RECORDS_DELETE_ANY)
        or (own and ctx.can(Permission.RECORDS_DELETE_OWN)),
        "convert": ctx.can(Permission.RECORDS_CLOSE),
    }


async def issue_page(
    db: AsyncSession, ctx: ProjectContext, issue_id: str, page: PageParams
) -> dict[str, Any]:
    """Everything the issue's page shows (404 as the JSON read for an issue the caller cannot
    see): about eight statements, whatever its comments, photos or history."""
    issue = await issue_service.get(db, ctx, issue_id)
    comments, _headers = await issue_comments.list_comments(db, ctx, issue_id, page)
    allowed = may(ctx, issue)
    people = await assignable_people(db, ctx) if allowed["assign"] else []
    file_id = issue["fileId"]
    return {
        "issue": issue,
        "comments": list(reversed(comments)),  # oldest first, as a conversation reads
        "history": await history(db, ctx, issue_id),
        "people": people,
        "file_name": await repo.file_name(db, ctx.project.id, file_id) if file_id else None,
        "may": allowed,
        "transitions": transitions(issue["status"]) if allowed["write"] else [],
        "assignee_name": await _assignee(db, issue, people),
        "limits": photo_limits(),
        "pin": _json(issue["pin"]),
        "totals": _json(issue["costs"]),
    }


def _json(value: Any) -> Any:
    """A value the read keeps as JSON text (``orjson.Fragment``) as Python."""
    return orjson.loads(orjson.dumps(value)) if isinstance(value, orjson.Fragment) else value


async def _assignee(db: AsyncSession, issue: dict[str, Any], people: list[Any]) -> str | None:
    assignee = issue["assigneeId"]
    if assignee is None:
        return None
    known = dict(people)
    if assignee in known:
        return str(known[assignee])
    return (await repo.names(db, [assignee])).get(assignee)
