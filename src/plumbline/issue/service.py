"""Issue rules: numbering, kinds, status stamps, assignment, visibility, audit, notifications."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit, audit_update, created
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden, InvalidField
from plumbline.events.readers import reader
from plumbline.issue import hooks
from plumbline.issue import repository as repo
from plumbline.issue.access import require_entity, require_row, require_shared
from plumbline.issue.checklist import checklist
from plumbline.issue.errors import ExternalCannotReassign, ExternalIdTaken, WorkOrderHasCosts
from plumbline.issue.export import stream_csv
from plumbline.issue.filters import IssueFilters
from plumbline.issue.photos import PHOTOS
from plumbline.issue.repository import FIELDS
from plumbline.issue.schemas import COSTED, IssueCreate, IssueUpdate
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.ordering import Order
from plumbline.kit.pagination import PageParams
from plumbline.models import Issue
from plumbline.records import Notice, references, soft_delete
from plumbline.records import repository as records_repo
from plumbline.records.references import ASSET, FILE, FILE_VERSION, MAINTENANCE_SCHEDULE
from plumbline.records.repository import file_of_version
from plumbline.viewer.events import publish_to_version

# Audited fields (their columns are what a create or update may write).
AUDITED = (
    "externalId",
    "title",
    "description",
    "status",
    "priority",
    "issueKind",
    "assigneeId",
    "dueDate",
    "location",
    "fileId",
    "fileVersionId",
    "pageNumber",
    "pin",
    "assetId",
    "workOrderType",
    "maintenanceScheduleId",
    "checklist",
    "statusChangedAt",
    "resolvedAt",
    "closedAt",
)
AUDITED_COLUMNS = tuple(zip(AUDITED, FIELDS.columns_of(AUDITED), strict=True))
NO_PHOTOS: tuple[()] = ()
# Converting an occupant request into a work order is a manager's decision (API keys act as one).
MANAGER_POWER = Permission.RECORDS_CLOSE
DONE = ("RESOLVED", "CLOSED")
# A new work order's cost totals (om.costs keeps them as its lines change).
NO_COSTS = dict.fromkeys(("parts", "labour", "other", "total"), "0.00")
ASSIGNED = Notice("ISSUE_ASSIGNED", "You were assigned issue #{n}: {title}", "issue #{n}", "issues")


def _changed(changes: dict[str, Any], column: str, current: str | None) -> str | None:
    """The id a PATCH sets in ``column`` when it names a new one (None otherwise)."""
    value = changes.get(column)
    return value if value != current else None


def _announce(uow: UnitOfWork, issue_id: str, action: str, *version_ids: str | None) -> None:
    """After the commit, tell whoever views the drawing versions the issue is (or was) pinned on:
    ``issues_changed`` on their co-viewing stream (PRODUCT §7)."""
    data = {"issueId": issue_id, "action": action}
    for version_id in dict.fromkeys(v for v in version_ids if v is not None):
        uow.after_commit(partial(publish_to_version, version_id, "issues_changed", data))


def _stamp_status(issue: Issue, status: str) -> None:
    """Any status may follow any other; RESOLVED and CLOSED stamp their time, reopening clears."""
    now = clock.now()
    issue.status = status
    issue.status_changed_at = now
    if status == "RESOLVED":
        issue.resolved_at = now
        issue.closed_at = None
    elif status == "CLOSED":
        issue.closed_at = now
    else:
        issue.resolved_at = None
        issue.closed_at = None


def new_issue(
    project_id: str, workspace_id: str, principal: Principal, **columns: Any
) -> dict[str, Any]:
    """Every column of a new issue (but its number): ``columns`` over the defaults."""
    now = clock.now()
    status = columns.get("status", "OPEN")
    return {
        **dict.fromkeys(column.key for column in repo.INSERTED),  # null unless set below
        "id": new_id(),
        "project_id": project_id,
        "workspace_id": workspace_id,
        "priority": "MEDIUM",
        "issue_kind": "CONSTRUCTION",
        "checklist": [],
        **columns,
        "costs": NO_COSTS if columns.get("issue_kind") in COSTED else None,
        "status": status,
        "created_by": principal.user_id,
        "created_key_id": principal.key_id,
        "created_at": now,
        "updated_at": now,
        "status_changed_at": now,
        "resolved_at": now if status == "RESOLVED" else None,
        "closed_at": now if status == "CLOSED" else None,
    }


@reader("issue")
async def issues_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """As the list reads them: the photo query only for issues that have photos (a create's
    event costs one query)."""
    rows = await repo.rows_by_id(db, ids)
    photos = await PHOTOS.of(db, [row[0] for row in rows if row[-1]])
    return {row[0]: FIELDS.row(row, referencePhotos=photos.get(row[0]) or []) for row in rows}


class IssueService:
    async def list_issues(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        filters: IssueFilters,
        page: PageParams,
        order: Order | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Newest first, or in ``order``; one query for the rows and, when some of them have
        reference photos, one for those photos."""
        vis = require_shared(ctx)
        filters = filters.of_caller(ctx.user_id)
        rows, headers = page.finish(await repo.list_rows(db, vis, filters, page, order))
        by_issue = await PHOTOS.of(db, [row[0] for row in rows if row[-1]])
        # One shared empty tuple (orjson writes []) rather than a new list per row: fewer
        # objects for the garbage collector on a 1,000-row page.
        return [
            FIELDS.row(row, referencePhotos=by_issue.get(row[0], NO_PHOTOS)) for row in rows
        ], headers

    async def count(self, db: AsyncSession, ctx: ProjectContext, filters: IssueFilters) -> int:
        """How many issues the filters match (a list's "all N that match")."""
        return await repo.count(db, require_shared(ctx), filters.of_caller(ctx.user_id))

    async def assignees(self, db: AsyncSession, ctx: ProjectContext) -> list[tuple[str, str]]:
        return await records_repo.assignable_people(db, ctx)

    def export(
        self, ctx: ProjectContext, filters: IssueFilters
    ) -> tuple[AsyncIterator[bytes], str]:
        """The CSV stream of the list's rows (same filters, whole result) and its file name."""
        vis = require_shared(ctx)
        label = ctx.project.project_number or ctx.project.id
        conditions = repo.filtered(vis, filters.of_caller(ctx.user_id))
        return stream_csv(conditions), f"issues-{label}.csv"

    async def get(self, db: AsyncSession, ctx: ProjectContext, issue_id: str) -> dict[str, Any]:
        row = await require_row(db, ctx, issue_id)
        by_issue = await PHOTOS.of(db, [issue_id])
        return FIELDS.row(row, referencePhotos=by_issue.get(issue_id) or [])

    async def _resolve_file(
        self, db: AsyncSession, ctx: ProjectContext, file_id: str | None, version_id: str | None
    ) -> tuple[str | None, str | None]:
        """The file and version pinned, checked to belong to this project (the file is filled
        in from the version when only the version is given)."""
        if version_id is not None:
            owner = await file_of_version(db, ctx.project.id, version_id)
            if owner is None:
                raise references.refused(FILE_VERSION, "fileVersionId")
            if file_id is not None and file_id != owner:
                raise InvalidField("fileVersionId", "this version belongs to another file")
            return owner, version_id
        await references.require(db, ctx, FILE, "fileId", file_id)
        return file_id, None

    async def _check_o_and_m(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str | None, schedule_id: str | None
    ) -> None:
        """The asset and the maintenance schedule named are of this project."""
        await references.require(db, ctx, ASSET, "assetId", asset_id)
        await references.require(
            db, ctx, MAINTENANCE_SCHEDULE, "maintenanceScheduleId", schedule_id
        )

    async def _check_external_id(
        self, db: AsyncSession, ctx: ProjectContext, external_id: str | None, own: str | None
    ) -> None:
        """No other live issue of the project has the key (409; the unique index settles a
        race)."""
        if external_id is not None and await repo.external_id_taken(
            db, ctx.project.id, external_id, own
        ):
            raise ExternalIdTaken()

    async def create(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        body: IssueCreate,
        *,
        key_checked: bool = False,
    ) -> dict[str, Any]:
        """A new issue or work order; ``key_checked``: the caller (a bulk upsert) already
        knows that no live issue has its ``externalId``."""
        db = uow.session
        if body.issue_kind == "OCCUPANT":
            raise InvalidField(
                "issueKind", "occupant requests are created through the occupant portal"
            )
        if not key_checked:
            await self._check_external_id(db, ctx, body.external_id, None)
        assignee = body.assignee_id
        await references.require_assignee(db, ctx, assignee)
        file_id, version_id = await self._resolve_file(db, ctx, body.file_id, body.file_version_id)
        await self._check_o_and_m(db, ctx, body.asset_id, body.maintenance_schedule_id)
        values = new_issue(
            ctx.project.id,
            ctx.workspace.id,
            ctx.principal,
            title=body.title,
            description=body.description,
            status=body.status,
            priority=body.priority,
            issue_kind=body.issue_kind,
            external_id=body.external_id,
            assignee_id=body.assignee_id,
            due_date=body.due_date,
            location=body.location,
            file_id=file_id,
            file_version_id=version_id,
            page_number=body.page_number,
            pin=body.pin.model_dump() if body.pin else None,
            asset_id=body.asset_id,
            work_order_type=body.work_order_type
            or ("CORRECTIVE" if body.issue_kind == "WORK_ORDER" else None),
            maintenance_schedule_id=body.maintenance_schedule_id,
            checklist=checklist([item.model_dump() for item in body.checklist]),
        )
        issue = await self.insert(db, ctx.principal, values)
        number, title = issue["number"], issue["title"]
        await ASSIGNED.send(uow, ctx, [assignee], record_id=issue["id"], number=number, title=title)
        _announce(uow, issue["id"], "created", version_id)
        return issue

    async def open_occupant_request(
        self,
        db: AsyncSession,
        principal: Principal,
        *,
        project_id: str,
        workspace_id: str,
        title: str,
        description: str,
        location: str | None,
        asset_id: str | None,
    ) -> dict[str, Any]:
        """An OCCUPANT issue reported through the occupant portal (the link's token is the
        credential, so the audit entry's actor is ``public``)."""
        values = new_issue(
            project_id,
            workspace_id,
            principal,
            title=title,
            description=description,
            issue_kind="OCCUPANT",
            location=location,
            asset_id=asset_id,
        )
        return await self.insert(db, principal, values)

    async def insert(
        self, db: AsyncSession, principal: Principal, values: dict[str, Any]
    ) -> dict[str, Any]:
        """Write a new issue (``new_issue`` values) under the project's next number, audited;
        answers the issue as read."""
        entry = audit.entry(
            db,
            action="issue.created",
            entity_type="issue",
            entity_id=values["id"],
            principal=principal,
            workspace_id=values["workspace_id"],
            project_id=values["project_id"],
            changes=created({name: values[key] for name, key in AUDITED_COLUMNS}),
        )
        # The number's counter row stays locked until the commit, so concurrent creates queue
        # there: the insert is the request's last statement, only the commit comes behind it.
        values["number"] = await repo.insert_issue(db, values, entry)
        return FIELDS.read(FIELDS.of(values), referencePhotos=[])

    async def update(
        self, uow: UnitOfWork, ctx: ProjectContext, issue_id: str, body: IssueUpdate
    ) -> dict[str, Any]:
        db = uow.session
        issue = await require_entity(db, ctx, issue_id)
        await self.change(uow, ctx, issue, body)
        by_issue = await PHOTOS.of(db, [issue.id])
        return FIELDS.read(FIELDS.of(issue), referencePhotos=by_issue.get(issue.id) or [])

    async def change(
        self, uow: UnitOfWork, ctx: ProjectContext, issue: Issue, body: IssueUpdate
    ) -> dict[str, list[Any]]:
        """The fields sent applied to ``issue`` (loaded within what the caller sees) with every
        rule of the PATCH; audited. Returns the changes (none: nothing was written)."""
        db = uow.session
        changes = body.sent()
        if "external_id" in changes and changes["external_id"] != issue.external_id:
            await self._check_external_id(db, ctx, changes["external_id"], issue.id)
        kind = changes.get("issue_kind", issue.issue_kind)
        if kind != issue.issue_kind:
            if kind == "OCCUPANT":
                raise InvalidField(
                    "issueKind", "only the occupant portal creates occupant requests"
                )
            if issue.issue_kind == "OCCUPANT":
                if kind != "WORK_ORDER":
                    raise InvalidField(
                        "issueKind", "an occupant request can only become a work order"
                    )
                if not ctx.can(MANAGER_POWER):
                    raise Forbidden("Only a manager can convert an occupant request")
            if kind == "WORK_ORDER" and not changes.get("work_order_type", issue.work_order_type):
                changes["work_order_type"] = (
                    "OCCUPANT" if issue.issue_kind == "OCCUPANT" else "CORRECTIVE"
                )
            if kind not in COSTED and await repo.has_costs(db, issue.id):
                raise WorkOrderHasCosts()
            changes["costs"] = (issue.costs or NO_COSTS) if kind in COSTED else None
        assignee = None
        new_assignee = changes.get("assignee_id")
        if "assignee_id" in changes and new_assignee != issue.assignee_id:
            if ctx.is_external:  # as for punch: they work on what they are given
                raise ExternalCannotReassign()
            await references.require_assignee(db, ctx, new_assignee)
            assignee = new_assignee
        if "file_id" in changes or "file_version_id" in changes:
            file_id = changes.get("file_id", issue.file_id)
            version_id = changes.get("file_version_id", issue.file_version_id)
            if (file_id, version_id) != (issue.file_id, issue.file_version_id):
                changes["file_id"], changes["file_version_id"] = await self._resolve_file(
                    db, ctx, file_id, version_id
                )
        await self._check_o_and_m(
            db,
            ctx,
            _changed(changes, "asset_id", issue.asset_id),
            _changed(changes, "maintenance_schedule_id", issue.maintenance_schedule_id),
        )
        if "checklist" in changes:
            changes["checklist"] = checklist(changes["checklist"], issue.checklist)
        before = FIELDS.audited(issue, AUDITED)
        status = changes.pop("status", issue.status)
        for column, value in changes.items():
            setattr(issue, column, value)
        if status != issue.status:
            _stamp_status(issue, status)
            if status in DONE:  # a preventive work order done completes its schedule, once
                await hooks.done(db, ctx, issue)
        after = FIELDS.audited(issue, AUDITED)
        done = await audit_update(db, ctx, ("issue", issue), "issue.updated", before, after)
        if done:
            _announce(uow, issue.id, "updated", before["fileVersionId"], issue.file_version_id)
        await ASSIGNED.send(
            uow, ctx, [assignee], record_id=issue.id, number=issue.number, title=issue.title
        )
        return done

    async def delete(self, uow: UnitOfWork, ctx: ProjectContext, issue_id: str) -> None:
        """Soft delete: MANAGER+ (and keys) any issue, a MEMBER only the ones they created."""
        issue = await require_entity(uow.session, ctx, issue_id)
        await soft_delete(
            uow.session,
            ctx,
            issue,
            entity_type="issue",
            action="issue.deleted",
            refusal="You can delete only the issues you created",
        )
        _announce(uow, issue.id, "deleted", issue.file_version_id)


issue = IssueService()
