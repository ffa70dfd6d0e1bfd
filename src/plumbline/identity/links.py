"""Links in identity e-mails and the redirects they lead to: never to an untrusted origin."""

from __future__ import annotations

import html
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from plumbline.config import settings
from plumbline.errors import InvalidField
from plumbline.kit.mail import Mail
from plumbline.models import User


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def trusted_url(value: str | None, field_name: str) -> str | None:
    """A relative path or a URL on a trusted origin; anything else would be an open redirect."""
    if value is None:
        return None
    if value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    trusted = {o.lower() for o in settings.origins} | {_origin(settings.public_url)}
    try:
        parts = urlsplit(value)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        ok = ok and _origin(value) in trusted
    except ValueError:
        ok = False
    if not ok:
        message = "must be a relative path or a URL on a trusted origin"
        raise InvalidField(field_name, message)
    return value


def with_query(url: str, **params: str) -> str:
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True), *params.items()]
    return urlunsplit(parts._replace(query=urlencode(query)))


def absolute(url: str) -> str:
    return settings.public_url.rstrip("/") + url if url.startswith("/") else url


def _base() -> str:
    return settings.public_url.rstrip("/")


def verify_link(raw: str, callback_url: str | None) -> str:
    """The JSON route, which redirects to ``callbackURL``; without one, the account page."""
    if callback_url:
        return with_query(f"{_base()}/api/auth/verify-email", token=raw, callbackURL=callback_url)
    return with_query(f"{_base()}/account/verify-email", token=raw)


def reset_link(raw: str, redirect_to: str | None) -> str:
    """``redirectTo?token=`` (made absolute on the public URL), else the account page's form."""
    base = absolute(redirect_to) if redirect_to else f"{_base()}/account/reset-password"
    return with_query(base, token=raw)


def _link_mail(user: User, subject: str, intro: str, link: str, outro: str) -> Mail:
    greeting = f"Hello {user.name},"
    text = f"{greeting}\n\n{intro}\n\n{link}\n\n{outro}\n"
    safe = html.escape(link, quote=True)
    body = (
        f"<p>{html.escape(greeting)}</p><p>{html.escape(intro)}</p>"
        f'<p><a href="{safe}">{safe}</a></p><p>{html.escape(outro)}</p>'
    )
    return Mail(to=[user.email], subject=subject, text=text, html=body)


def verification_mail(user: User, link: str) -> Mail:
    return _link_mail(
        user,
        "Verify your e-mail address",
        "Confirm your e-mail address for Plumbline with this link "
        "(valid for 24 hours and usable once):",
        link,
        "If you did not create a Plumbline account, you can ignore this e-mail.",
    )


def reset_mail(user: User, link: str) -> Mail:
    return _link_mail(
        user,
        "Reset your password",
        "Choose a new Plumbline password with this link (valid for 1 hour and usable once):",
        link,
        "If you did not ask for this, ignore this e-mail: your password stays unchanged.",
    )
