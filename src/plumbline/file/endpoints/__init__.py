"""The routers of the files domain (registered in ``plumbline.api``)."""

from functools import partial

from plumbline import openapi

# The files routes' wording of their error responses in the OpenAPI. 403 and 409 repeat
# FastAPI's phrase on purpose: a given description is served before the content, the order
# clients of the published description already have.
DESCRIPTIONS = {
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
errors = partial(openapi.errors, texts=DESCRIPTIONS)
