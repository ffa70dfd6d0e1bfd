"""Inspection runs: started from a live template (MEMBER and the collaborators they are assigned
to), results checked against the run's own copy of the template's items, photos, the report;
completing a run is ``completion``'s, templates are ``templates``'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import ValidationFailed, found
from plumbline.events.readers import reader
from plumbline.kit.pagination import PageParams
from plumbline.kit.storage import get_storage
from plumbline.models import InspectionRun
from plumbline.om.inspections import report
from plumbline.om.inspections import repository as repo
from plumbline.om.inspections.errors import ExternalCannotReassign, RunCompleted, RunNotFound
from plumbline.om.inspections.repository import PHOTO_ENTITY, RUN_FIELDS
from plumbline.om.inspections.schemas import Result, RunCreate, RunUpdate
from plumbline.records import add_record, references, soft_delete
from plumbline.records.references import ASSET, INSPECTION_TEMPLATE
from plumbline.records.uploads import RecordFiles, Uploads
from plumbline.records.visibility import Visibility

ENTITY = "inspection_run"
PHOTOS = Uploads(PHOTO_ENTITY, max_bytes=15 * 1024 * 1024, max_count=60)
REPORT_PHOTOS = 24
NO_PHOTOS: tuple[()] = ()
AUDITED = ("assetId", "assigneeId", "results", "signedBy")
# The outcomes each item type takes (NA everywhere: "not applicable" answers any item).
OUTCOMES = {
    "CHECK": {"DONE", "NA"},
    "PASS_FAIL": {"PASS", "FAIL", "NA"},
    "TEXT": {"PASS", "FAIL", "NA", "DONE"},
    "NUMBER": {"PASS", "FAIL", "NA", "DONE"},
    "PHOTO": {"PASS", "FAIL", "NA", "DONE"},
}


def visibility(ctx: ProjectContext) -> Visibility:
    """Internal members and keys see every run of the project, a collaborator the runs
    assigned to them (clients reach no O&M route)."""
    return Visibility(ctx.project.id, True, ctx.user_id if ctx.is_external else None)


async def with_photos(db: AsyncSession, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    photos = await PHOTOS.of(db, [run["id"] for run in runs])
    for run in runs:
        run["photos"] = photos.get(run["id"], [])
    return runs


async def as_read(db: AsyncSession, rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Rows of ``RUN_FIELDS.columns`` then ``has_photos`` as the API answers them: the photo
    query only for the runs that have photos (none for a page without any)."""
    photos = await PHOTOS.of(db, [row[0] for row in rows if row[-1]])
    # One shared empty tuple (orjson writes []) rather than a new list per row.
    return [RUN_FIELDS.row(row, photos=photos.get(row[0], NO_PHOTOS)) for row in rows]


@reader("inspection_run")
async def runs_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {run["id"]: run for run in await as_read(db, await repo.rows_by_id(db, ids))}


class RunService:
    async def require(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> InspectionRun:
        """A run the caller sees, else 404."""
        return found(await repo.get_run(db, visibility(ctx), run_id), RunNotFound())

    async def _draft(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> InspectionRun:
        run = await self.require(db, ctx, run_id)
        if run.status != "DRAFT":
            raise RunCompleted()
        return run

    async def read(self, db: AsyncSession, run: InspectionRun) -> dict[str, Any]:
        """The run as the API answers it, with its photos."""
        return (await with_photos(db, [RUN_FIELDS.read(RUN_FIELDS.of(run))]))[0]

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
        """The runs the caller sees, newest first; one query for the rows and, when some of
        them have photos, one for those photos."""
        rows, headers = page.finish(
            await repo.list_runs(
                db, visibility(ctx), page, template_id=template_id, asset_id=asset_id, status=status
            )
        )
        return await as_read(db, rows), headers

    async def get_run(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> dict[str, Any]:
        """One run the caller sees (404 otherwise)."""
        return await self.read(db, await self.require(db, ctx, run_id))

    async def create_run(
        self, db: AsyncSession, ctx: ProjectContext, body: RunCreate
    ) -> dict[str, Any]:
        """A DRAFT run of a live template of this project (400 naming ``templateId``
        otherwise), with a copy of its items. A collaborator's run is assigned to them (they
        work only on their own)."""
        assignee = body.assignee_id
        if ctx.is_external:
            if assignee not in (None, ctx.user_id):
                raise ExternalCannotReassign()
            assignee = ctx.user_id
        template = await repo.get_template(db, ctx.project.id, body.template_id)
        if template is None:
            raise references.refused(INSPECTION_TEMPLATE, "templateId")
        await references.require(db, ctx, ASSET, "assetId", body.asset_id)
        await references.require_assignee(db, ctx, assignee)
        run = await add_record(
            db,
            ctx,
            InspectionRun,
            template_id=template.id,
            asset_id=body.asset_id,
            assignee_id=assignee,
            status="DRAFT",
            template_name=template.name,
            items=list(template.items),
            results=[],
            failed_count=0,
            follow_ups=[],
        )
        changes = created({"templateId": run.template_id, **RUN_FIELDS.audited(run, AUDITED)})
        await audit_change(db, ctx, (ENTITY, run.id), "inspection_run.created", changes)
        return await self.read(db, run)

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
                message = f"a {item['type']} item takes {allowed}"
                problems.append({"field": f"{where}.outcome", "message": message})
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
        """Save a DRAFT run's results (merged by item), asset, assignee (not by a
        collaborator: 403) and signer; a completed run is read-only (409)."""
        run = await self._draft(db, ctx, run_id)
        sent = body.model_fields_set
        before = RUN_FIELDS.audited(run, AUDITED)
        if "assignee_id" in sent and body.assignee_id != run.assignee_id:
            if ctx.is_external:
                raise ExternalCannotReassign()
            await references.require_assignee(db, ctx, body.assignee_id)
            run.assignee_id = body.assignee_id
        if "asset_id" in sent and body.asset_id != run.asset_id:
            await references.require(db, ctx, ASSET, "assetId", body.asset_id)
            run.asset_id = body.asset_id
        if "signed_by" in sent:
            run.signed_by = body.signed_by
        if body.results is not None:
            run.results = await self._results(db, run, body.results)
        after = RUN_FIELDS.audited(run, AUDITED)
        await audit_update(db, ctx, (ENTITY, run), "inspection_run.updated", before, after)
        return await self.read(db, run)

    async def delete_run(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> None:
        """Discard a DRAFT run (started by mistake): MANAGER+ any, a MEMBER their own. A
        completed run is a compliance record and stays (409)."""
        run = await self._draft(db, ctx, run_id)
        await soft_delete(
            db,
            ctx,
            run,
            entity_type=ENTITY,
            action="inspection_run.deleted",
            refusal="You can delete only the inspection runs you started",
        )

    async def report(self, db: AsyncSession, ctx: ProjectContext, run_id: str) -> tuple[bytes, str]:
        """The run's PDF (``report.pdf``) and its file name; photos of items are captioned with
        the item, the others with their file name (at most ``REPORT_PHOTOS``)."""
        run = await self.require(db, ctx, run_id)
        view = RUN_FIELDS.read(RUN_FIELDS.of(run), photos=[])
        asset = None
        if run.asset_id is not None:
            row = await repo.asset_of_project(db, ctx.project.id, run.asset_id, live=False)
            asset = dict(row._mapping) if row is not None else None
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


runs = RunService()
# Photos of a DRAFT run only: images, 15 MB, 60 a run; completing is idempotent.
run_photos = RecordFiles(PHOTOS, runs._draft)
