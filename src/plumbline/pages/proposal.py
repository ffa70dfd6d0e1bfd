"""The proposal page the client opens from the e-mail (``/portal/proposals/{token}``): read it,
download the PDF, accept (typed name, drawn signature), decline, ask for changes, write.

Every route takes the portal's credential (``ProposalClient``: 404 unknown, 410 expired, 30
requests a minute per token) and calls the portal's service with its own request schemas, so
the page and ``/api/v1/public/proposals/{token}`` follow one set of rules. Answers post back
here and redirect to the page (303); a refused one shows the page again saying why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import Request
from pydantic import BaseModel, ValidationError
from starlette.datastructures import FormData
from starlette.responses import RedirectResponse, Response

from plumbline.db import DB
from plumbline.errors import InvalidTransition, ValidationFailed
from plumbline.kit.pagination import PageParams
from plumbline.pages.kit import Brand, posted, render, text
from plumbline.proposal import status
from plumbline.proposal.lifecycle.schemas import MessageIn
from plumbline.proposal.portal.auth import ProposalClient
from plumbline.proposal.portal.schemas import AcceptIn, DeclineIn, RequestChangesIn
from plumbline.proposal.portal.service import portal
from plumbline.routing import make_router, transactional

router = make_router(prefix="/portal/proposals/{token}", tags=["pages"], include_in_schema=False)

REASONS = (
    ("PRICE_TOO_HIGH", "The price is higher than we expected"),
    ("TIMING", "The timing does not work for us"),
    ("SCOPE", "The scope is not what we need"),
    ("OTHER_COMPANY", "We chose another company"),
    ("OTHER", "Another reason"),
)
DONE = {
    "accepted": "Thank you. Your acceptance is recorded and the sender has been told.",
    "declined": "Your answer is recorded and the sender has been told.",
    "changes": "Your request is on its way. A revised proposal will come in a new e-mail.",
    "message": "Your message was sent.",
}
# What each form's field needs, said as a person would (the schemas hold the rules).
NEEDS = {
    "signerName": "Type your full name to sign (up to 200 characters).",
    "signature": "The drawn signature could not be read. Clear it and draw it again, "
    "or sign with your typed name alone.",
    "reason": "Choose the reason that fits best.",
    "comment": "Say what should change (up to 10,000 characters).",
    "body": "Write your message (up to 10,000 characters).",
}
THREAD_SHOWN = 50


async def _page(
    request: Request,
    db: DB,
    client: ProposalClient,
    *,
    code: int = 200,
    form: str | None = None,
    errors: dict[str, str] | None = None,
    values: dict[str, str] | None = None,
    notice: str | None = None,
) -> Response:
    """The page in the proposal's current state; after a refused answer, its form open again
    with the values sent and each field's error."""
    proposal, _, workspace = client.require_token().rows
    view = portal.view(client)
    thread, _ = await portal.messages(
        db, client, PageParams(limit=THREAD_SHOWN, after_id=None, request=request)
    )
    done = request.query_params.get("done")
    return render(
        request,
        "proposal/page.html",
        status=code,
        brand=Brand.of_workspace(workspace),
        p=view,
        token=request.path_params["token"],
        answerable=view["status"] in status.LIVE,
        thread_open=view["status"] in status.THREAD_OPEN,
        thread=list(reversed(thread)),
        reasons=REASONS,
        done=DONE.get(done) if done else None,
        notice=notice,
        form=form,
        errors=errors or {},
        values=values or {},
        signed=proposal.accepted_at is not None,
    )


def _field_errors(error: ValidationError | ValidationFailed) -> dict[str, str]:
    """Each refused field's message, by the form's field name."""
    if isinstance(error, ValidationError):
        names = [str(e["loc"][0]) for e in error.errors() if e.get("loc")]
    else:
        names = [str(d.get("field", "")) for d in error.details or ()]
    return {name: NEEDS.get(name, "Check this field.") for name in names} or {
        "form": error.message if isinstance(error, ValidationFailed) else "Check the form."
    }


async def _answer(
    request: Request,
    db: DB,
    client: ProposalClient,
    name: str,
    schema: type[BaseModel],
    fields: tuple[str, ...],
    act: Callable[[Any], Awaitable[object]],
) -> Response:
    """One form posted: its CSRF check, its schema, the service's answer; then the page again
    (303), or the page with the form's errors (400) or saying the proposal was answered (409)."""
    form: FormData = await posted(request)
    values = {field: text(form, field) for field in fields}
    try:
        await act(schema.model_validate({k: v for k, v in values.items() if v != ""}))
    except (ValidationError, ValidationFailed) as refused:
        values.pop("signature", None)  # never sent back into the page
        errors = _field_errors(refused)
        return await _page(request, db, client, code=400, form=name, errors=errors, values=values)
    except InvalidTransition:
        notice = (
            "The conversation on this proposal is closed, so the message was not sent."
            if name == "message"
            else "This proposal was answered already, so nothing was changed."
        )
        return await _page(request, db, client, code=409, notice=notice)
    done = {"accept": "accepted", "decline": "declined", "changes": "changes"}.get(name, name)
    token = request.path_params["token"]
    anchor = "#messages" if name == "message" else "#answer"
    return RedirectResponse(f"/portal/proposals/{token}?done={done}{anchor}", status_code=303)


@router.get("")
@transactional
async def proposal_page(request: Request, client: ProposalClient, db: DB) -> Response:
    """The proposal; the first open counts as the client's view (SENT -> VIEWED)."""
    await portal.viewed(db, client)
    return await _page(request, db, client)


@router.get("/pdf")
async def proposal_pdf(client: ProposalClient, db: DB) -> Response:
    """The proposal's PDF, signed once accepted."""
    document, filename = await portal.pdf(db, client)
    return Response(
        document,
        media_type="application/pdf",
        headers={
            "Content-Disposition": f'attachment; filename="{filename}"',
            "Cache-Control": "no-store",
        },
    )


@router.post("/accept")
async def accept(request: Request, client: ProposalClient, db: DB) -> Response:
    """Accept with the typed name and, when drawn, the signature."""

    async def act(body: AcceptIn) -> object:
        return await portal.accept(db, client, body.signer_name, body.signature)

    fields = ("signerName", "signature")
    return await _answer(request, db, client, "accept", AcceptIn, fields, act)


@router.post("/decline")
async def decline(request: Request, client: ProposalClient, db: DB) -> Response:
    """Decline with a reason."""

    async def act(body: DeclineIn) -> object:
        return await portal.decline(db, client, body.reason, body.comment)

    return await _answer(request, db, client, "decline", DeclineIn, ("reason", "comment"), act)


@router.post("/request-changes")
async def request_changes(request: Request, client: ProposalClient, db: DB) -> Response:
    """Send the proposal back with what should change."""

    async def act(body: RequestChangesIn) -> object:
        return await portal.request_changes(db, client, body.comment)

    return await _answer(request, db, client, "changes", RequestChangesIn, ("comment",), act)


@router.post("/messages")
async def message(request: Request, client: ProposalClient, db: DB) -> Response:
    """Write to the sender."""

    async def act(body: MessageIn) -> object:
        return await portal.post_message(db, client, body.body)

    return await _answer(request, db, client, "message", MessageIn, ("body",), act)
