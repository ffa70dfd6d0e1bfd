"""The one error tree, and the handlers that render it as ``{"error", "code", "details"?}``.

An unexpected exception becomes ``Internal`` in ``kit.middleware.RequestContextMiddleware``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from plumbline.kit.responses import ORJSONResponse


class AppError(Exception):
    status = 400
    code = "BAD_REQUEST"
    message = "Bad request"
    # What a refusal of a public token concerns (its grant): the page showing the refusal wears
    # the grant's workspace branding. Never part of the JSON body.
    about: Any = None

    def __init_subclass__(
        cls, *, status: int | None = None, code: str | None = None, message: str | None = None
    ) -> None:
        """A subclass names what it changes in its class line:
        ``class TagTaken(Conflict, message="Another asset has this tag"): ...``."""
        super().__init_subclass__()
        for name, value in (("status", status), ("code", code), ("message", message)):
            if value is not None:
                setattr(cls, name, value)

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        details: list[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
        **extra: Any,
    ) -> None:
        self.message = message or self.message
        self.code = code or self.code
        self.details = details
        self.headers = headers
        self.extra = extra
        super().__init__(self.message)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled whole (its attributes, whatever its ``__init__`` takes): a refusal made in
        a worker process is raised in the request's (``drawing_ai.sandbox``)."""
        return (_rebuild, (type(self), self.__dict__))

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.message, "code": self.code}
        if self.details:
            body["details"] = self.details
        body.update(self.extra)
        return body


def _rebuild(kind: type[AppError], state: dict[str, Any]) -> AppError:
    error = kind.__new__(kind)
    error.__dict__.update(state)
    error.args = (error.message,)
    return error


class BadRequest(AppError): ...


class ValidationFailed(AppError, code="VALIDATION_FAILED", message="Validation failed"): ...


class InvalidField(ValidationFailed):
    """The one 400 about one field, with the usual ``details``; ``error`` words the body's
    ``error`` where "Invalid <field>: <message>" would not read well."""

    def __init__(self, field: str, message: str, *, error: str | None = None) -> None:
        super().__init__(
            error or f"Invalid {field}: {message}", details=[{"field": field, "message": message}]
        )


class Unauthorized(AppError, status=401, code="UNAUTHORIZED", message="Unauthorized"): ...


class PaymentRequired(
    AppError,
    status=402,
    code="PLAN_REQUIRED",
    message="This feature is not included in the workspace's plan",
): ...


class Forbidden(
    AppError, status=403, code="FORBIDDEN", message="You do not have permission to do this"
): ...


class EmailNotVerified(
    Forbidden, code="EMAIL_NOT_VERIFIED", message="Email verification required"
): ...


class NotFound(AppError, status=404, code="NOT_FOUND", message="Not found"): ...


T = TypeVar("T")


def found(value: T | None, missing: NotFound | str) -> T:
    """The one load-or-404: ``value``, or ``missing`` (the error, or its message) raised when
    the lookup found nothing."""
    if value is None:
        # A domain's own NotFound keeps its message; a string is the usual NOT_FOUND body.
        raise missing if isinstance(missing, NotFound) else NotFound(missing)
    return value


class Conflict(AppError, status=409, code="CONFLICT", message="Conflict"): ...


class InvalidTransition(
    Conflict, code="INVALID_TRANSITION", message="This status change is not allowed"
): ...


class Expired(AppError, status=410, code="EXPIRED", message="This link has expired"): ...


class PreconditionFailed(
    AppError,
    status=412,
    code="PRECONDITION_FAILED",
    message="The resource changed since the entity tag in If-Match (read it again)",
): ...


class PayloadTooLarge(
    AppError, status=413, code="PAYLOAD_TOO_LARGE", message="Request body too large"
): ...


class UnsupportedMediaType(
    AppError, status=415, code="UNSUPPORTED_MEDIA_TYPE", message="Unsupported media type"
): ...


class RateLimited(AppError, status=429, code="RATE_LIMITED", message="Too many requests"): ...


class Internal(AppError, status=500, code="INTERNAL", message="Internal server error"):
    """Rendered by the request middleware for any exception nothing else handled."""


class NotConfigured(
    AppError,
    status=503,
    code="NOT_CONFIGURED",
    message="This feature is not configured on this server",
): ...


# Starlette's own refusals (unknown route, wrong method) in the codes of the tree above.
_REFUSALS = (BadRequest, Unauthorized, Forbidden, NotFound, Conflict, PayloadTooLarge, RateLimited)
_STATUS_CODES = {405: "METHOD_NOT_ALLOWED"} | {
    error.status: error.code for error in (*_REFUSALS, UnsupportedMediaType)
}


def error_response(error: AppError) -> ORJSONResponse:
    return ORJSONResponse(error.body(), status_code=error.status, headers=error.headers)


# The pages people open from our e-mails (``plumbline.pages``) answer every refusal as a page.
PAGE_PREFIXES = ("/portal/", "/account/", "/app/")
# The refusal and, from the error handlers, the request (the middleware's 413 and 500 have none).
PageRenderer = Callable[[AppError, Request | None], Response]


class ErrorAnswer:
    """The one place a refusal becomes a response: JSON, or under ``PAGE_PREFIXES`` the error
    page ``page`` renders (the error handlers and the middleware's 413 and 500 all ask it)."""

    def __init__(self, page: PageRenderer | None = None) -> None:
        self.page = page

    def __call__(self, error: AppError, path: str, request: Request | None = None) -> Response:
        if self.page is not None and path.startswith(PAGE_PREFIXES):
            return self.page(error, request)
        return error_response(error)


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header", "cookie")]
    return ".".join(parts) or "body"


def _invalid_json(document: str | bytes, position: int, reason: str) -> BadRequest:
    """Where a body stopped being JSON, as a person counts: line and column from 1."""
    text = document.decode("utf-8", "replace") if isinstance(document, bytes) else document
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return BadRequest(
        f"The body is not valid JSON: {reason} (line {line}, column {column})", code="INVALID_JSON"
    )


def validation_failed(exc: RequestValidationError) -> AppError:
    """Request validation as a 400 naming the first bad field, with every field in details; a
    body that is not JSON is 415 (not sent as JSON) or 400 ``INVALID_JSON`` (broken JSON)."""
    errors = exc.errors()
    for error in errors:
        if error.get("type") == "json_invalid":
            reason = str(error.get("ctx", {}).get("error", "invalid JSON"))
            return _invalid_json(exc.body or "", int(error["loc"][-1]), reason)
        # FastAPI hands a JSON route the raw bytes when the Content-Type is not JSON.
        if tuple(error.get("loc", ())) == ("body",) and isinstance(error.get("input"), bytes):
            return UnsupportedMediaType("Send the body as JSON (Content-Type: application/json)")
    details = [
        {"field": _field(tuple(e.get("loc", ()))), "message": e.get("msg", "")} for e in errors
    ]
    first = details[0] if details else {"field": "body", "message": "invalid"}
    return ValidationFailed(f"Invalid {first['field']}: {first['message']}", details=details)


def install_error_handlers(app: FastAPI, answer: ErrorAnswer | None = None) -> None:
    answer = answer or ErrorAnswer()

    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> Response:
        return answer(exc, request.url.path, request)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        return answer(validation_failed(exc), request.url.path, request)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        code = _STATUS_CODES.get(exc.status_code, "ERROR")
        message = exc.detail if isinstance(exc.detail, str) else "Request failed"
        if request.url.path.startswith(PAGE_PREFIXES):
            refusal = AppError(message, code=code, headers=dict(exc.headers or {}) or None)
            refusal.status = exc.status_code
            return answer(refusal, request.url.path, request)
        body = {"error": message, "code": code}
        if request.url.path.startswith("/api/auth/"):
            body["message"] = message  # the Better Auth client reads "message"
        return ORJSONResponse(body, status_code=exc.status_code, headers=exc.headers)
