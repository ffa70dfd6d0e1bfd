"""Inspection templates (MANAGER+): the checklist and when its walks are due."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField, found
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import InspectionTemplate
from plumbline.om.inspections import repository as repo
from plumbline.om.inspections.errors import TemplateNotFound
from plumbline.om.inspections.repository import TEMPLATE_FIELDS
from plumbline.om.inspections.schemas import (
    InspectionTemplateCreate,
    InspectionTemplateUpdate,
    TemplateItem,
)
from plumbline.om.recurrence import local_day, zone
from plumbline.records import add_record, soft_delete

ENTITY = "inspection_template"
AUDITED = ("name", "description", "frequency", "intervalDays", "nextDueAt", "items")


def _items(items: list[TemplateItem]) -> list[Any]:
    """Items as stored: each keeps the id it was sent with or gets a new one."""
    return [item.model_dump(by_alias=True) | {"id": item.id or new_id()} for item in items]


def _check_interval(frequency: str, interval_days: int | None) -> None:
    if frequency == "CUSTOM" and interval_days is None:
        raise InvalidField("intervalDays", "required for a CUSTOM frequency")
    if frequency != "CUSTOM" and interval_days is not None:
        raise InvalidField("intervalDays", "only a CUSTOM frequency takes intervalDays")


def _read(template: InspectionTemplate) -> dict[str, Any]:
    return TEMPLATE_FIELDS.read(TEMPLATE_FIELDS.of(template))


class TemplateService:
    async def list_templates(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's live templates, newest first."""
        rows, headers = page.finish(await repo.list_templates(db, ctx.project.id, page))
        return [TEMPLATE_FIELDS.row(row) for row in rows], headers

    async def require(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str
    ) -> InspectionTemplate:
        """A live template of the caller's project, else 404."""
        return found(await repo.get_template(db, ctx.project.id, template_id), TemplateNotFound())

    async def get_template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str
    ) -> dict[str, Any]:
        """One live template of the project (404 otherwise)."""
        return _read(await self.require(db, ctx, template_id))

    async def create_template(
        self, db: AsyncSession, ctx: ProjectContext, body: InspectionTemplateCreate
    ) -> dict[str, Any]:
        """The first walk is due at ``nextDueAt``, else now (due today), as for maintenance
        schedules; ``intervalDays`` with CUSTOM only."""
        _check_interval(body.frequency, body.interval_days)
        first = body.next_due_at or clock.now()
        template = await add_record(
            db,
            ctx,
            InspectionTemplate,
            name=body.name,
            description=body.description,
            frequency=body.frequency,
            interval_days=body.interval_days,
            anchor_day=local_day(first, zone(ctx.project.timezone)).day,
            next_due_at=first,
            items=_items(body.items),
        )
        changes = created(TEMPLATE_FIELDS.audited(template, AUDITED))
        await audit_change(db, ctx, (ENTITY, template.id), "inspection_template.created", changes)
        return _read(template)

    async def update_template(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        template_id: str,
        body: InspectionTemplateUpdate,
    ) -> dict[str, Any]:
        """A new frequency, interval or due date re-anchors on the due date's day; new items
        apply to the runs started afterwards."""
        template = await self.require(db, ctx, template_id)
        sent = body.model_fields_set
        before = TEMPLATE_FIELDS.audited(template, AUDITED)
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
        after = TEMPLATE_FIELDS.audited(template, AUDITED)
        action = "inspection_template.updated"
        await audit_update(db, ctx, (ENTITY, template), action, before, after)
        return _read(template)

    async def delete_template(
        self, db: AsyncSession, ctx: ProjectContext, template_id: str
    ) -> None:
        """Soft delete: its runs stay (and their reports); no new run can start from it."""
        template = await self.require(db, ctx, template_id)
        await soft_delete(
            db,
            ctx,
            template,
            entity_type=ENTITY,
            action="inspection_template.deleted",
            refusal="Only managers delete inspection templates",
        )


templates = TemplateService()
