"""The change feed: a stream's events after a cursor, as the records they changed.

A page is read in two statements whatever its size: the stream's last number (everything up to
it is committed, since a stream's numbers are taken in commit order) and the events after the
cursor up to it. Within a page each record appears once, at its last change: its data as the
API returned it then, or a tombstone ``{type, id, deletedAt}``. The cursor is signed, names its
stream, and is refused (410) once retention purged events after it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.plans import Feature, effective_plan, plan_has
from plumbline.authz.project import ProjectContext, module_enabled
from plumbline.errors import Expired, Forbidden, InvalidField
from plumbline.events import repository
from plumbline.kit import clock, crypto

PURPOSE = "changes"
MAX_LIMIT = 1000
DEFAULT_LIMIT = 100

# What reading each project resource's changes takes: the key's scope, the module, the plan.
PROJECT_RESOURCES: dict[str, tuple[str, str, Feature]] = {
    "issue": ("issues:read", "issues", Feature.RECORDS),
    "comment": ("issues:read", "issues", Feature.RECORDS),
    "rfi": ("rfi:read", "rfi", Feature.RECORDS),
    "punch": ("punch:read", "punch", Feature.RECORDS),
    "field_report": ("field-reports:read", "fieldReports", Feature.RECORDS),
    "proposal": ("proposals:read", "proposals", Feature.PROPOSALS),
    "asset": ("om:read", "om", Feature.OM),
    "meter_reading": ("om:read", "om", Feature.OM),
    "maintenance_schedule": ("om:read", "om", Feature.OM),
    "inspection_run": ("om:read", "om", Feature.OM),
    "stock_location": ("om:read", "om", Feature.OM),
    "stock_move": ("om:read", "om", Feature.OM),
    "work_order_cost": ("om:read", "om", Feature.OM),
    "purchase_order": ("om:read", "om", Feature.OM),
    "downtime": ("om:read", "om", Feature.OM),
    "schedule": ("schedule:read", "schedule", Feature.SCHEDULE),
    "file": ("files:read", "files", Feature.FILES),
    "file_version": ("files:read", "files", Feature.FILES),
}
WORKSPACE_RESOURCES = ("material",)


def cursor_of(stream: str, seq: int) -> str:
    return crypto.signed(f"{stream}:{seq}", PURPOSE)


def _position(stream: str, cursor: str) -> int:
    """The number a cursor of ``stream`` stands at; 400 when it was not made by this API for
    this stream."""
    value = crypto.unsign(cursor, PURPOSE) if len(cursor) <= 200 else None
    named, _, seq = (value or "").partition(":")
    if named != stream or not seq.isdigit():
        raise InvalidField("since", "not a cursor of this feed", error="Invalid cursor")
    return int(seq)


def project_resources(ctx: ProjectContext, asked: Sequence[str] | None) -> list[str]:
    """The resources whose changes the caller reads: those asked for (all when none), each
    refused with the reason when the caller may not read it (a key's scope, a module switched
    off, the plan); unasked ones the caller may not read are left out."""
    if ctx.is_external:
        raise Forbidden("The change feed is for the project's own team and its API keys")
    plan = effective_plan(ctx.workspace)
    allowed = []
    for resource in asked or PROJECT_RESOURCES:
        scope, module, feature = PROJECT_RESOURCES[resource]
        key = ctx.principal.api_key
        refusal = None
        if key is not None and scope not in key.scopes:
            refusal = Forbidden(f"API key missing scope: {scope}", code="API_KEY_SCOPE")
        elif not module_enabled(ctx.project, module) or not plan_has(plan, feature):
            refusal = Forbidden(f"The project's {resource} changes are not available")
        if refusal is None:
            allowed.append(resource)
        elif asked:
            raise refusal
    return allowed


def parse_types(value: str | None, known: Iterable[str]) -> list[str] | None:
    """``types=issue,rfi``: the resources asked for (400 naming an unknown one)."""
    if not value:
        return None
    names = list(dict.fromkeys(name.strip() for name in value.split(",") if name.strip()))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InvalidField("types", f"unknown resource type: {unknown[0]}")
    return names


async def changes(
    db: AsyncSession,
    stream: str,
    *,
    since: str | None,
    resources: Sequence[str],
    limit: int,
) -> dict[str, Any]:
    """The page after ``since`` (see the module's docstring)."""
    last, purged = await repository.stream_state(db, stream)
    after = purged if since is None else _position(stream, since)
    if after < purged:
        raise Expired(
            "This cursor is older than the change history kept; sync again from the lists",
            code="CURSOR_EXPIRED",
        )
    if after > last:
        raise InvalidField("since", "not a cursor of this feed", error="Invalid cursor")
    rows = await repository.page(db, stream, after, last, limit, resources)
    full = len(rows) == limit
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for _seq, type_, resource, resource_id, data, created_at in rows:
        latest.pop((resource, resource_id), None)  # keep each record at its last change
        if type_.endswith(".deleted"):
            latest[resource, resource_id] = data
        else:
            latest[resource, resource_id] = {
                "type": resource,
                "id": resource_id,
                "event": type_,
                "changedAt": clock.iso(created_at),
                "data": data,
            }
    position = rows[-1][0] if full else last
    return {
        "changes": list(latest.values()),
        "cursor": cursor_of(stream, position),
        "hasMore": full and position < last,
    }
