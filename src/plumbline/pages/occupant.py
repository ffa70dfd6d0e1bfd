"""The occupant pages: a link's reporting form (with photos, posted as one multipart form), the
receipt with the tracking link, and a request's tracking page. They call the occupant portal's
services, as its JSON routes do."""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from pydantic import ValidationError
from starlette.datastructures import FormData, UploadFile
from starlette.responses import HTMLResponse

from plumbline.auth.principal import Principal
from plumbline.config import settings
from plumbline.db import DB, UoW
from plumbline.errors import AppError, BadRequest
from plumbline.file.types import image_type
from plumbline.issue.photos import PHOTOS
from plumbline.kit import crypto
from plumbline.occupant.auth import OccupantLinkToken, TrackingToken
from plumbline.occupant.schemas import OccupantSubmit
from plumbline.occupant.service import Photo, occupants
from plumbline.pages.kit import branding, posted, render, text
from plumbline.pages.kit.i18n import LANGUAGE_COOKIE, choose, format_moment
from plumbline.pages.kit.i18n import gettext as _
from plumbline.routing import make_router

router = make_router(tags=["pages"], include_in_schema=False)

# The form's fields, as the JSON body names them (the page's own names are shorter).
FIELDS = {
    "title": "title",
    "description": "description",
    "reporterName": "name",
    "reporterEmail": "email",
    "location": "location",
}
KEY = re.compile(r"[A-Za-z0-9_-]{32,64}")
MiB = 1024 * 1024
# The largest reporting form: every photo it may carry, and the text around them.
FORM_BYTES = PHOTOS.max_count * PHOTOS.max_bytes + MiB


def statuses() -> dict[str, tuple[str, str]]:
    """Each status as the occupant reads it: its name and what it means, in the page's language."""
    return {
        "OPEN": (_("Received"), _("The team has your request and will look at it soon.")),
        "IN_PROGRESS": (_("In progress"), _("Someone is working on it.")),
        "RESOLVED": (_("Resolved"), _("The team has fixed the problem.")),
        "CLOSED": (_("Closed"), _("This request is closed.")),
    }


STEPS = ("OPEN", "IN_PROGRESS", "RESOLVED")


def speak(request: Request) -> str:
    """The page's language for the strings made here before rendering (the kit's choice)."""
    return choose(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))


def when(value: Any) -> str:
    """An instant as people read it, in the page's language (``Nov 25, 2026, 9:30:00 AM UTC``)."""
    return f"{format_moment(value)} UTC"


def _messages(error: ValidationError, values: dict[str, str]) -> dict[str, str]:
    """The body's validation errors per form field, in words."""
    found: dict[str, str] = {}
    for item in error.errors():
        name = next((str(p) for p in item["loc"] if str(p) in FIELDS), "title")
        field = FIELDS[name]
        limit = (item.get("ctx") or {}).get("max_length")
        if not values.get(field):
            message = _("Please fill this in.")
        elif field == "email":
            message = _("Enter an e-mail address, such as name@example.com.")
        elif item["type"] == "string_too_long" and limit:
            message = _("Please keep this under %(limit)s characters.", limit=limit)
        else:
            message = _("This can't be used: please check it.")
        found.setdefault(field, message)
    return found


async def _photos(form: FormData) -> tuple[list[Photo], str | None]:
    """The photos chosen in the form, read and checked as the JSON route checks them (count,
    size, an image by its bytes), or why they cannot be used."""
    files = [f for f in form.getlist("photos") if isinstance(f, UploadFile) and f.filename]
    limit = min(PHOTOS.max_bytes, settings.max_upload_bytes)
    if len(files) > PHOTOS.max_count:
        return [], _("Choose at most %(count)s photos.", count=PHOTOS.max_count)
    photos = []
    for upload in files:
        name = upload.filename or "photo"
        too_large = _("%(name)s is larger than %(size)s MB.", name=name, size=limit // MiB)
        if upload.size is not None and upload.size > limit:
            return [], too_large
        data = await upload.read(limit + 1)
        kind = image_type(data)
        if len(data) > limit:
            return [], too_large
        if not data:
            return [], _("%(name)s is empty.", name=name)
        if kind is None or kind not in (PHOTOS.types or ()):
            return [], _("%(name)s is not a photo: JPEG, PNG, WebP or HEIC images only.", name=name)
        photos.append(Photo(name, kind, data))
    return photos, None


async def _form_page(
    request: Request,
    db: DB,
    principal: Principal,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    key: str | None = None,
    *,
    status: int = 200,
) -> HTMLResponse:
    speak(request)
    meta = await occupants.meta(db, principal)
    return render(
        request,
        "occupant/report.html",
        status=status,
        brand=await branding(db, principal.require_token().workspace_id),
        meta=meta,
        values=values or {},
        errors=errors or {},
        key=key or crypto.random_token(),
        max_photos=PHOTOS.max_count,
        max_mb=PHOTOS.max_bytes // MiB,
    )


@router.get("/portal/occupant/{token}")
async def report_form(request: Request, principal: OccupantLinkToken, db: DB) -> HTMLResponse:
    """The reporting page of an occupant link: the building, the asset, a short form."""
    return await _form_page(request, db, principal)


async def _checked(form: FormData) -> tuple[OccupantSubmit | None, list[Photo], dict[str, str]]:
    """The form as the JSON route's body and its photos, or what to fix, field by field."""
    values = {field: text(form, field) for field in FIELDS.values()}
    errors: dict[str, str] = {}
    body = None
    try:
        body = OccupantSubmit.model_validate({n: values[f] or None for n, f in FIELDS.items()})
    except ValidationError as error:
        errors = _messages(error, values)
    photos, problem = await _photos(form)
    if problem is not None:
        errors["photos"] = f"{problem} {_('Please choose the photos again.')}"
    elif errors and photos:  # a browser never sends a file input's choice twice
        errors["photos"] = _("Please choose the photos again.")
    return body, photos, errors


@router.post("/portal/occupant/{token}")
async def report(request: Request, principal: OccupantLinkToken, uow: UoW) -> HTMLResponse:
    """Send the form: the request, its photos and the receipt, or the form again with what to
    fix (nothing written). The same form sent twice makes one request (its ``key``)."""
    db, form = uow.session, await posted(request, max_files=PHOTOS.max_count * 4)
    speak(request)
    key = text(form, "key")
    if not KEY.fullmatch(key):
        raise BadRequest(_("This form is out of date. Reload the page and fill it in again."))
    again = await occupants.submitted_with(db, principal, key)
    if again is not None:  # a second click, or the browser sending the form again
        return await _receipt(request, db, principal, again, repeated=True)
    body, photos, errors = await _checked(form)
    values = {field: text(form, field) for field in FIELDS.values()}
    if body is None or errors:
        return await _form_page(request, db, principal, values, errors, key, status=400)
    try:
        sent = await occupants.submit(uow, principal, body, key=key)
        await occupants.add_photos(db, principal, sent["issueId"], sent["photoToken"], photos)
    except AppError as error:
        if error.status not in (402, 409, 413, 415):
            raise
        # A photo refused once the request was written (the storage quota): the answer's
        # status rolls the request back, and the form comes again.
        said = error.message.rstrip(".")
        errors = {"photos": _("%(said)s. Please send the form without it.", said=said)}
        return await _form_page(request, db, principal, values, errors, key, status=error.status)
    receipt = {
        "title": body.title,
        "photos": len(photos),
        "email": body.reporter_email,
        "trackingPage": occupants.tracking_page(principal, key),
    }
    return await _receipt(request, db, principal, receipt)


async def _receipt(
    request: Request, db: DB, principal: Principal, receipt: dict[str, Any], repeated: bool = False
) -> HTMLResponse:
    meta = await occupants.meta(db, principal)
    return render(
        request,
        "occupant/receipt.html",
        brand=await branding(db, principal.require_token().workspace_id),
        meta=meta,
        receipt=receipt,
        repeated=repeated,
    )


@router.get("/portal/requests/{token}")
async def tracked(request: Request, principal: TrackingToken, db: DB) -> HTMLResponse:
    """A request's tracking page: its status and each change since it was reported."""
    speak(request)
    found = await occupants.track(db, principal)
    grant = principal.require_token()
    status = found["status"]
    named = statuses()
    label, explained = named.get(status, (status.replace("_", " ").title(), ""))
    reached = STEPS.index(status) if status in STEPS else len(STEPS)
    return render(
        request,
        "occupant/request.html",
        brand=await branding(db, grant.workspace_id),
        tracked=found,
        label=label,
        explained=explained,
        steps=[(named[s][0], i < reached, i == reached) for i, s in enumerate(STEPS)],
        closed=status == "CLOSED",
        submitted=when(found["submittedAt"]),
        updates=[
            {"at": when(u["at"]), "label": named.get(u["status"], (u["status"], ""))[0]}
            for u in reversed(found["updates"])
        ],
    )
