"""Pure ASGI middleware: request id, access log, security headers, the 500 answer, body size
limit."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from urllib.parse import urlsplit

from fastapi import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plumbline.config import settings
from plumbline.errors import BadRequest, ErrorAnswer, Internal, PayloadTooLarge
from plumbline.kit.client_address import forwarded_scheme, scope_client_ip
from plumbline.kit.ids import new_id
from plumbline.kit.logging import client_ip_var, request_id_var

log = logging.getLogger("plumbline.access")
errors_log = logging.getLogger("plumbline")

_VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def html_policy(public_url: str) -> str:
    """The Content-Security-Policy of the pages the service writes itself (the front door, the
    proposal preview, the local billing pages): their inline styles and images of their own,
    no script, nothing from another origin; their forms post to the page or to the public URL
    (where the billing pages send the browser on). Pages that need more, the API docs, send
    their own policy."""
    parts = urlsplit(public_url)
    return "; ".join(
        (
            "default-src 'none'",
            "style-src 'unsafe-inline'",
            "img-src 'self'",
            f"form-action 'self' {parts.scheme}://{parts.netloc}",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


def secure_headers(headers: list[tuple[bytes, bytes]], policy: bytes) -> None:
    """``X-Content-Type-Options: nosniff`` on every answer, and ``policy`` as the
    Content-Security-Policy of an HTML answer that brings none of its own."""
    names = {name.lower() for name, _ in headers}
    if b"x-content-type-options" not in names:
        headers.append((b"x-content-type-options", b"nosniff"))
    if b"content-security-policy" in names:
        return
    for name, value in headers:
        if name.lower() == b"content-type" and value[:9].lower() == b"text/html":
            headers.append((b"content-security-policy", policy))
            return


class RequestContextMiddleware:
    """Echoes or assigns ``X-Request-Id``, adds the security headers (``secure_headers``),
    answers 500 ``INTERNAL`` for any exception the app let through, and writes one access log
    line per request."""

    def __init__(self, app: ASGIApp, answer: ErrorAnswer | None = None) -> None:
        self.app = app
        self.answer = answer or ErrorAnswer()
        self.html_policy = html_policy(settings.public_url).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = None
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                sent = value.decode("latin-1")
                break
        request_id = sent if sent and _VALID_REQUEST_ID.match(sent) else new_id()
        started = time.perf_counter()
        status: int | None = None

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                secure_headers(headers, self.html_policy)
                message["headers"] = headers
            await send(message)

        if _has_nul(scope):
            refused = BadRequest("Invalid characters in the URL")
            await self.answer(refused, scope["path"], Request(scope))(scope, receive, send_with_id)
            return
        request_id_var.set(request_id)
        client_ip_var.set(scope_client_ip(scope))
        # uvicorn's proxy handling is off (kit/client_address.py): a trusted proxy's scheme
        # is applied here, so the URLs the app writes (Link headers) keep https.
        scheme = forwarded_scheme(scope)
        if scheme is not None:
            scope["scheme"] = scheme
        scope.setdefault("state", {})["request_id"] = request_id
        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            # The one place an unexpected error becomes a 500: every layer below lets it through
            # (the route class after its rollback), so it is logged once, with the request id.
            errors_log.exception("unhandled error", extra={"requestId": request_id})
            if status is not None:
                raise  # the response has begun: the server can only drop the connection
            await self.answer(Internal(), scope["path"], Request(scope))(
                scope, receive, send_with_id
            )
        finally:
            # The formatter redacts the tokens and signatures that paths and queries carry.
            extra: dict[str, object] = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
            query = scope.get("query_string")
            if query:
                extra["query"] = "?" + query.decode("latin-1")
            log.info("request", extra=extra)


def _has_nul(scope: Scope) -> bool:
    """A NUL in the path or query string: no id, filter or cursor may contain one, and
    PostgreSQL refuses it in text."""
    raw = scope.get("raw_path") or scope["path"].encode()
    query = scope.get("query_string", b"")
    return b"%00" in raw or b"\x00" in raw or b"%00" in query or b"\x00" in query


class BodyTooLarge(HTTPException):
    def __init__(self) -> None:
        super().__init__(413, "Request body too large")


class BodyLimitMiddleware:
    """Refuses request bodies over the limit for the path with 413 before the route runs."""

    def __init__(
        self,
        app: ASGIApp,
        limit_for: Callable[[str], int | None],
        answer: ErrorAnswer | None = None,
    ) -> None:
        self.app = app
        self.limit_for = limit_for
        self.answer = answer or ErrorAnswer()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        if limit is None:
            await self.app(scope, receive, send)
            return
        length: int | None = None
        for name, value in scope["headers"]:
            if name == b"content-length" and value.isdigit():
                length = int(value)
            elif name == b"transfer-encoding":
                length = None  # chunked: only counting tells
                break
        if length is not None:
            if length > limit:
                await self._too_large(scope, receive, send)
                return
            # The server hands the app exactly Content-Length bytes: nothing left to count.
            await self.app(scope, receive, send)
            return
        received = 0
        response_started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not response_started:
                await self._too_large(scope, receive, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.answer(PayloadTooLarge(), scope["path"], Request(scope))(scope, receive, send)
