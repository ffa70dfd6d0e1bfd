"""Inspection rules: templates (MANAGER+), runs (MEMBER and the collaborators they are
assigned to), results checked against the run's own copy of the template's items, completion
exactly once, follow-up work orders through the issue service, the template's next due date.

Completion: a completed run is read-only; completing it again answers the completed run and
does nothing more, also when two completions race (one conditional UPDATE decides)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidField, ValidationFailed
from plumbline.issue.schemas import IssueCreate, PhotoComplete, PhotoPresign
from plumbline.issue.service import issue as issue_service
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.kit.storage import get_storage
from plumbline.models import InspectionRun, InspectionTemplate
from plumbline.om.inspections import report
from plumbline.om.inspections import repository as repo
from plumbline.om.inspections.errors import (
    ExternalCannotReassign,
    RunCompleted,
    RunNotFound,
    TemplateNotFound,
)
from plumbline.om.inspections.repository import PHOTO_ENTITY, RUN_FIELDS, TEMPLATE_FIELDS
from plumbline.om.inspections.schemas import (
    Result,
    RunComplete,
    RunCreate,
    RunUpdate,
    TemplateCreate,
    TemplateItem,
    TemplateUpdate,
)
from plumbline.om.recurrence import advance, local_day, zone
from plumbline.records import references, soft_delete
from plumbline.records.references import ASSET, INSPECTION_TEMPLATE
from plumbline.records.repository import assignable
from plumbline.records.uploads import Uploads

TEMPLATE = "inspection_template"
RUN = "inspection_run"
PHOTOS = Uploads(PHOTO_ENTITY, max_bytes=15 * 1024 * 1024, max_count=60)
TEMPLATE_AUDITED = ("name", "description", "frequency", "intervalDays", "nextDueAt", "items")
REPORT_PHOTOS = 24
MAX_CATCH_UP = 1000
RUN_AUDITED = ("assetId", "assigneeId", "results", "signedBy")
# The outcomes each item type takes (NA everywhere: "not applicable" answers any item).
OUTCOMES = {
    "CHECK": {"DONE", "NA"},
    "PASS_FAIL": {"PASS", "FAIL", "NA"},
    "TEXT": {"PASS", "FAIL", "NA", "DONE"},
    "NUMBER": {"PASS", "FAIL", "NA", "DONE"},
    "PHOTO": {"PASS", "FAIL", "NA", "DONE"},
}


def _items(items: list[TemplateItem], before: list[dict[str, Any]] | None = None) -> list[Any]:
    """Items as stored: each keeps the id it was sent with or gets a new one."""
    return [
        {
            "id": item.id or new_id(),
            "label": item.label,
            "type": item.type,
            "required": item.required,
            "onFail": item.on_fail,
        }
        for item in items
    ]


def _answered(item: dict[str, Any], result: dict[str, Any] | None) -> bool:
    """A result answers its item with an outcome, or with the value or photo its type asks for."""
    if result is None:
        return False
    if result.get("outcome") is not None:
        return True
    kind = item["type"]
    if kind == "PHOTO":
        return bool(result.get("photoUploadId"))
    if kind in ("TEXT", "NUMBER"):
        value = result.get("value")
        return value is not None and (not isinstance(value, str) or bool(value.strip()))
    return False


def next_walk(template: InspectionTemplate, done_at: datetime, tz: ZoneInfo) -> datetime:
    """The due date after a walk at ``done_at``: one interval after the current due date (an
    early walk does not move the calendar), or, when walks were missed, the first due date still
    ahead of ``done_at`` (missed walks are not owed twice)."""
    due = template.next_due_at
    for _ in range(MAX_CATCH_UP):
        due = advance(due, template.frequency, template.interval_days, template.anchor_day, tz)
        if due > done_at:
            return due
    # Years of missed daily walks: start again one interval after this one.
    return advance(done_at, template.frequency, template.interval_days, template.anchor_day, tz)


def _check_interval(frequency: str, interval_days: int | None) -> None:
    if frequency == "CUSTOM" and interval_days is None:
        raise InvalidField("intervalDays", "required for a CUSTOM frequency")
    if frequency != "CUSTOM" and interval_days is not None:
        raise InvalidField("intervalDays", "only a CUSTOM frequency takes intervalDays")


class InspectionService:
    # ---- templates

    async def list_templates(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_templates(db, ctx.project.id, page))
        return [TEMPLATE_FIELDS.row(row) for row in rows], headers

    async def _template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str, *, lock: bool = False
    ) -> InspectionTemplate:
        template = await repo.get_template(db, ctx.project.id, template_id, lock=lock)
        if template is None:
            raise TemplateNotFound()
        return template

    async def get_template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str
    ) -> dict[str, Any]:
        return TEMPLATE_FIELDS.read(TEMPLATE_FIELDS.of(await self._template(db, ctx, template_id)))

    async def create_template(
        self, db: AsyncSession, ctx: ProjectContext, body: TemplateCreate
    ) -> dict[str, Any]:
        """The first walk is due at ``nextDueAt``, else now (due today), as for maintenance
        schedules."""
        _check_interval(body.frequency, body.interval_days)
        now = clock.now()
        tz = zone(ctx.project.timezone)
        first = body.next_due_at or now
        template = InspectionTemplate(
            id=new_id(),
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            name=body.name,
            description=body.description,
            frequency=body.frequency,
            interval_days=body.interval_days,
            anchor_day=local_day(first, tz).day,
            next_due_at=first,
            items=_items(body.items),
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(template)
        await db.flush()
        changes = created(TEMPLATE_FIELDS.audited(template, TEMPLATE_AUDITED))
        await audit_change(db, ctx, (TEMPLATE, template.id), "inspection_template.created", changes)
        return TEMPLATE_FIELDS.read(TEMPLATE_FIELDS.of(template))

    async def update_template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str, body: TemplateUpdate
    ) -> dict[str, Any]:
        """A new frequency, interval or due date re-anchors on the due date's day; new items
        apply to the runs started afterwards."""
        template = await self._template(db, ctx, template_id)
        sent = body.model_fields_set
        before = TEMPLATE_FIELDS.audited(template, TEMPLATE_AUDITED)
        frequency = body.frequency if "frequency" in sent else template.frequency
        interval = body.interval_days if "interval_days" in sent else template.interval_days
        if "frequency" in sent and frequency != "CUSTOM" and "interval_days" not in sent:
            interval = None
        _check_interval(str(frequency), interval)
        for name in ("name", "description"):
            if name in sent:
                setattr(template, name, getattr(body, name))
        if body.items is not None:
            template.items = _items(body.items)
        if sent & {"frequency", "interval_days", "next_due_at"}:
            template.frequency = str(frequency)
            template.interval_days = interval
            template.next_due_at = body.next_due_at or template.next_due_at
            template.anchor_day = local_day(template.next_due_at, zone(ctx.project.timezone)).day
        changes = diff(before, TEMPLATE_FIELDS.audited(template, TEMPLATE_AUDITED))
        if changes:
            template.updated_at = clock.now()
            await audit_change(
                db, ctx, (TEMPLATE, template.id), "inspection_template.updated", changes
            )
            await db.flush()
        return TEMPLATE_FIELDS.read(TEMPLATE_FIELDS.of(template))

    async def delete_template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str
    ) -> None:
        """Soft delete: its runs stay (and their reports); no new run can start from it."""
        template = await self._template(db, ctx, template_id)
        now = clock.now()
        template.deleted_at = now
        template.updated_at = now
        await audit_change(
            db,
            ctx,
            (TEMPLATE, template.id),
            "inspection_template.deleted",
            {"deletedAt": [None, clock.iso(now)]},
        )
        await db.flush()

    # ---- runs

    async def _read_runs(
        self, db: AsyncSession, runs: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        photos = await PHOTOS.of(db, [run["id"] for run in runs])
        for run in runs:
            run["photos"] = photos.get(run["id"], [])
        return runs

    async def _run(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> InspectionRun:
        run = await repo.get_run(db, ctx, run_id)
        if run is None:
            raise RunNotFound()
        return run

    async def _draft(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> InspectionRun:
        run = await self._run(db, ctx, run_id)
        if run.status != "DRAFT":
            raise RunCompleted()
        return run

    async def _read(self, db: AsyncSession, run: InspectionRun) -> dict[str, Any]:
        return (await self._read_runs(db, [RUN_FIELDS.read(RUN_FIELDS.of(run))]))[0]

    async def list_runs(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        page: PageParams,
        *,
        template_id: str | None = None,
        asset_id: str | None = None,
        status: str | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Newest first; one query for the rows, one for their photos."""
        found = await repo.list_runs(
            db, ctx, page, template_id=template_id, asset_id=asset_id, status=status
        )
        rows, headers = page.finish(found)
        return await self._read_runs(db, [RUN_FIELDS.row(row) for row in rows]), headers

    async def get_run(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> dict[str, Any]:
        return await self._read(db, await self._run(db, ctx, run_id))

    async def _assignee(self, db: AsyncSession, ctx: ProjectContext, user_id: str | None) -> None:
        if user_id is not None and user_id not in await assignable(db, ctx, [user_id]):
            raise InvalidField(
                "assigneeId", "the assignee must be someone who can work on this project"
            )

    async def create_run(
        self, db: AsyncSession, ctx: ProjectContext, body: RunCreate
    ) -> dict[str, Any]:
        """A DRAFT run of a live template of this project (404 otherwise), with a copy of its
        items. A collaborator's run is assigned to them (they work only on their own)."""
        assignee = body.assignee_id
        if ctx.is_external:
            if assignee not in (None, ctx.user_id):
                raise ExternalCannotReassign()
            assignee = ctx.user_id
        template = await repo.get_template(db, ctx.project.id, body.template_id)
        if template is None:
            raise references.refused(INSPECTION_TEMPLATE, "templateId")
        await references.require(db, ctx, ASSET, "assetId", body.asset_id)
        await self._assignee(db, ctx, assignee)
        now = clock.now()
        run = InspectionRun(
            id=new_id(),
            project_id=ctx.project.id,
            workspace_id=ctx.workspace.id,
            template_id=template.id,
            asset_id=body.asset_id,
            assignee_id=assignee,
            status="DRAFT",
            template_name=template.name,
            items=list(template.items),
            results=[],
            failed_count=0,
            follow_ups=[],
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(run)
        await db.flush()
        changes = created({"templateId": run.template_id, **RUN_FIELDS.audited(run, RUN_AUDITED)})
        await audit_change(db, ctx, (RUN, run.id), "inspection_run.created", changes)
        return await self._read(db, run)

    async def _results(
        self, db: AsyncSession, run: InspectionRun, sent: list[Result]
    ) -> list[dict[str, Any]]:
        """The run's results with ``sent`` merged in by item, each checked against the run's
        items: unknown items, outcomes the item's type does not take, photos not of this run
        are 400s naming every bad result."""
        items = {item["id"]: item for item in run.items}
        photos: set[str] | None = None
        problems: list[dict[str, Any]] = []
        unknown: list[str] = []
        merged = {result["itemId"]: result for result in run.results}
        for index, result in enumerate(sent):
            item = items.get(result.item_id)
            where = f"results[{index}]"
            if item is None:
                unknown.append(result.item_id)
                problems.append({"field": f"{where}.itemId", "message": "not an item of this run"})
                continue
            if result.outcome is not None and result.outcome not in OUTCOMES[item["type"]]:
                allowed = ", ".join(sorted(OUTCOMES[item["type"]]))
                problems.append(
                    {
                        "field": f"{where}.outcome",
                        "message": f"a {item['type']} item takes {allowed}",
                    }
                )
            if item["type"] == "NUMBER" and isinstance(result.value, str):
                problems.append({"field": f"{where}.value", "message": "must be a number"})
            if item["type"] != "NUMBER" and isinstance(result.value, float | int):
                problems.append({"field": f"{where}.value", "message": "must be text"})
            if result.photo_upload_id is not None:
                if photos is None:
                    photos = {key for row in await repo.run_photos(db, run.id) for key in row[:2]}
                if result.photo_upload_id not in photos:
                    problems.append(
                        {"field": f"{where}.photoUploadId", "message": "not a photo of this run"}
                    )
            merged[result.item_id] = {
                "itemId": result.item_id,
                "outcome": result.outcome,
                "value": result.value,
                "note": result.note,
                "photoUploadId": result.photo_upload_id,
            }
        if problems:
            first = problems[0]
            raise ValidationFailed(
                f"Invalid {first['field']}: {first['message']}",
                details=problems,
                unknownItemIds=unknown,
            )
        # In the order of the items, so the report and the API read like the checklist.
        return [merged[item_id] for item_id in items if item_id in merged]

    async def update_run(
        self, db: AsyncSession, ctx: ProjectContext, run_id: str, body: RunUpdate
    ) -> dict[str, Any]:
        run = await self._draft(db, ctx, run_id)
        sent = body.model_fields_set
        before = RUN_FIELDS.audited(run, RUN_AUDITED)
        if "assignee_id" in sent and body.assignee_id != run.assignee_id:
            if ctx.is_external:
                raise ExternalCannotReassign()
            await self._assignee(db, ctx, body.assignee_id)
            run.assignee_id = body.assignee_id
        if "asset_id" in sent and body.asset_id != run.asset_id:
            await references.require(db, ctx, ASSET, "assetId", body.asset_id)
            run.asset_id = body.asset_id
        if "signed_by" in sent:
            run.signed_by = body.signed_by
        if body.results is not None:
            run.results = await self._results(db, run, body.results)
        changes = diff(before, RUN_FIELDS.audited(run, RUN_AUDITED))
        if changes:
            run.updated_at = clock.now()
            await audit_change(db, ctx, (RUN, run.id), "inspection_run.updated", changes)
            await db.flush()
        return await self._read(db, run)

    async def complete_run(
        self, uow: UnitOfWork, ctx: ProjectContext, run_id: str, body: RunComplete
    ) -> dict[str, Any]:
        """Check the required items, complete the run once, raise one INSPECTION_FOLLOWUP work
        order per failed item whose template says so, advance the template's next due date."""
        db = uow.session
        run = await self._run(db, ctx, run_id)
        if run.status == "COMPLETED":
            return await self._read(db, run)
        results = {result["itemId"]: result for result in run.results}
        missing = [
            item
            for item in run.items
            if item["required"] and not _answered(item, results.get(item["id"]))
        ]
        if missing:
            labels = "; ".join(item["label"] for item in missing)
            raise ValidationFailed(
                f"Required items are not answered: {labels}",
                details=[
                    {"field": f"items.{item['id']}", "message": f"required: {item['label']}"}
                    for item in missing
                ],
                missingItemIds=[item["id"] for item in missing],
            )
        now = clock.now()
        signer = body.signed_by or run.signed_by or self._caller_name(ctx)
        failed = [
            item for item in run.items if (results.get(item["id"]) or {}).get("outcome") == "FAIL"
        ]
        values = {
            "completed_at": now,
            "completed_by": ctx.user_id,
            "signed_by": signer,
            "failed_count": len(failed),
            "updated_at": now,
        }
        if not await repo.claim_completion(db, run.id, values):
            # Another request completed it first: answer what it recorded.
            await db.refresh(run)
            return await self._read(db, run)
        for name, value in values.items():
            setattr(run, name, value)
        run.status = "COMPLETED"
        follow_ups = []
        for item in failed:
            if item["onFail"] == "CREATE_WORK_ORDER":
                order = await issue_service.create(
                    uow, ctx, self._follow_up(run, item, results[item["id"]], now)
                )
                follow_ups.append({"id": order["id"], "number": order["number"]})
        run.follow_ups = follow_ups
        template = await repo.get_template(db, ctx.project.id, run.template_id, lock=True)
        advanced: dict[str, Any] = {}
        if template is not None:
            previous = template.next_due_at
            template.next_due_at = next_walk(template, now, zone(ctx.project.timezone))
            advanced = {"templateNextDueAt": [clock.iso(previous), clock.iso(template.next_due_at)]}
        await db.flush()
        changes = {
            "status": ["DRAFT", "COMPLETED"],
            "signedBy": [None, signer],
            "failedCount": [None, len(failed)],
            "followUpWorkOrders": [None, [order["id"] for order in follow_ups]],
            **advanced,
        }
        await audit_change(db, ctx, (RUN, run.id), "inspection_run.completed", changes)
        return await self._read(db, run)

    def _caller_name(self, ctx: ProjectContext) -> str | None:
        user = ctx.principal.user
        return user.name if user is not None else None

    def _follow_up(
        self, run: InspectionRun, item: dict[str, Any], result: dict[str, Any], when: datetime
    ) -> IssueCreate:
        note = result.get("note")
        lines = [
            f'Failed on the inspection "{run.template_name}" completed {clock.iso(when)}.',
            f"Item: {item['label']}",
        ]
        if note:
            lines.append(f"Inspector's note: {note}")
        return IssueCreate(
            title=f"Inspection follow-up: {item['label']}"[:500],
            description="\n".join(lines),
            issue_kind="WORK_ORDER",
            work_order_type="INSPECTION_FOLLOWUP",
            priority="HIGH",
            asset_id=run.asset_id,
        )

    async def delete_run(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> None:
        """Discard a DRAFT run (started by mistake): MANAGER+ any, a MEMBER their own. A
        completed run is a compliance record and stays (409)."""
        run = await self._draft(db, ctx, run_id)
        await soft_delete(
            db,
            ctx,
            run,
            entity_type=RUN,
            action="inspection_run.deleted",
            refusal="You can delete only the inspection runs you started",
        )

    # ---- photos

    async def presign_photo(
        self, db: AsyncSession, ctx: ProjectContext, run_id: str, body: PhotoPresign
    ) -> dict[str, Any]:
        """An upload target for a photo of a DRAFT run: images only, 15 MB, 60 per run."""
        return await PHOTOS.presign(db, ctx, await self._draft(db, ctx, run_id), body)

    async def complete_photo(
        self, db: AsyncSession, ctx: ProjectContext, run_id: str, body: PhotoComplete
    ) -> dict[str, Any]:
        return await PHOTOS.complete(db, ctx, await self._draft(db, ctx, run_id), body)

    async def report(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> tuple[bytes, str]:
        """The run's PDF (``report.pdf``) and its file name; photos of items are captioned with
        the item, the others with their file name (at most ``REPORT_PHOTOS``)."""
        run = await self._run(db, ctx, run_id)
        view = RUN_FIELDS.read(RUN_FIELDS.of(run), photos=[])
        asset = None
        if run.asset_id is not None:
            found = await repo.asset_of_project(db, ctx.project.id, run.asset_id, live=False)
            asset = dict(found._mapping) if found is not None else None
        labels = {item["id"]: item["label"] for item in run.items}
        by_photo = {
            result["photoUploadId"]: labels.get(result["itemId"], "")
            for result in run.results
            if result.get("photoUploadId")
        }
        storage = get_storage()
        photos = []
        for row in (await repo.run_photos(db, run.id))[:REPORT_PHOTOS]:
            caption = by_photo.get(row.id) or by_photo.get(row.upload_id) or row.file_name
            chunks = [c async for c in storage.open_range(row.storage_key, 0, row.size_bytes - 1)]
            photos.append((b"".join(chunks), caption))
        data = report.ReportInput(
            run=view,
            project_name=ctx.project.name,
            workspace_name=ctx.workspace.name,
            asset=asset,
            photos=photos,
            dated=run.completed_at or run.updated_at,
        )
        return report.pdf(data), report.filename(view)


inspections = InspectionService()
