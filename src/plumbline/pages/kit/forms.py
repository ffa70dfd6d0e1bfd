"""Forms: read by the same schemas as the JSON routes, each error beside its field, what was
typed kept, one record per submission (the ``submission`` field is the form's Idempotency-Key:
``plumbline.idempotency`` answers a second POST of it with the first's redirect)."""

from __future__ import annotations

import secrets
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from plumbline.errors import AppError
from plumbline.pages.kit.i18n import gettext as _

M = TypeVar("M", bound=BaseModel)
Errors = dict[str, str]


def submission() -> str:
    """A new form's key (rendered as its hidden ``submission`` field)."""
    return secrets.token_urlsafe(18)


def _sentence(message: str) -> str:
    message = message.removeprefix("Value error, ")
    return message[:1].upper() + message[1:]


def validate(
    schema: type[M], data: dict[str, Any], required: dict[str, str] | None = None
) -> M | Errors:
    """The body the JSON route would take, or every field error of the form at once (by field
    name). ``required``: a field's own message when it is left empty ("Enter a title")."""
    errors = {name: message for name, message in (required or {}).items() if not data.get(name)}
    try:
        body = schema.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else "form"
            errors.setdefault(name, _sentence(str(error["msg"])))
        return errors
    return errors or body


def field_errors(exc: AppError) -> Errors:
    """A service's refusal as field errors (``details``, or the message on the form)."""
    details = exc.details or [
        {"field": getattr(exc, "field", None) or "form", "message": exc.message}
    ]
    return {str(d["field"]).split(".")[0]: _sentence(str(d["message"])) for d in details}


def required(**messages: str) -> dict[str, str]:
    """``required(title=_("Enter a title"))``."""
    return messages


__all__ = ["Errors", "_", "field_errors", "required", "submission", "validate"]
