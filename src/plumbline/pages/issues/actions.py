"""The list's bulk bar (``POST .../issues/bulk``) and the board's moves
(``POST .../issues/board/move``): the same services and rules as the JSON routes."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from plumbline.db import UoW
from plumbline.errors import AppError, InvalidField
from plumbline.issue import bulk as issue_bulk
from plumbline.issue.filters import filters_of_query
from plumbline.issue.schemas import IssueUpdate
from plumbline.issue.service import issue as issue_service
from plumbline.pages.issues.access import WriteIssues, issues_path
from plumbline.pages.kit import flash, posted, text
from plumbline.pages.kit.forms import validate
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.i18n import ngettext
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)
# The bulk bar's actions: the field each one sets (delete sets none).
ACTIONS = {"status": "status", "priority": "priority", "assign": "assigneeId", "delete": None}


def _change(form: dict[str, str], action: str) -> IssueUpdate | None:
    if action not in ACTIONS:
        raise InvalidField("action", "Choose what to do with the selected issues")
    name = ACTIONS[action]
    if name is None:
        return None
    body = validate(IssueUpdate, {name: form.get(name) or None})
    if isinstance(body, dict):
        raise InvalidField(name, next(iter(body.values())))
    return body


@router.post("/app/projects/{projectId}/issues/bulk")
async def bulk_edit(request: Request, ctx: WriteIssues, uow: UoW) -> Response:
    """One change to the issues ticked (or to all the view matches); all or nothing."""
    form = await posted(request, max_fields=1200)
    query = text(form, "query")
    back = RedirectResponse(f"{issues_path(ctx)}?{query}", status_code=303)
    fields = {name: text(form, name) for name in ("action", "status", "priority", "assigneeId")}
    ids = [i for i in form.getlist("ids") if isinstance(i, str)]
    try:
        change = _change(fields, fields["action"])
        view = await filters_of_query(query) if form.get("all") == "1" else None
        count = await issue_bulk.edit(uow, ctx, ids, change, view)
    except AppError as refusal:
        await uow.rollback()  # all or nothing: what was written before the refusal goes
        message = _("Nothing was changed. %(reason)s", reason=refusal.message)
        return flash(back, message, "error")
    if change is None:
        done = ngettext("%(num)d issue deleted.", "%(num)d issues deleted.", count)
    else:
        done = ngettext("%(num)d issue changed.", "%(num)d issues changed.", count)
    return flash(back, done % {"num": count})


@router.post("/app/projects/{projectId}/issues/board/move")
async def board_move(request: Request, ctx: WriteIssues, uow: UoW) -> Response:
    """Change one issue's status; to ``board.js`` a JSON answer (a refusal says why)."""
    form = await posted(request)
    issue_id, status = text(form, "issueId"), text(form, "status")
    wants_json = "application/json" in request.headers.get("accept", "")
    back = RedirectResponse(f"{issues_path(ctx)}/board?{text(form, 'query')}", status_code=303)
    try:
        body = validate(IssueUpdate, {"status": status or None})
        if isinstance(body, dict):
            raise InvalidField("status", next(iter(body.values())))
        moved = await issue_service.update(uow, ctx, issue_id, body)
    except AppError as refusal:
        await uow.rollback()
        if wants_json:
            return JSONResponse({"error": refusal.message}, status_code=refusal.status)
        return flash(back, refusal.message, "error")
    if wants_json:
        return JSONResponse({"id": moved["id"], "status": moved["status"]})
    return flash(back, _("Issue #%(number)s moved.", number=moved["number"]))
