"""SCIM's own error answers (RFC 7644 §3.12): ``urn:ietf:params:scim:api:messages:2.0:Error``,
``status`` a string, ``scimType`` where the RFC names one."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import ValidationError
from starlette.responses import Response

from plumbline.errors import AppError

MEDIA_TYPE = "application/scim+json"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"


class ScimError(Exception):
    def __init__(self, status: int, detail: str, scim_type: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.scim_type = status, detail, scim_type


def invalid_value(detail: str) -> ScimError:
    return ScimError(400, detail, "invalidValue")


def not_found(detail: str = "Resource not found") -> ScimError:
    return ScimError(404, detail)


def scim_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status, headers, media_type=MEDIA_TYPE)


def error_response(error: ScimError) -> Response:
    body: dict[str, Any] = {
        "schemas": [ERROR_SCHEMA],
        "status": str(error.status),
        "detail": error.detail,
    }
    if error.scim_type:
        body["scimType"] = error.scim_type
    headers = {"WWW-Authenticate": 'Bearer realm="scim"'} if error.status == 401 else None
    return scim_response(body, error.status, headers)


def from_app_error(error: AppError) -> ScimError:
    return ScimError(error.status, error.message)


def from_validation(error: ValidationError) -> ScimError:
    """scim2-models' refusals name the SCIM error type (``scim_invalidPath``...)."""
    for item in error.errors():
        kind = str(item.get("type", ""))
        if kind.startswith("scim_"):
            return ScimError(400, str(item.get("msg")), kind.removeprefix("scim_"))
    if not error.errors():
        return invalid_value("invalid")
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return invalid_value(f"{where}: {first['msg']}".strip(": "))
