"""Proposal templates: a workspace's letter bodies with defaults for new proposals.

Members read them; MANAGER and above write them (``Permission.PROPOSAL_TEMPLATES_WRITE``); API
keys never reach them (workspace routes take a session). A body is checked as a letter template
(``letter.check``) when it is written, so a proposal created from it always renders. Names are
unique within the workspace (409). Deleting a template leaves the proposals made from it as
they are (they hold a copy of its body).
"""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import found
from plumbline.kit.clock import iso
from plumbline.kit.money import FOUR, number_text
from plumbline.kit.pagination import PageParams
from plumbline.models import ProposalTemplate
from plumbline.proposal.document import letter
from plumbline.proposal.templates import repository as repo
from plumbline.proposal.templates.errors import TemplateNameTaken
from plumbline.proposal.templates.schemas import ProposalTemplateCreate, ProposalTemplateUpdate

ENTITY = "proposal_template"


def percent_text(value: Decimal | None) -> str | None:
    return None if value is None else number_text(value)


def to_read(values: Mapping[Any, Any]) -> dict[str, Any]:
    return {
        "id": values["id"],
        "workspaceId": values["workspace_id"],
        "name": values["name"],
        "body": values["body"],
        "defaults": {
            "taxPercent": percent_text(values["tax_percent"]),
            "validDays": values["valid_days"],
        },
        "createdBy": values["created_by"],
        "createdAt": iso(values["created_at"]),
        "updatedAt": iso(values["updated_at"]),
    }


def _values(template: ProposalTemplate) -> dict[str, Any]:
    return {column.key: getattr(template, column.key) for column in repo.COLUMNS}


def _audited(template: ProposalTemplate) -> dict[str, Any]:
    return {
        "name": template.name,
        "body": template.body,
        "taxPercent": percent_text(template.tax_percent),
        "validDays": template.valid_days,
    }


class ProposalTemplateService:
    async def list_templates(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The workspace's templates, newest first (every member reads them)."""
        rows, headers = page.finish(await repo.list_rows(db, ctx.workspace.id, page))
        return [to_read(row._mapping) for row in rows], headers

    async def load(self, db: AsyncSession, workspace_id: str, template_id: str) -> ProposalTemplate:
        """The workspace's template; 404 for any other."""
        return found(await repo.get(db, workspace_id, template_id), "Proposal template not found")

    async def _check_name(
        self, db: AsyncSession, ctx: WorkspaceContext, name: str, other_than: str | None = None
    ) -> None:
        """Names are unique within the workspace (409)."""
        if await repo.name_taken(db, ctx.workspace.id, name, other_than):
            raise TemplateNameTaken()

    async def create(
        self, db: AsyncSession, ctx: WorkspaceContext, data: ProposalTemplateCreate
    ) -> dict[str, Any]:
        """A template whose body the letter renders (400 naming ``body`` otherwise) under a
        name unique in the workspace (409)."""
        letter.check(data.body, "body")
        await self._check_name(db, ctx, data.name)
        template = ProposalTemplate(
            workspace_id=ctx.workspace.id,
            name=data.name,
            body=data.body,
            tax_percent=_percent(data.defaults.tax_percent),
            valid_days=data.defaults.valid_days,
            created_by=ctx.user_id,
        )
        db.add(template)
        await db.flush()
        changes = created(_audited(template))
        await audit_change(db, ctx, (ENTITY, template.id), "proposal_template.created", changes)
        return to_read(_values(template))

    async def update(
        self,
        db: AsyncSession,
        ctx: WorkspaceContext,
        template_id: str,
        data: ProposalTemplateUpdate,
    ) -> dict[str, Any]:
        """The fields sent (within ``defaults`` too), checked as on create; audited when
        something changed."""
        template = await self.load(db, ctx.workspace.id, template_id)
        given = data.model_fields_set
        before = _audited(template)
        if "body" in given and data.body is not None:
            letter.check(data.body, "body")
            template.body = data.body
        if "name" in given and data.name is not None and data.name != template.name:
            await self._check_name(db, ctx, data.name, other_than=template.id)
            template.name = data.name
        if "defaults" in given and data.defaults is not None:
            sent = data.defaults.model_fields_set
            if "tax_percent" in sent:
                template.tax_percent = _percent(data.defaults.tax_percent)
            if "valid_days" in sent:
                template.valid_days = data.defaults.valid_days
        action = "proposal_template.updated"
        await audit_update(db, ctx, (ENTITY, template), action, before, _audited(template))
        return to_read(_values(template))

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext, template_id: str) -> None:
        """Deleted for good; the proposals made from it keep their copy of its letter."""
        template = await self.load(db, ctx.workspace.id, template_id)
        changes = {key: [value, None] for key, value in _audited(template).items() if value}
        await db.delete(template)
        await audit_change(db, ctx, (ENTITY, template_id), "proposal_template.deleted", changes)
        await db.flush()


def _percent(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(FOUR)


proposal_template = ProposalTemplateService()
