"""Rendering a page: the whole document, or to htmx only the part it asked for.

One template serves a page and its fragments: when htmx asks (``HX-Request``) for an element
whose id names a block of the template (``HX-Target: results`` and ``{% block results %}``),
only that block is rendered (jinja2-fragments); a boosted navigation or a history restore gets
the whole page.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from jinja2 import nodes
from jinja2_fragments import render_block
from starlette.responses import HTMLResponse

from plumbline.config import settings
from plumbline.pages.kit import i18n
from plumbline.pages.kit.brand import PLUMBLINE
from plumbline.pages.kit.csrf import csrf_token
from plumbline.pages.kit.flash import take_flashes
from plumbline.pages.kit.templates import environment


@cache
def storage_origin() -> str:
    """Where presigned uploads and downloads go when they leave this server (S3)."""
    if settings.storage != "s3":
        return ""
    if settings.s3_endpoint_url:
        parts = urlsplit(settings.s3_endpoint_url)
        return f"{parts.scheme}://{parts.netloc}"
    return "https://*.amazonaws.com"


def policy(style: str) -> str:
    """Own stylesheets and scripts only, the brand colour's one ``<style>`` by its hash, images of
    our own (and the storage's presigned URLs), forms posted back to us, never framed."""
    storage = storage_origin()
    return "; ".join(
        (
            "default-src 'none'",
            f"style-src 'self' {style}",
            "script-src 'self'",
            f"img-src 'self' data: blob: {storage}".strip(),
            f"connect-src 'self' {storage}".strip(),
            "manifest-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


@cache
def imported(template: str) -> dict[str, Any]:
    """The macros ``template`` imports at its top level (``{% from "x" import y %}``): a
    block rendered alone (jinja2-fragments) runs none of the template's top-level statements,
    so they are handed to it as context, exactly as the whole page's rendering would set them."""
    env = environment()
    source, _, _ = env.loader.get_source(env, template)  # type: ignore[union-attr]
    names: dict[str, Any] = {}
    for node in env.parse(source).body:
        if isinstance(node, nodes.FromImport) and isinstance(node.template, nodes.Const):
            module = env.get_template(node.template.value).module
            for entry in node.names:
                name, alias = entry if isinstance(entry, tuple) else (entry, entry)
                names[alias] = getattr(module, name)
        elif isinstance(node, nodes.Import) and isinstance(node.template, nodes.Const):
            names[node.target] = env.get_template(node.template.value).module
    return names


def fragment_of(request: Request, template: str) -> str | None:
    """The block htmx asked for, when the template has one by that name."""
    headers = request.headers
    if headers.get("hx-request") != "true" or headers.get("hx-history-restore-request"):
        return None
    if headers.get("hx-boosted") == "true":
        return None
    target = (headers.get("hx-target") or "").replace("-", "_")
    if not target:
        return None
    blocks = environment().get_template(template).blocks
    return target if target in blocks else None


def render(
    request: Request,
    template: str,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    referrer: str = "no-referrer",
    **context: Any,
) -> HTMLResponse:
    """``template`` with ``context`` (``brand=`` a ``Brand``; ``shell=`` the app's layout),
    the CSRF token, the flash messages and the page's headers. ``referrer``: ``no-referrer``
    for a page whose URL is a credential, ``same-origin`` for the app's."""
    token, fresh = csrf_token(request)
    context.setdefault("brand", PLUMBLINE)
    shell = context.get("shell")
    chosen = shell.language if shell is not None else request.cookies.get(i18n.LANGUAGE_COOKIE)
    lang = i18n.negotiate(chosen, request.headers.get("accept-language"))
    flashes = take_flashes(request)
    values = {
        **context,
        "csrf": token,
        "lang": lang,
        "flashes": flashes,
        "request_path": request.url.path,
        "query": dict(request.query_params),
    }
    block = fragment_of(request, template)
    with i18n.speaking(lang):
        if block is not None:
            html = render_block(environment(), template, block, **imported(template), **values)
        else:
            html = environment().get_template(template).render(**values)
    response = HTMLResponse(html, status_code=status, headers=headers)
    response.headers["Content-Security-Policy"] = policy(values["brand"].css_hash)
    response.headers["Referrer-Policy"] = referrer
    response.headers["Cache-Control"] = "no-store"
    response.headers["Vary"] = "HX-Request, HX-Target"
    if fresh:
        response.set_cookie(
            "plumbline_csrf",
            token,
            path="/",
            httponly=True,
            samesite="lax",
            secure=settings.public_url.startswith("https://"),
        )
    if flashes:
        response.delete_cookie("plumbline_flash", path="/")
    return response
