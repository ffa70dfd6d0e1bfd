"""RFI rules: numbering, references, the enforced workflow, audit and notifications."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden, InvalidField
from plumbline.events.readers import reader
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.models import Rfi, RfiMessage
from plumbline.notification.service import notification
from plumbline.records import Notice, add_record, references, soft_delete
from plumbline.records.references import FILE_VERSION, ISSUE
from plumbline.records.repository import assignable, rows_by_id
from plumbline.records.visibility import Visibility
from plumbline.rfi.access import visible_rfi
from plumbline.rfi.attachments import ATTACHMENTS
from plumbline.rfi.errors import (
    NotRfiManager,
    NotRfiResponder,
    RfiClosed,
    RfisNotShared,
    RfiTransitionRefused,
)
from plumbline.rfi.repository import (
    ASSIGNEES,
    FIELDS,
    RfiFilters,
    rfi_repository,
)
from plumbline.rfi.schemas import RfiCreate, RfiUpdate
from plumbline.rfi.workflow import (
    ANSWERED,
    CLOSED,
    IN_REVIEW,
    OPEN,
    RESPONDER_STEPS,
    STEPS,
    ball_in_court,
)

# Fields a PATCH edits directly (status and the answer go through the workflow).
AUDITED = (
    "title",
    "question",
    "priority",
    "dueDate",
    "managerId",
    "issueIds",
    "fileVersionId",
    "pageNumber",
    "pin",
)
EDITABLE = FIELDS.columns_of(AUDITED)
ASSIGNED = Notice(
    "RFI_ASSIGNED",
    "You were added as a responder on RFI #{n}: {title}",
    "RFI #{n} as a responder",
    "rfi",
)
STEP_FIELDS = ("status", "officialResponse", "answeredAt", "answeredBy", "closedAt")


def _snapshot(rfi: Rfi, assignee_ids: Sequence[str]) -> dict[str, Any]:
    return FIELDS.audited(rfi, AUDITED) | {"assigneeIds": list(assignee_ids)}


def rfi_dict(
    values: Mapping[Any, Any], assignee_ids: list[str], attachments: list[dict[str, Any]]
) -> dict[str, Any]:
    return FIELDS.read(
        values,
        assigneeIds=assignee_ids,
        ballInCourt=ball_in_court(values["status"], values["manager_id"], assignee_ids),
        attachments=attachments,
    )


@reader("rfi")
async def rfis_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    assignees, files = await ASSIGNEES.of(db, ids), await ATTACHMENTS.of(db, ids)
    rows = await rows_by_id(db, FIELDS, ids)
    return {row.id: rfi_dict(row._mapping, assignees[row.id], files[row.id]) for row in rows}


class RfiService:
    # ---- reads -------------------------------------------------------------------------------

    def collection_viewer(self, ctx: ProjectContext) -> Visibility:
        """The caller's view for the list and the export: 403 to a client of a project that
        does not share its RFIs (a single RFI answers 404, like any the caller cannot see)."""
        return Visibility.of(ctx, "showRfis").collection(RfisNotShared)

    async def list_rfis(
        self, db: AsyncSession, ctx: ProjectContext, filters: RfiFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The RFIs the caller may see with their responders and attachments."""
        rows, headers = page.finish(
            await rfi_repository.list_rows(db, self.collection_viewer(ctx), filters, page)
        )
        ids = [row.id for row in rows]
        assignees = await ASSIGNEES.of(db, ids)
        files = await ATTACHMENTS.of(db, ids)
        return [rfi_dict(row._mapping, assignees[row.id], files[row.id]) for row in rows], headers

    async def read(self, db: AsyncSession, ctx: ProjectContext, rfi_id: str) -> dict[str, Any]:
        """One RFI the caller may see (404 otherwise)."""
        rfi = await visible_rfi(db, ctx, rfi_id)
        return await self._view(db, rfi)

    async def _view(
        self, db: AsyncSession, rfi: Rfi, responders: Sequence[str] | None = None
    ) -> dict[str, Any]:
        if responders is None:
            responders = (await ASSIGNEES.of(db, [rfi.id]))[rfi.id]
        files = await ATTACHMENTS.of(db, [rfi.id])
        return rfi_dict(FIELDS.of(rfi), list(responders), files[rfi.id])

    # ---- create, update, delete --------------------------------------------------------------

    async def create(self, uow: UnitOfWork, ctx: ProjectContext, body: RfiCreate) -> dict[str, Any]:
        """A new OPEN RFI by an internal member, managed by its creator unless named."""
        db = uow.session
        project = ctx.project
        manager_id = body.manager_id or ctx.user_id
        await self._check_people(db, ctx, body.assignee_ids, manager_id)
        await self._check_references(db, ctx, body.file_version_id, body.issue_ids)
        values = {name: getattr(body, name) for name in EDITABLE}
        values["pin"] = body.pin.model_dump() if body.pin else None
        values["manager_id"] = manager_id
        number = await next_number(db, project.id, "rfi")
        rfi = await add_record(db, ctx, Rfi, rfi_number=number, status=OPEN, **values)
        await ASSIGNEES.set(db, rfi.id, body.assignee_ids)
        values = FIELDS.of(rfi)
        snapshot = _snapshot(rfi, body.assignee_ids) | {"rfiNumber": rfi.rfi_number}
        changes = created(snapshot | {"status": OPEN})
        await audit_change(db, ctx, ("rfi", rfi.id), "rfi.created", changes)
        await ASSIGNED.send(
            uow, ctx, body.assignee_ids, record_id=rfi.id, number=number, title=rfi.title
        )
        return rfi_dict(values, body.assignee_ids, [])

    async def update(
        self, uow: UnitOfWork, ctx: ProjectContext, rfi_id: str, body: RfiUpdate
    ) -> dict[str, Any]:
        """Edits and workflow steps (``rfi.workflow``); a CLOSED RFI changes only by reopening."""
        db = uow.session
        refused = body.refused_nulls()
        if refused:
            raise InvalidField(refused[0], "cannot be null")
        given = body.model_fields_set
        if body.answer_message_id is not None and body.status != ANSWERED:
            raise InvalidField("answerMessageId", 'is only accepted with status "ANSWERED"')
        rfi = await visible_rfi(db, ctx, rfi_id, for_update=True)
        responders = (await ASSIGNEES.of(db, [rfi.id]))[rfi.id]
        current = rfi.status
        step: tuple[str, str] | None = None
        if body.status is not None and (body.status != current or body.answer_message_id):
            step = (current, body.status)
            if step not in STEPS:
                raise RfiTransitionRefused(current, body.status)
        fields = [name for name in EDITABLE if name in given]
        if "assignee_ids" in given:
            fields.append("assignee_ids")
        if current == CLOSED and step is None and fields:
            raise RfiClosed()
        self._check_actor(ctx, rfi, responders, step, fields, body)

        before = _snapshot(rfi, responders)
        new_responders = responders
        if "assignee_ids" in given and body.assignee_ids is not None:
            new_responders = body.assignee_ids
            await self._check_people(db, ctx, new_responders, None)
        if (
            "manager_id" in given
            and body.manager_id is not None
            and body.manager_id != rfi.manager_id
        ):
            await self._check_people(db, ctx, [], body.manager_id)
        await self._check_references(
            db,
            ctx,
            body.file_version_id if "file_version_id" in given else None,
            body.issue_ids if "issue_ids" in given and body.issue_ids else [],
        )
        final_status = step[1] if step else current
        if final_status == IN_REVIEW and not new_responders:
            if step is not None:
                raise RfiTransitionRefused(current, IN_REVIEW, "it needs at least one responder")
            raise InvalidField("assigneeIds", "an RFI in review keeps at least one responder")
        message = None
        if step == (IN_REVIEW, ANSWERED):
            if body.answer_message_id is None:
                raise RfiTransitionRefused(
                    current, ANSWERED, "name the message that answers it (answerMessageId)"
                )
            message = await rfi_repository.message(db, rfi.id, body.answer_message_id)
            if message is None:
                raise RfiTransitionRefused(
                    current, ANSWERED, "answerMessageId is not a message of this RFI"
                )

        for name in EDITABLE:
            if name in given:
                value = getattr(body, name)
                setattr(rfi, name, value.model_dump() if name == "pin" and value else value)
        if new_responders != responders:
            await ASSIGNEES.set(db, rfi.id, new_responders)
        now = clock.now()
        changes = diff(before, _snapshot(rfi, new_responders))
        status_changes: dict[str, list[Any]] = {}
        if step is not None:
            status_changes = self._apply_step(ctx, rfi, step, message, now)
        if changes or status_changes:
            rfi.updated_at = now
        await db.flush()
        if changes:
            await audit_change(db, ctx, ("rfi", rfi.id), "rfi.updated", changes)
        notified: set[str] = set()
        if step is not None:
            spec = STEPS[step]
            await audit_change(db, ctx, ("rfi", rfi.id), spec.action, status_changes)
            recipients = new_responders if spec.to_responders else [rfi.manager_id]
            notified = set(
                await notification.notify(
                    db,
                    recipients,
                    kind=spec.notify,
                    title=spec.title.format(n=rfi.rfi_number, title=rfi.title),
                    href=f"/projects/{rfi.project_id}/rfi/{rfi.id}",
                    workspace_id=rfi.workspace_id,
                    project_id=rfi.project_id,
                    actor_id=ctx.user_id,
                )
            )
        added = [user_id for user_id in new_responders if user_id not in responders]
        # A responder added by the same request that sends the RFI to them hears about it once.
        new = [u for u in added if u not in notified]
        await ASSIGNED.send(uow, ctx, new, record_id=rfi.id, number=rfi.rfi_number, title=rfi.title)
        return await self._view(db, rfi, new_responders)

    def _check_actor(
        self,
        ctx: ProjectContext,
        rfi: Rfi,
        responders: Sequence[str],
        step: tuple[str, str] | None,
        fields: Sequence[str],
        body: RfiUpdate,
    ) -> None:
        """Externals only answer; the manager (or MANAGER+, or a key) moves the RFI along and
        hands it to another manager; responders may also answer."""
        is_manager = ctx.can(Permission.RECORDS_CLOSE) or (
            ctx.user_id is not None and ctx.user_id == rfi.manager_id
        )
        is_responder = ctx.user_id is not None and ctx.user_id in responders
        if ctx.is_external and (fields or step not in RESPONDER_STEPS):
            raise Forbidden("External collaborators can only answer the RFIs they respond to")
        if step is not None:
            if step in RESPONDER_STEPS:
                if not (is_manager or is_responder):
                    raise NotRfiResponder()
            elif not is_manager:
                raise NotRfiManager()
        if "manager_id" in fields and body.manager_id != rfi.manager_id and not is_manager:
            raise NotRfiManager(
                "Only the RFI's manager or a project manager can change its manager"
            )

    def _apply_step(
        self,
        ctx: ProjectContext,
        rfi: Rfi,
        step: tuple[str, str],
        message: RfiMessage | None,
        now: Any,
    ) -> dict[str, list[Any]]:
        before = FIELDS.audited(rfi, STEP_FIELDS)
        target = step[1]
        rfi.status = target
        if target == IN_REVIEW:
            # Reopened: the old answer no longer stands; the audit log keeps it.
            rfi.official_response = None
            rfi.answered_at = None
            rfi.answered_by = None
            rfi.closed_at = None
        elif target == ANSWERED and message is not None:
            rfi.official_response = {
                "messageId": message.id,
                "body": message.body,
                "createdBy": message.created_by,
            }
            rfi.answered_at = now
            rfi.answered_by = ctx.user_id
        elif target == CLOSED:
            rfi.closed_at = now
        return diff(before, FIELDS.audited(rfi, STEP_FIELDS))

    async def delete(self, db: AsyncSession, ctx: ProjectContext, rfi_id: str) -> None:
        """Soft delete; members delete only the RFIs they created."""
        rfi = await visible_rfi(db, ctx, rfi_id, for_update=True)
        await soft_delete(
            db,
            ctx,
            rfi,
            entity_type="rfi",
            action="rfi.deleted",
            refusal="Members can delete only the RFIs they created",
        )

    # ---- helpers -----------------------------------------------------------------------------

    async def _check_people(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        responders: Sequence[str],
        manager_id: str | None,
    ) -> None:
        """Responders: people who can see the project (internal, or named contractors and
        subcontractors). The manager: an internal member who can see it."""
        wanted = [*responders, *([manager_id] if manager_id else [])]
        people = await assignable(db, ctx, wanted)
        for user_id in responders:
            if user_id not in people:
                raise InvalidField("assigneeIds", f"{user_id} cannot respond on this project")
        if manager_id is not None and not people.get(manager_id):
            raise InvalidField("managerId", f"{manager_id} cannot manage RFIs on this project")

    async def _check_references(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        file_version_id: str | None,
        issue_ids: Sequence[str],
    ) -> None:
        await references.require(db, ctx, FILE_VERSION, "fileVersionId", file_version_id)
        await references.require(db, ctx, ISSUE, "issueIds", issue_ids)


rfi = RfiService()
