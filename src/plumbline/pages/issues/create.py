"""``/app/projects/{projectId}/issues/new``: report an issue (title, description, kind,
priority, assignee, due date); its photos are uploaded by ``static/js/upload.js`` through the
presigned sequence once the issue exists."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from plumbline.db import DB, UoW
from plumbline.errors import AppError
from plumbline.issue.schemas import PRIORITIES, IssueCreate
from plumbline.issue.service import issue as issue_service
from plumbline.pages.issues.access import WriteIssues, issues_path
from plumbline.pages.kit import flash, posted, text
from plumbline.pages.kit.forms import Errors, field_errors, required, submission, validate
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
FIELDS = ("title", "description", "issueKind", "priority", "assigneeId", "dueDate")
# Occupant requests come through the occupant portal only.
CREATED_KINDS = ("CONSTRUCTION", "WORK_ORDER")


def _options() -> dict[str, Any]:
    priorities = {"LOW": _("Low"), "MEDIUM": _("Medium"), "HIGH": _("High"), "URGENT": _("Urgent")}
    return {
        "kind_options": [("CONSTRUCTION", _("Construction")), ("WORK_ORDER", _("Work order"))],
        "priority_options": [(p, priorities[p]) for p in PRIORITIES],
    }


async def _form(
    request: Request, db: DB, ctx: Any, form: dict[str, str], errors: Errors, key: str
) -> Response:
    people = await issue_service.assignees(db, ctx)
    return page(
        request,
        "issues/new.html",
        await shell(request, db, ctx),
        status=400 if errors else 200,
        errors=errors,
        form=form,
        submission=key,
        people=people,
        path=issues_path(ctx),
        **_options(),
    )


def _wants_json(request: Request) -> bool:
    """``upload.js`` sends the form itself, to upload the photos to the issue it creates."""
    return "application/json" in request.headers.get("accept", "")


@router.get("/app/projects/{projectId}/issues/new")
async def new_issue(request: Request, ctx: WriteIssues, db: DB) -> Response:
    """The form that reports an issue."""
    return await _form(request, db, ctx, {}, {}, submission())


@router.post("/app/projects/{projectId}/issues/new")
async def create_issue(request: Request, ctx: WriteIssues, uow: UoW) -> Response:
    """Create the issue (its assignee is notified), then open it."""
    form = await posted(request)
    typed = {name: text(form, name) for name in FIELDS}
    data = {k: v for k, v in typed.items() if v}
    body = validate(IssueCreate, data, required(title=_("Enter a title")))
    errors: Errors = body if isinstance(body, dict) else {}
    if not isinstance(body, dict):
        try:
            made = await issue_service.create(uow, ctx, body)
        except AppError as exc:
            errors = field_errors(exc)
        else:
            url = f"{issues_path(ctx)}/{made['id']}"
            done = _("Issue #%(number)s created.", number=made["number"])
            if _wants_json(request):
                answer = {"id": made["id"], "number": made["number"], "url": url}
                return flash(JSONResponse(answer), done)
            return flash(RedirectResponse(url, status_code=303), done)
    return await _form(request, uow.session, ctx, typed, errors, text(form, "submission"))
