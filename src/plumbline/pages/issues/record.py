"""``/app/projects/{projectId}/issues/{issueId}``: an issue's page. Its fields edited in place
(one small form each, posted to ``.../fields`` through the PATCH's service), its status, its
comments, its photos (``static/js/upload.js`` through the JSON upload routes), its history from
the audit log, its costs when it is a work order, and its deletion."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.responses import RedirectResponse, Response

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import DB, UoW
from plumbline.errors import AppError, BadRequest
from plumbline.issue.comments import issue_comments
from plumbline.issue.schemas import CommentCreate, IssueUpdate
from plumbline.issue.service import issue as issue_service
from plumbline.issue.view import EDITABLE, issue_page
from plumbline.kit.pagination import Page, PageParams
from plumbline.om.costs import shown as work_order_costs
from plumbline.pages.kit import flash, posted, text
from plumbline.pages.kit.forms import Errors, field_errors, required, submission, validate
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
PATH = "/app/projects/{projectId}/issues/{issueId}"


def _access(permission: Permission) -> Any:
    return Depends(project_access(permission, scope=None, module="issues", feature=Feature.RECORDS))


# Pages are for people (scope=None); the services decide the rest, as for the JSON routes.
ReadIssues = Annotated[ProjectContext, _access(Permission.RECORDS_READ)]
WriteIssues = Annotated[ProjectContext, _access(Permission.RECORDS_WRITE)]


def _url(ctx: ProjectContext, issue_id: str) -> str:
    return f"/app/projects/{ctx.project.id}/issues/{issue_id}"


async def _page(
    request: Request,
    db: Any,
    ctx: ProjectContext,
    issue_id: str,
    page_: PageParams,
    *,
    status: int = 200,
    **context: Any,
) -> Response:
    view = await issue_page(db, ctx, issue_id, page_)
    view["costs"] = await work_order_costs.shown(db, ctx, view["issue"])
    issues = f"/app/projects/{ctx.project.id}/issues"
    crumbs = [(_("Issues"), issues), (f"#{view['issue']['number']}", None)]
    context.setdefault("errors", {})
    context.setdefault("typed", {})
    context.setdefault("submission", submission())
    return page(
        request,
        "issues/page.html",
        await shell(request, db, ctx),
        status=status,
        url=_url(ctx, issue_id),
        crumbs=crumbs,
        **view,
        **context,
    )


@router.get(PATH)
async def issue_record(
    request: Request, ctx: ReadIssues, db: DB, issueId: str, page_: Page
) -> Response:
    """The issue as the JSON read answers it, with its comments, photos and history."""
    return await _page(request, db, ctx, issueId, page_)


def _htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true" and not request.headers.get("hx-boosted")


@router.post(PATH + "/fields")
async def edit_field(
    request: Request, ctx: WriteIssues, uow: UoW, issueId: str, page_: Page
) -> Response:
    """One field changed through the PATCH's service; to htmx the record again (the field's
    error beside it, what was typed kept), else back to the page."""
    form = await posted(request)
    name = text(form, "field")
    if name not in EDITABLE:
        raise BadRequest(_("This field cannot be changed here"))
    typed = text(form, name)
    needed = required(title=_("Enter a title")) if name == "title" else None
    body = validate(IssueUpdate, {name: typed or None}, needed)
    errors: Errors = body if isinstance(body, dict) else {}
    if not isinstance(body, dict):
        try:
            await issue_service.update(uow, ctx, issueId, body)
        except AppError as exc:
            if exc.status == 404:
                raise
            errors = {
                (name if field == "form" else field): message
                for field, message in field_errors(exc).items()
            }
    if not errors and not _htmx(request):
        to = RedirectResponse(f"{_url(ctx, issueId)}#field-{name}", status_code=303)
        return flash(to, _("Saved."))
    return await _page(
        request,
        uow.session,
        ctx,
        issueId,
        page_,
        status=400 if errors else 200,
        errors=errors,
        typed={name: typed} if errors else {},
        saved=None if errors else name,
    )


@router.post(PATH + "/comments")
async def add_comment(
    request: Request, ctx: ReadIssues, db: DB, issueId: str, page_: Page
) -> Response:
    """A comment through the JSON route's service (clients on shared issues too; the service
    refuses the others). One comment per submission (its ``submission`` key)."""
    form = await posted(request)
    typed = text(form, "body")
    body = validate(CommentCreate, {"body": typed}, required(body=_("Write a comment")))
    errors: Errors = body if isinstance(body, dict) else {}
    if not isinstance(body, dict):
        try:
            await issue_comments.add(db, ctx, issueId, body)
        except AppError as exc:
            if exc.status in (403, 404):
                raise
            errors = field_errors(exc)
    if not errors and not _htmx(request):
        to = RedirectResponse(f"{_url(ctx, issueId)}#comments", status_code=303)
        return flash(to, _("Comment added."))
    return await _page(
        request,
        db,
        ctx,
        issueId,
        page_,
        status=400 if errors else 200,
        errors={f"comment-{k}": v for k, v in errors.items()},
        typed={"comment": typed} if errors else {},
        submission=text(form, "submission") if errors else submission(),
    )


@router.post(PATH + "/delete")
async def delete_issue(request: Request, ctx: WriteIssues, uow: UoW, issueId: str) -> Response:
    """Delete (soft) through the JSON route's service: MANAGER+ any, a MEMBER their own."""
    await posted(request)
    await issue_service.delete(uow, ctx, issueId)
    to = RedirectResponse(f"/app/projects/{ctx.project.id}/issues", status_code=303)
    return flash(to, _("Issue deleted."))
