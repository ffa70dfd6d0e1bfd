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
from plumbline.pages.kit import Brand, flash, posted, render, text
from plumbline.pages.kit.i18n import LANGUAGE_COOKIE, choose
from plumbline.pages.kit.i18n import gettext as _
from plumbline.proposal import status
from plumbline.proposal.lifecycle.schemas import MessageIn
from plumbline.proposal.portal.auth import ProposalClient
from plumbline.proposal.portal.schemas import AcceptIn, DeclineIn, RequestChangesIn
from plumbline.proposal.portal.service import portal
from plumbline.routing import make_router, transactional

router = make_router(prefix="/portal/proposals/{token}", tags=["pages"], include_in_schema=False)


def reasons() -> tuple[tuple[str, str], ...]:
    """Why a client declines, in the page's language."""
    return (
        ("PRICE_TOO_HIGH", _("The price is higher than we expected")),
        ("TIMING", _("The timing does not work for us")),
        ("SCOPE", _("The scope is not what we need")),
        ("OTHER_COMPANY", _("We chose another company")),
        ("OTHER", _("Another reason")),
    )


def done(name: str) -> str:
    """What an answer did, said on the page it leads back to."""
    return {
        "accept": _("Thank you. Your acceptance is recorded and the sender has been told."),
        "decline": _("Your answer is recorded and the sender has been told."),
        "changes": _("Your request is on its way. A revised proposal will come in a new e-mail."),
        "message": _("Your message was sent."),
    }[name]


def needs(name: str) -> str:
    """What a form's field needs, said as a person would (the schemas hold the rules)."""
    return {
        "signerName": _("Type your full name to sign (up to 200 characters)."),
        "signature": _(
            "The drawn signature could not be read. Clear it and draw it again, "
            "or sign with your typed name alone."
        ),
        "reason": _("Choose the reason that fits best."),
        "comment": _("Say what should change (up to 10,000 characters)."),
        "body": _("Write your message (up to 10,000 characters)."),
    }.get(name, _("Check this field."))


def speak(request: Request) -> str:
    """The page's language for the strings made here before rendering (the kit's choice)."""
    return choose(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))


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
    proposal, _grant, workspace = client.require_token().rows
    view = portal.view(client)
    thread, _ = await portal.messages(
        db, client, PageParams(limit=THREAD_SHOWN, after_id=None, request=request)
    )
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
        reasons=reasons(),
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
    return {name: needs(name) for name in names} or {
        "form": error.message if isinstance(error, ValidationFailed) else _("Check the form.")
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
    speak(request)
    values = {field: text(form, field) for field in fields}
    try:
        await act(schema.model_validate({k: v for k, v in values.items() if v != ""}))
    except (ValidationError, ValidationFailed) as refused:
        values.pop("signature", None)  # never sent back into the page
        errors = _field_errors(refused)
        return await _page(request, db, client, code=400, form=name, errors=errors, values=values)
    except InvalidTransition:
        notice = (
            _("The conversation on this proposal is closed, so the message was not sent.")
            if name == "message"
            else _("This proposal was answered already, so nothing was changed.")
        )
        return await _page(request, db, client, code=409, notice=notice)
    token = request.path_params["token"]
    anchor = "#messages" if name == "message" else "#answer"
    redirect = RedirectResponse(f"/portal/proposals/{token}{anchor}", status_code=303)
    return flash(redirect, done(name))


@router.get("")
@transactional
async def proposal_page(request: Request, client: ProposalClient, db: DB) -> Response:
    """The proposal; the first open counts as the client's view (SENT -> VIEWED)."""
    await portal.viewed(db, client)
    speak(request)
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
