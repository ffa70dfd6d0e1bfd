"""Completing an inspection run: required items answered, exactly once, follow-up work orders
through the issue service, the template's next due date advanced.

A completed run is read-only; completing it again answers the completed run and does nothing
more, also when two completions race (one conditional UPDATE decides)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from plumbline.audit.service import audit_change
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import ValidationFailed
from plumbline.issue.schemas import IssueCreate
from plumbline.issue.service import issue as issue_service
from plumbline.kit import clock
from plumbline.models import InspectionRun, InspectionTemplate
from plumbline.om.inspections import repository as repo
from plumbline.om.inspections.schemas import RunComplete
from plumbline.om.inspections.service import ENTITY, runs
from plumbline.om.recurrence import advance, zone

MAX_CATCH_UP = 1000


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


def _follow_up(
    run: InspectionRun, item: dict[str, Any], result: dict[str, Any], when: datetime
) -> IssueCreate:
    """The INSPECTION_FOLLOWUP work order of a failed item: HIGH, on the run's asset."""
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


class CompletionService:
    async def complete_run(
        self, uow: UnitOfWork, ctx: ProjectContext, run_id: str, body: RunComplete
    ) -> dict[str, Any]:
        """Check the required items, complete the run once, raise one INSPECTION_FOLLOWUP work
        order per failed item whose template says so, advance the template's next due date."""
        db = uow.session
        run = await runs.require(db, ctx, run_id)
        if run.status == "COMPLETED":
            return await runs.read(db, run)
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
        user = ctx.principal.user
        signer = body.signed_by or run.signed_by or (user.name if user is not None else None)
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
            return await runs.read(db, run)
        for name, value in values.items():
            setattr(run, name, value)
        run.status = "COMPLETED"
        follow_ups = []
        for item in failed:
            if item["onFail"] == "CREATE_WORK_ORDER":
                order = await issue_service.create(
                    uow, ctx, _follow_up(run, item, results[item["id"]], now)
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
        await audit_change(db, ctx, (ENTITY, run.id), "inspection_run.completed", changes)
        return await runs.read(db, run)


completion = CompletionService()
