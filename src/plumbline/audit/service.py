"""The audit trail: every write appends who did what to which entity, with old and new values."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Protocol, Required, TypedDict, Unpack

import orjson
from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit import repository
from plumbline.audit.schemas import AuditFilters, ExportFormat
from plumbline.auth.principal import Principal
from plumbline.db import database
from plumbline.events import log as events
from plumbline.kit import clock, encoding
from plumbline.kit.export import csv_cell
from plumbline.kit.ids import new_id
from plumbline.kit.logging import client_ip_var, request_id_var
from plumbline.kit.pagination import PageParams

EXPORT_BATCH = 500

# An entry as answered and exported: the columns, named in camelCase, in their order.
ENTRY_KEYS = tuple(to_camel(column.key) for column in repository.AUDIT_COLUMNS)


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return clock.iso(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """``{field: [old, new]}`` for the fields whose value changed."""
    return {
        key: [_plain(before.get(key)), _plain(value)]
        for key, value in after.items()
        if _plain(before.get(key)) != _plain(value)
    }


def created(values: dict[str, Any]) -> dict[str, list[Any]]:
    """``{field: [None, new]}`` for a new entity's set fields (unset ones are left out)."""
    return {key: [None, _plain(value)] for key, value in values.items() if value is not None}


class EntryFields(TypedDict, total=False):
    action: Required[str]
    entity_type: Required[str]
    entity_id: Required[str | None]
    principal: Principal | None
    actor: str | None  # "public" or "system" when there is no principal
    workspace_id: str | None
    project_id: str | None
    changes: dict[str, Any] | None


class HasId(Protocol):
    @property
    def id(self) -> str: ...


class Scope(Protocol):
    """Who acts where: a ``ProjectContext`` or a ``WorkspaceContext``."""

    @property
    def principal(self) -> Principal: ...

    @property
    def workspace(self) -> HasId: ...


class AuditService:
    async def record(self, db: AsyncSession, **fields: Unpack[EntryFields]) -> None:
        """Append one entry in the request's transaction; ``actor`` is "public" or "system"
        when there is no principal. Written at once (no foreign keys, so the order of the
        request's other writes does not matter)."""
        await repository.insert_entry(db, self.entry(db, **fields))

    def entry(self, db: AsyncSession, **fields: Unpack[EntryFields]) -> dict[str, Any]:
        """The row ``record`` writes, for a repository that writes it together with its own
        statement (``repository.with_entry``). An entry whose action is an event also writes
        that event before the transaction commits (``events.log``)."""
        principal = fields.get("principal")
        actor = fields.get("actor")
        if principal is not None and principal.token is not None:
            actor = "public"
        elif principal is not None:
            actor = "key" if principal.api_key is not None else "user"
        entry = {
            "id": new_id(),
            "workspace_id": fields.get("workspace_id"),
            "project_id": fields.get("project_id"),
            "actor": actor or "system",
            "actor_user_id": principal.user_id if principal else None,
            "actor_key_id": principal.key_id if principal else None,
            "action": fields["action"],
            "entity_type": fields["entity_type"],
            "entity_id": fields["entity_id"],
            "changes": fields.get("changes") or {},
            "request_id": request_id_var.get(),
            "ip": client_ip_var.get(),
            "created_at": clock.now(),
        }
        events.note(db, entry)
        return entry

    async def list_entries(
        self, db: AsyncSession, *, project_id: str, filters: AuditFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's entries matching the filters, newest first."""
        rows = await repository.list_entries(db, project_id=project_id, filters=filters, page=page)
        rows, headers = page.finish(rows)
        return [entry_dict(row) for row in rows], headers

    async def recent(
        self, db: AsyncSession, *, project_id: str, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The project's latest entries, newest first (the dashboard's activity feed)."""
        rows = await repository.recent(db, project_id=project_id, limit=limit)
        return [entry_dict(row) for row in rows]

    async def export(
        self, *, project_id: str, filters: AuditFilters, fmt: ExportFormat
    ) -> AsyncIterator[bytes]:
        """The matching entries oldest first, as CSV or as one JSON array, in batches.

        Runs while the response streams, after the request's session is closed: each batch
        uses its own short session, so no transaction (nor SQLite's write lock) is held
        while a slow client reads."""
        if fmt == "csv":
            yield _csv_lines([ENTRY_KEYS])
        else:
            yield b"["
        after_id: str | None = None
        first = True
        while True:
            async with await database.read_session() as db:
                rows = await repository.export_batch(
                    db,
                    project_id=project_id,
                    filters=filters,
                    after_id=after_id,
                    limit=EXPORT_BATCH,
                )
            if rows:
                entries = [entry_dict(row) for row in rows]
                if fmt == "csv":
                    yield _csv_lines([_csv_row(entry) for entry in entries])
                else:
                    chunk = b",".join(encoding.dumps(entry) for entry in entries)
                    yield chunk if first else b"," + chunk
                first = False
                after_id = rows[-1][0]
            if len(rows) < EXPORT_BATCH:
                break
        if fmt == "json":
            yield b"]"


def entry_dict(row: Sequence[Any]) -> dict[str, Any]:
    """An entry from the values of ``repository.AUDIT_COLUMNS``, named in camelCase."""
    entry = dict(zip(ENTRY_KEYS, row, strict=True))
    entry["createdAt"] = clock.iso(entry["createdAt"])
    return entry


def _csv_row(entry: dict[str, Any]) -> list[Any]:
    changes = orjson.dumps(entry["changes"]).decode()
    return [csv_cell(changes if column == "changes" else entry[column]) for column in ENTRY_KEYS]


def _csv_lines(rows: Sequence[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


audit = AuditService()


async def audit_change(
    db: AsyncSession,
    ctx: Scope,
    entity: tuple[str, str | None],
    action: str,
    changes: dict[str, Any] | None = None,
) -> None:
    """The entry of the caller's ``action`` on ``entity`` (type, id) in the caller's
    workspace, and project when ``ctx`` names one."""
    project: HasId | None = getattr(ctx, "project", None)
    await audit_as(
        db,
        ctx.principal,
        entity,
        action,
        changes,
        workspace_id=ctx.workspace.id,
        project_id=project.id if project is not None else None,
    )


async def audit_as(
    db: AsyncSession,
    actor: Principal | str,
    entity: tuple[str, str | None],
    action: str,
    changes: dict[str, Any] | None = None,
    *,
    workspace_id: str | None = None,
    project_id: str | None = None,
) -> None:
    """``audit_change`` for a caller without a project or workspace context (sign-up, public
    links, webhooks, jobs): ``actor`` is the principal, or "public" or "system" without one;
    the workspace and project are named explicitly."""
    await audit.record(
        db,
        action=action,
        entity_type=entity[0],
        entity_id=entity[1],
        # A principal names its own kind (user, key or public token) in ``entry``.
        principal=actor if isinstance(actor, Principal) else None,
        actor=actor if isinstance(actor, str) else None,
        workspace_id=workspace_id,
        project_id=project_id,
        changes=changes,
    )


async def audit_stamp(
    db: AsyncSession,
    ctx: Scope,
    entity: tuple[str, str | None],
    action: str,
    field: str,
    when: datetime,
) -> None:
    """``audit_change`` of one timestamp set where there was none (``revokedAt``, ``deletedAt``)."""
    await audit_change(db, ctx, entity, action, {field: [None, clock.iso(when)]})


async def audit_update(
    db: AsyncSession,
    ctx: Scope,
    entity: tuple[str, Any],
    action: str,
    before: dict[str, Any],
    after: dict[str, Any],
) -> dict[str, list[Any]]:
    """The update of ``entity`` (type, record): when ``after`` differs from ``before``, stamp
    the record's ``updated_at`` and ``audit_change`` the difference; then flush. Returns the
    difference (empty when nothing changed)."""
    kind, record = entity
    changes = diff(before, after)
    if changes:
        record.updated_at = clock.now()
        await audit_change(db, ctx, (kind, record.id), action, changes)
    await db.flush()
    return changes
