"""The routers of the files domain (registered in ``plumbline.api``)."""

from typing import Any

from plumbline.kit.schema import ErrorBody

_DESCRIPTIONS = {
    402: "Plan required or storage quota exceeded",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    410: "Expired",
    413: "Too large",
    415: "Unsupported media type",
    416: "Requested range not satisfiable",
}
BINARY = {"*/*": {"schema": {"type": "string", "format": "binary"}}}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """Extra error responses of a route, for the OpenAPI description."""
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in codes}
