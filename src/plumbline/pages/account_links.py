"""The account pages e-mails link to: verify the address, reset the password, accept an invite.

Each calls the service of its JSON route (``/api/auth/*``, ``/invites``, ``/email-invites``), so
the token rules are theirs: a used, expired or unknown token is a page saying which. A verified
address, or an accepted invite, leads into the app.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query, Request
from starlette.responses import RedirectResponse, Response

from plumbline.auth.principal import Principal
from plumbline.auth.public_token import resolve_token
from plumbline.db import DB, UoW
from plumbline.errors import AppError, InvalidField, NotFound
from plumbline.identity import schemas
from plumbline.identity.errors import InvalidToken, TokenExpired, TokenUsed
from plumbline.identity.service import identity
from plumbline.member.invite_tokens import EMAIL_INVITE, INVITE_LINK, invite_tokens
from plumbline.pages.account import (
    APP,
    CHECK_INBOX,
    FORM,
    PUBLIC,
    messages,
    page,
    policy_hint,
    role_name,
    same_site,
    signed_in,
    speak,
    with_next,
)
from plumbline.pages.kit import Brand, branding, flash, posted, text
from plumbline.pages.kit.forms import field_errors, validate
from plumbline.pages.kit.i18n import gettext as _
from plumbline.routing import make_router, transactional

router = make_router(tags=["pages"], include_in_schema=False)
Token = Annotated[str, Query(max_length=200)]
PathToken = Annotated[str, Path(min_length=1, max_length=200)]


def refusals() -> dict[str, dict[str, tuple[str, str]]]:
    """(heading, what to do) for a refused link, by purpose and reason."""
    wrong = (
        _("This link doesn't work"),
        _("Check that the whole link from the e-mail was opened, or ask for a new one below."),
    )
    return {
        "verify": {
            "used": (
                _("This link has already been used"),
                _(
                    "Your address may already be verified: sign in to carry on. If it is not, "
                    "ask for a new link below."
                ),
            ),
            "expired": (
                _("This link has expired"),
                _("Verification links work for 24 hours. Ask for a new one below."),
            ),
            "wrong": wrong,
        },
        "reset": {
            "used": (
                _("This link has already been used"),
                _(
                    "Each reset link works once. If your password was not changed, ask for a "
                    "new link."
                ),
            ),
            "expired": (
                _("This link has expired"),
                _("Reset links work for one hour. Ask for a new one."),
            ),
            "wrong": wrong,
        },
    }


def _refused(request: Request, purpose: str, exc: AppError) -> Response:
    reason = (
        "expired"
        if isinstance(exc, TokenExpired)
        else "used"
        if isinstance(exc, TokenUsed)
        else "wrong"
    )
    speak(request)
    heading, advice = refusals()[purpose][reason]
    return page(
        request,
        "account/refused.html",
        status=exc.status,
        purpose=purpose,
        heading=heading,
        advice=advice,
        errors={},
        email="",
    )


def _message(request: Request, heading: str, lead: str, **context: Any) -> Response:
    return page(request, "account/message.html", heading=heading, lead=lead, **context)


# ---------------------------------------------------------------- verify the e-mail


@router.get("/account/verify-email", dependencies=PUBLIC)
@transactional
async def verify_email(request: Request, db: DB, token: Token = "") -> Response:
    """Verify the address with the e-mailed token, then into the app (signed in in this
    browser), or a page saying it is done (sign in next), or why not."""
    speak(request)
    try:
        if not token:
            raise InvalidToken()
        await identity.verify_email(db, token, None)
    except (InvalidToken, TokenExpired) as exc:
        return _refused(request, "verify", exc)
    if await signed_in(request, db) is not None:
        return flash(RedirectResponse(APP, status_code=303), _("Your e-mail address is verified."))
    return _message(
        request,
        _("Your e-mail address is verified"),
        _("Thank you: your account is ready to use. Sign in to carry on."),
        tone="ok",
        actions=[(with_next("/account/sign-in", APP), _("Sign in"))],
    )


@router.post("/account/verify-email", dependencies=FORM)
async def resend_verification(request: Request, uow: UoW) -> Response:
    """E-mail a new verification link (the same answer for any address)."""
    form = await posted(request)
    email = text(form, "email")
    next_path = same_site(text(form, "next"))
    body = validate(schemas.SendVerificationEmail, {"email": email}, messages({"email": email}))
    if isinstance(body, dict):
        return page(
            request,
            "account/refused.html",
            status=400,
            purpose="verify",
            heading=_("Ask for a new verification link"),
            advice="",
            errors=body,
            email=email,
        )
    await identity.send_verification_email(uow, request, body)
    return _message(
        request,
        _("Check your inbox"),
        _(
            "If %(email)s belongs to an account that still needs verifying, a new link is on "
            "its way. It works for 24 hours.",
            email=body.email,
        ),
        tone="ok",
        actions=[(with_next(CHECK_INBOX, next_path), _("Back"))]
        if next_path
        else [("/account/sign-in", _("Sign in"))],
    )


# ---------------------------------------------------------------- reset the password


@router.get("/account/forgot-password", dependencies=PUBLIC)
async def forgot_page(
    request: Request, email: Annotated[str, Query(max_length=400)] = ""
) -> Response:
    """The form that e-mails a reset link."""
    return page(request, "account/forgot.html", email=email)


@router.post("/account/forgot-password", dependencies=FORM)
async def forgot(request: Request, uow: UoW) -> Response:
    """E-mail a reset link (the same answer whether or not the address has an account)."""
    form = await posted(request)
    email = text(form, "email")
    body = validate(schemas.RequestPasswordReset, {"email": email}, messages({"email": email}))
    if isinstance(body, dict):
        return page(request, "account/forgot.html", status=400, errors=body, email=email)
    await identity.request_password_reset(uow, request, body)
    return _message(
        request,
        _("Check your inbox"),
        _(
            "If an account uses %(email)s, a link to choose a new password is on its way. "
            "It works for one hour.",
            email=body.email,
        ),
        tone="ok",
        actions=[("/account/sign-in", _("Back to sign in"))],
    )


def _reset_page(request: Request, token: str, *, status: int = 200, **context: Any) -> Response:
    return page(
        request, "account/reset.html", status=status, token=token, hint=policy_hint(), **context
    )


@router.get("/account/reset-password", dependencies=PUBLIC)
async def reset_page(request: Request, db: DB, token: Token = "") -> Response:
    """The new-password form the reset e-mail links to (the token is checked, not used)."""
    if not token:
        return RedirectResponse("/account/forgot-password", status_code=303)
    speak(request)
    try:
        await identity.check_reset_token(db, token)
    except (InvalidToken, TokenExpired) as exc:
        return _refused(request, "reset", exc)
    return _reset_page(request, token)


@router.post("/account/reset-password", dependencies=FORM)
async def reset(request: Request, db: DB) -> Response:
    """Set the new password (typed twice); every session of the account ends."""
    form = await posted(request)
    token = text(form, "token")
    new, again = form.get("newPassword"), form.get("confirmPassword")
    data = {
        "token": token,
        "newPassword": new if isinstance(new, str) else "",
        "confirmPassword": again if isinstance(again, str) else "",
    }
    body = validate(schemas.ResetPassword, data, messages(data))
    if isinstance(body, dict) and "token" in body:
        return _refused(request, "reset", InvalidToken())
    if not isinstance(body, dict) and data["newPassword"] != data["confirmPassword"]:
        body = {"confirmPassword": _("The two passwords are not the same")}
    if isinstance(body, dict):
        return _reset_page(request, token, status=400, errors=body)
    try:
        await identity.reset_password(db, body)
    except (InvalidToken, TokenExpired) as exc:
        return _refused(request, "reset", exc)
    except InvalidField as exc:
        return _reset_page(request, token, status=400, errors=field_errors(exc))
    return _message(
        request,
        _("Your password has been changed"),
        _("Sign in with your new password. Every device that was signed in has been signed out."),
        tone="ok",
        actions=[("/account/sign-in", _("Sign in"))],
    )


# ---------------------------------------------------------------- invites


async def _invite(db: DB, token: str) -> tuple[str, dict[str, Any], Brand]:
    """The invite's kind ("email" or "link"), what it offers (as the JSON preview) and its
    workspace's branding; 404, 409 (accepted) and 410 as the JSON routes answer them."""
    try:
        grant = await resolve_token(db, EMAIL_INVITE, token)
        preview, kind = invite_tokens.preview_email(grant), "email"
    except NotFound:
        grant = await resolve_token(db, INVITE_LINK, token)
        preview, kind = invite_tokens.preview_link(grant), "link"
    workspace = grant.require_token().rows[1]
    return kind, preview, Brand.of_workspace(workspace)


def _same_address(principal: Principal | None, preview: dict[str, Any]) -> bool:
    invited = preview.get("email")
    if principal is None or invited is None:
        return True
    return principal.require_user().email.strip().lower() == str(invited).lower()


@router.get("/account/invite/{token}", dependencies=PUBLIC)
async def invite_page(request: Request, db: DB, token: PathToken) -> Response:
    """What the invite offers, then sign in or up, then accept."""
    speak(request)
    kind, preview, brand = await _invite(db, token)
    principal = await signed_in(request, db)
    here = f"/account/invite/{token}"
    email = {"email": preview["email"]} if kind == "email" else {}
    return page(
        request,
        "account/invite.html",
        brand=brand,
        kind=kind,
        invite=preview,
        role=role_name(preview["role"]),
        user=principal.require_user() if principal else None,
        same_address=_same_address(principal, preview),
        here=here,
        sign_in=with_next("/account/sign-in", here, **email),
        sign_up=with_next("/account/sign-up", here, **email),
    )


@router.post("/account/invite/{token}", dependencies=FORM)
async def accept_invite(request: Request, db: DB, token: PathToken) -> Response:
    """Accept as the signed-in user (an e-mail invite: only as the invited address), then
    into the workspace. A second submit of the form (another tab) joins nobody twice."""
    await posted(request)
    principal = await signed_in(request, db)
    here = f"/account/invite/{token}"
    if principal is None:
        return RedirectResponse(with_next("/account/sign-in", here), status_code=303)
    try:
        joined = await invite_tokens.accept_email(db, principal, token)
    except NotFound:
        joined = await invite_tokens.accept_link(db, principal, token)
    brand = await branding(db, joined["workspaceId"])
    to = RedirectResponse(f"/app/workspaces/{joined['workspaceId']}", status_code=303)
    role = role_name(joined["role"])
    return flash(
        to, _("You have joined %(name)s. Your role: %(role)s.", name=brand.name, role=role)
    )
