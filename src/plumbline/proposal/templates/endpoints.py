"""``/workspaces/{workspaceId}/proposal-templates``: a workspace's letter templates."""

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.proposal.templates.auth import CanReadTemplates, CanWriteTemplates
from plumbline.proposal.templates.schemas import (
    ProposalTemplateCreate,
    ProposalTemplateRead,
    ProposalTemplateUpdate,
)
from plumbline.proposal.templates.service import proposal_template as template_service
from plumbline.routing import make_router

router = make_router(
    prefix="/workspaces/{workspaceId}/proposal-templates", tags=["proposal-templates"]
)


@router.get("", response_model=list[ProposalTemplateRead])
async def list_templates(ctx: CanReadTemplates, db: DB, page: Page) -> ORJSONResponse:
    """The workspace's proposal templates, newest first (members read them)."""
    rows, headers = await template_service.list_templates(db, ctx, page)
    return ORJSONResponse(rows, headers=headers)


@router.post("", response_model=ProposalTemplateRead)
async def create_template(
    ctx: CanWriteTemplates, db: DB, body: ProposalTemplateCreate
) -> ORJSONResponse:
    """Create a template (MANAGER and above): a letter body with the template variables and
    the defaults a proposal created from it takes (taxPercent, validDays)."""
    return ORJSONResponse(await template_service.create(db, ctx, body))


@router.patch("/{templateId}", response_model=ProposalTemplateRead)
async def update_template(
    ctx: CanWriteTemplates, db: DB, templateId: str, body: ProposalTemplateUpdate
) -> ORJSONResponse:
    """Change the fields sent (MANAGER and above)."""
    return ORJSONResponse(await template_service.update(db, ctx, templateId, body))


@router.delete("/{templateId}", response_model=Ok)
async def delete_template(ctx: CanWriteTemplates, db: DB, templateId: str) -> ORJSONResponse:
    """Delete a template for good; proposals made from it keep their letter."""
    await template_service.delete(db, ctx, templateId)
    return ORJSONResponse({"ok": True})
