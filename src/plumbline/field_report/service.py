"""Field-report rules: who may read and write them, derived totals, audit, and e-mailing.

Access: internal members read and write (members delete only their own); CONTRACTOR and
SUBCONTRACTOR collaborators read but do not write; CLIENTs read only when the project sets
``showFieldReports``. A SUBMITTED report goes back to DRAFT only by a MANAGER or above.

E-mail: one message per recipient (recipients never see each other's addresses), each with the
report as a PDF; ``emailCount`` counts the messages sent, ``lastEmailedAt`` the last send.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created, diff
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import found
from plumbline.events.readers import reader
from plumbline.field_report import render
from plumbline.field_report import repository as repo
from plumbline.field_report.errors import (
    FieldReportsHiddenFromClients,
    ManagerOnlyReturnToDraft,
)
from plumbline.field_report.repository import FIELDS
from plumbline.field_report.schemas import (
    FieldReportCreate,
    FieldReportUpdate,
    ReportFilters,
    SendEmail,
)
from plumbline.kit import clock, ratelimit
from plumbline.kit.mail import Attachment, Mail
from plumbline.kit.pagination import PageParams
from plumbline.mail.tasks import queue
from plumbline.models import FieldReport
from plumbline.records import add_record, soft_delete
from plumbline.records.repository import rows_by_id
from plumbline.records.visibility import Visibility

ENTITY = "field_report"
EMAILS_PER_WINDOW = 20
EMAIL_WINDOW_SECONDS = 600
# What a create or update writes, and the audit log compares.
EDITABLE = (
    "title",
    "reportDate",
    "reportKind",
    "status",
    "weather",
    "manpower",
    "workPerformed",
    "delays",
    "safetyNotes",
    "notes",
)
COLUMNS = FIELDS.columns_of(EDITABLE)
SENT = ("lastEmailedAt", "emailCount")


def total_workers(manpower: list[dict[str, Any]] | None) -> int:
    return sum(int(row.get("workers") or 0) for row in manpower or [])


def to_read(values: Mapping[Any, Any]) -> dict[str, Any]:
    return FIELDS.read(values, totalWorkers=total_workers(values["manpower"]))


@reader("field_report")
async def reports_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: to_read(row._mapping) for row in await rows_by_id(db, FIELDS, ids)}


def project_today(ctx: ProjectContext) -> date:
    """Today on the project's site (its time zone), so an evening report gets the right day."""
    try:
        return clock.now().astimezone(ZoneInfo(ctx.project.timezone or "UTC")).date()
    except (ZoneInfoNotFoundError, ValueError):
        return clock.today()


def _stored(values: Mapping[str, Any]) -> dict[str, Any]:
    """Nested request models as the JSON stored (camelCase, like the API)."""
    out = dict(values)
    if out.get("weather") is not None:
        out["weather"] = out["weather"].model_dump(by_alias=True)
    if out.get("manpower") is not None:
        out["manpower"] = [row.model_dump(by_alias=True) for row in out["manpower"]]
    return out


def _unique_addresses(addresses: Iterable[str]) -> list[str]:
    """The first spelling of each address, compared case-insensitively, in the order given."""
    seen: dict[str, str] = {}
    for address in addresses:
        seen.setdefault(address.lower(), address)
    return list(seen.values())


class FieldReportService:
    async def list_reports(
        self, db: AsyncSession, ctx: ProjectContext, filters: ReportFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The reports the caller may see, newest first (403 to clients where not shared)."""
        vis = Visibility.of(ctx, "showFieldReports").collection(FieldReportsHiddenFromClients)
        found, headers = page.finish(await repo.list_rows(db, vis, filters, page))
        return [to_read(row._mapping) for row in found], headers

    async def _load(self, db: AsyncSession, ctx: ProjectContext, report_id: str) -> FieldReport:
        return found(
            await repo.get(db, Visibility.of(ctx, "showFieldReports"), report_id),
            "Field report not found",
        )

    async def get(self, db: AsyncSession, ctx: ProjectContext, report_id: str) -> dict[str, Any]:
        """One report the caller may see (404 otherwise)."""
        return to_read(FIELDS.of(await self._load(db, ctx, report_id)))

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, data: FieldReportCreate
    ) -> dict[str, Any]:
        """A report by an internal member, dated the project's today unless given; audited."""
        values = _stored({name: getattr(data, name) for name in COLUMNS})
        values["report_date"] = values["report_date"] or project_today(ctx)
        report = await add_record(db, ctx, FieldReport, email_count=0, **values)
        changes = created(FIELDS.audited(report, EDITABLE))
        await audit_change(db, ctx, (ENTITY, report.id), "field_report.created", changes)
        return to_read(FIELDS.of(report))

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, report_id: str, data: FieldReportUpdate
    ) -> dict[str, Any]:
        """Internal members edit; only MANAGER and above send a SUBMITTED report back to DRAFT."""
        report = await self._load(db, ctx, report_id)
        given = data.model_fields_set
        values = _stored({name: getattr(data, name) for name in COLUMNS if name in given})
        if (
            values.get("status") == "DRAFT"
            and report.status == "SUBMITTED"
            and not ctx.can(Permission.RECORDS_CLOSE)
        ):
            raise ManagerOnlyReturnToDraft()
        before = FIELDS.audited(report, EDITABLE)
        for name, value in values.items():
            setattr(report, name, value)
        after = FIELDS.audited(report, EDITABLE)
        await audit_update(db, ctx, (ENTITY, report), "field_report.updated", before, after)
        return to_read(FIELDS.of(report))

    async def delete(self, db: AsyncSession, ctx: ProjectContext, report_id: str) -> None:
        """Soft delete by internal members; members delete only the reports they created."""
        report = await self._load(db, ctx, report_id)
        await soft_delete(
            db,
            ctx,
            report,
            entity_type=ENTITY,
            action="field_report.deleted",
            refusal="You can delete only the field reports you created",
        )

    async def send_email(
        self, uow: UnitOfWork, ctx: ProjectContext, data: SendEmail
    ) -> dict[str, Any]:
        """Queue the report (HTML body + PDF) to each recipient; delivered after the commit."""
        db = uow.session
        report = await self._load(db, ctx, data.report_id)
        caller = ctx.principal.key_id or ctx.user_id
        await ratelimit.hit(f"field-report-email:{caller}", EMAILS_PER_WINDOW, EMAIL_WINDOW_SECONDS)
        recipients = _unique_addresses(str(r) for r in data.recipients)
        body = to_read(FIELDS.of(report))
        sender = ctx.principal.user.name if ctx.principal.user else "Plumbline"
        project_name = ctx.project.name
        now = clock.now()
        document = render.pdf(body, project_name, now)
        attachment = Attachment(render.filename(body), "application/pdf", document)
        subject = f"{project_name}: {body['title']} ({body['reportDate']})"
        html = render.email_html(body, project_name, sender, data.message)
        text = render.email_text(body, project_name, sender, data.message)
        for recipient in recipients:
            queue(
                uow,
                Mail(
                    to=[recipient], subject=subject, text=text, html=html, attachments=[attachment]
                ),
            )
        before = FIELDS.audited(report, SENT)
        report.last_emailed_at = now
        report.email_count += len(recipients)
        changes = diff(before, FIELDS.audited(report, SENT)) | {"recipients": [None, recipients]}
        await audit_change(db, ctx, (ENTITY, report.id), "field_report.emailed", changes)
        await db.flush()
        return {"ok": True, "sent": len(recipients), "lastEmailedAt": clock.iso(now)}


field_report = FieldReportService()
