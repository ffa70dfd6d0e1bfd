"""Punch rules: the status workflow, who may see and change what, audit and notifications.

Workflow (any other change is 409 ``INVALID_TRANSITION``; setting the current status is a no-op):

    OPEN -> IN_PROGRESS -> READY_FOR_REVIEW -> CLOSED      (closing: MANAGER and above)
                 ^               |
                 +---------------+  work not accepted
    CLOSED -> OPEN                                          (reopening: MANAGER and above)

A reopened item starts again from OPEN, so its assignees pick it up anew. New items are OPEN.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import AppError, ValidationFailed, found
from plumbline.events.readers import reader
from plumbline.kit import clock, search
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.models import PunchItem
from plumbline.punch import export
from plumbline.punch import repository as repo
from plumbline.punch.errors import (
    ExternalCannotReassign,
    ManagerOnlyTransition,
    PunchHiddenFromClients,
    PunchTransitionRefused,
)
from plumbline.punch.repository import ASSIGNEES, FIELDS
from plumbline.punch.schemas import (
    PunchBulkUpdate,
    PunchCreate,
    PunchFilters,
    PunchPhotoComplete,
    PunchUpdate,
)
from plumbline.records import Notice, add_record, references, soft_delete
from plumbline.records.references import FILE_VERSION
from plumbline.records.repository import assignable, rows_by_id
from plumbline.records.uploads import RecordFiles, Uploads
from plumbline.records.visibility import Visibility

ENTITY = "punch_item"
TRANSITIONS: frozenset[tuple[str, str]] = frozenset(
    {
        ("OPEN", "IN_PROGRESS"),
        ("IN_PROGRESS", "READY_FOR_REVIEW"),
        ("READY_FOR_REVIEW", "IN_PROGRESS"),
        ("READY_FOR_REVIEW", "CLOSED"),
        ("CLOSED", "OPEN"),
    }
)
MANAGER_TRANSITIONS = frozenset({("READY_FOR_REVIEW", "CLOSED"), ("CLOSED", "OPEN")})
PHOTOS = Uploads(ENTITY, max_bytes=15 * 1024 * 1024, max_count=8)
ASSIGNED = Notice(
    "PUNCH_ASSIGNED", "Punch #{n} assigned to you: {title}", "punch item #{n}", "punch"
)
# Set directly by a PATCH (status goes through the workflow, assignees through their table).
EDITABLE = (
    "title",
    "location",
    "trade",
    "priority",
    "dueDate",
    "notes",
    "fileVersionId",
    "pageNumber",
    "pin",
)
COLUMNS = FIELDS.columns_of(EDITABLE)
AUDITED = (*EDITABLE, "status", "closedAt")


def _snapshot(item: PunchItem, assignee_ids: list[str]) -> dict[str, Any]:
    return FIELDS.audited(item, AUDITED) | {"assigneeIds": list(assignee_ids)}


@reader("punch")
async def punch_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    assignees, photos = await ASSIGNEES.of(db, ids), await PHOTOS.of(db, ids)
    return {
        row.id: FIELDS.row(row, assigneeIds=assignees[row.id], referencePhotos=photos[row.id])
        for row in await rows_by_id(db, FIELDS, ids)
    }


class PunchService:
    def visibility(self, ctx: ProjectContext) -> Visibility:
        """Clients see punch items only where the project shares them (``showPunch``)."""
        return Visibility.of(ctx, "showPunch")

    async def list_items(
        self, db: AsyncSession, ctx: ProjectContext, filters: PunchFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The items the caller may see, with assignees and photos (clients: 403 if not shared)."""
        vis = self.visibility(ctx).collection(PunchHiddenFromClients)
        # The page applies updatedSince (the filter's is the export's).
        query = page.apply(repo.filtered(vis, replace(filters, updated_since=None)), PunchItem.id)
        query = search.inline(query, filters.q)
        found, headers = page.finish(await repo.rows(db, query))
        ids = [row.id for row in found]
        assignees = await ASSIGNEES.of(db, ids)
        photos = await PHOTOS.of(db, ids)
        return [
            FIELDS.row(row, assigneeIds=assignees[row.id], referencePhotos=photos[row.id])
            for row in found
        ], headers

    async def load(self, db: AsyncSession, ctx: ProjectContext, punch_id: str) -> PunchItem:
        return found(await repo.get(db, self.visibility(ctx), punch_id), "Punch item not found")

    async def _read(
        self, db: AsyncSession, item: PunchItem, assignee_ids: list[str] | None = None
    ) -> dict[str, Any]:
        if assignee_ids is None:
            assignee_ids = (await ASSIGNEES.of(db, [item.id]))[item.id]
        photos = await PHOTOS.of(db, [item.id])
        return FIELDS.read(
            FIELDS.of(item), assigneeIds=assignee_ids, referencePhotos=photos[item.id]
        )

    async def get(self, db: AsyncSession, ctx: ProjectContext, punch_id: str) -> dict[str, Any]:
        """One item the caller may see (404 otherwise)."""
        return await self._read(db, await self.load(db, ctx, punch_id))

    async def _check_assignees(
        self, db: AsyncSession, ctx: ProjectContext, user_ids: list[str]
    ) -> None:
        allowed = await assignable(db, ctx, user_ids)
        refused = [u for u in user_ids if u not in allowed]
        if refused:
            raise ValidationFailed(
                "Every assignee must be a member who can see this project",
                details=[
                    {"field": "assigneeIds", "message": f"{u} cannot be assigned"} for u in refused
                ],
            )

    async def create(
        self, uow: UnitOfWork, ctx: ProjectContext, data: PunchCreate
    ) -> dict[str, Any]:
        """A new OPEN item numbered in the project; an external's own item is assigned to them."""
        db = uow.session
        self.visibility(ctx).collection(PunchHiddenFromClients)
        assignee_ids = list(dict.fromkeys(data.assignee_ids or []))
        if data.assignee_ids is None and ctx.is_external and ctx.user_id:
            # An external's own item stays visible to them: it is theirs unless they say otherwise.
            assignee_ids = [ctx.user_id]
        await self._check_assignees(db, ctx, assignee_ids)
        await references.require(db, ctx, FILE_VERSION, "fileVersionId", data.file_version_id)
        values = {name: getattr(data, name) for name in COLUMNS}
        values["pin"] = data.pin.model_dump() if data.pin else None
        number = await next_number(db, ctx.project.id, "punch")
        item = await add_record(db, ctx, PunchItem, punch_number=number, status="OPEN", **values)
        await ASSIGNEES.set(db, item.id, assignee_ids)
        values = _snapshot(item, assignee_ids) | {"punchNumber": item.punch_number}
        await audit_change(db, ctx, (ENTITY, item.id), "punch.created", created(values))
        await ASSIGNED.send(
            uow, ctx, assignee_ids, record_id=item.id, number=number, title=item.title
        )
        return FIELDS.read(FIELDS.of(item), assigneeIds=assignee_ids, referencePhotos=[])

    def _check_transition(self, ctx: ProjectContext, old: str, new: str) -> None:
        if old == new:
            return
        if (old, new) not in TRANSITIONS:
            extra: dict[str, Any] = {"from": old, "to": new}
            raise PunchTransitionRefused(f"A punch item cannot go from {old} to {new}", **extra)
        if (old, new) in MANAGER_TRANSITIONS and not ctx.can(Permission.RECORDS_CLOSE):
            raise ManagerOnlyTransition()

    async def _apply(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        item: PunchItem,
        current: list[str],
        values: Mapping[str, Any],
        assignee_ids: list[str] | None,
    ) -> list[str]:
        """Apply one item's change after checking its rules (nothing is written on refusal);
        returns the item's assignees afterwards."""
        db = uow.session
        if assignee_ids is not None and ctx.is_external and assignee_ids != current:
            raise ExternalCannotReassign()
        old_status, new_status = item.status, values.get("status", item.status)
        self._check_transition(ctx, old_status, new_status)
        before = _snapshot(item, current)
        for name, value in values.items():
            setattr(item, name, value)
        if new_status != old_status:
            item.closed_at = clock.now() if new_status == "CLOSED" else None
        after_assignees = current if assignee_ids is None else assignee_ids
        if after_assignees != current:
            await ASSIGNEES.set(db, item.id, after_assignees)
        changes = diff(before, _snapshot(item, after_assignees))
        if not changes:
            return after_assignees
        item.updated_at = clock.now()
        action = "punch.updated"
        if new_status != old_status and new_status == "CLOSED":
            action = "punch.closed"
        elif new_status != old_status and old_status == "CLOSED":
            action = "punch.reopened"
        await audit_change(db, ctx, (ENTITY, item.id), action, changes)
        new = [u for u in after_assignees if u not in current]
        await ASSIGNED.send(
            uow, ctx, new, record_id=item.id, number=item.punch_number, title=item.title
        )
        return after_assignees

    async def update(
        self, uow: UnitOfWork, ctx: ProjectContext, punch_id: str, data: PunchUpdate
    ) -> dict[str, Any]:
        """Edits and status steps of the workflow (closing and reopening by MANAGER and above)."""
        db = uow.session
        item = await self.load(db, ctx, punch_id)
        given = data.model_fields_set
        values: dict[str, Any] = {name: getattr(data, name) for name in COLUMNS if name in given}
        if "pin" in values and data.pin is not None:
            values["pin"] = data.pin.model_dump()
        if "status" in given:
            values["status"] = data.status
        assignee_ids = None if data.assignee_ids is None else list(dict.fromkeys(data.assignee_ids))
        if assignee_ids is not None:
            await self._check_assignees(db, ctx, assignee_ids)
        if values.get("file_version_id"):
            await references.require(
                db, ctx, FILE_VERSION, "fileVersionId", values["file_version_id"]
            )
        current = (await ASSIGNEES.of(db, [item.id]))[item.id]
        after = await self._apply(uow, ctx, item, current, values, assignee_ids)
        await db.flush()
        return await self._read(db, item, after)

    async def bulk(
        self, uow: UnitOfWork, ctx: ProjectContext, data: PunchBulkUpdate
    ) -> list[dict[str, Any]]:
        """Each item follows its own rules; one refusal does not stop the others."""
        db = uow.session
        ids = list(dict.fromkeys(data.ids))
        assignee_ids = None if data.assignee_ids is None else list(dict.fromkeys(data.assignee_ids))
        if assignee_ids is not None:
            await self._check_assignees(db, ctx, assignee_ids)
        vis = self.visibility(ctx).collection(PunchHiddenFromClients)
        items = await repo.get_many(db, vis, ids)
        current = await ASSIGNEES.of(db, list(items))
        values = {"status": data.status} if data.status is not None else {}
        results: list[dict[str, Any]] = []
        for punch_id in ids:
            try:
                item = found(items.get(punch_id), "Punch item not found")
                await self._apply(uow, ctx, item, current[punch_id], values, assignee_ids)
            except AppError as refused:
                results.append(
                    {"id": punch_id, "ok": False, "error": refused.message, "code": refused.code}
                )
            else:
                results.append({"id": punch_id, "ok": True})
        await db.flush()
        return results

    async def delete(self, db: AsyncSession, ctx: ProjectContext, punch_id: str) -> None:
        """Soft delete; members delete only the items they created."""
        item = await self.load(db, ctx, punch_id)
        await soft_delete(
            db,
            ctx,
            item,
            entity_type=ENTITY,
            action="punch.deleted",
            refusal="You can delete only the punch items you created",
        )

    async def complete_photo(
        self, db: AsyncSession, ctx: ProjectContext, punch_id: str, data: PunchPhotoComplete
    ) -> dict[str, Any]:
        """Record an uploaded photo; returns the item with its ``referencePhotos``."""
        item = await self.load(db, ctx, punch_id)
        await PHOTOS.complete(db, ctx, item, data)
        return await self._read(db, item)

    def export_csv(self, ctx: ProjectContext, filters: PunchFilters) -> AsyncIterator[bytes]:
        """CSV of the filtered list, newest first."""
        vis = self.visibility(ctx).collection(PunchHiddenFromClients)
        return export.csv_lines(vis, filters)


punch = PunchService()
# Reference photos (jpeg, png, webp, heic; 15 MB; 8 per item) of the items the caller may see.
punch_photos = RecordFiles(PHOTOS, punch.load)
