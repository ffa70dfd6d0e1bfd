"""The served OpenAPI 3.1.0 description, and ``errors()`` for a route's own error responses.

No 422s, every error response declared, links from each project record's create to the routes
of the record it made.
"""

import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, routing
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from plumbline import __version__, conditional
from plumbline.events.catalogue import TYPES
from plumbline.idempotency import service as idempotency
from plumbline.kit.schema import ErrorBody
from plumbline.routing import UnitOfWorkRoute, dependency_calls
from plumbline.webhook.schemas import TEST_TYPE, WebhookEvent

ERROR_DESCRIPTIONS = {
    "400": "Validation or request error",
    "401": "Unauthorized: no valid session and no valid API key",
    "402": "Plan required, subscription inactive, seat limit or storage quota reached",
    "403": "Forbidden: role, project, scope, e-mail verification or disabled module",
    "404": "Not found (also for records of other tenants)",
    "409": "Conflict: invalid transition, lock held or revision conflict",
    "413": "Request body too large",
    "415": "Unsupported media type: the body is not JSON, or a file type this route refuses",
    "412": "Precondition failed: the resource changed since the entity tag in If-Match",
    "429": "Rate limited; see Retry-After",
    "500": "Internal server error",
}
PUBLIC_ERRORS = ("400", "404", "413", "429", "500")
PROTECTED_ERRORS = ("400", "401", "402", "403", "404", "409", "413", "429", "500")
# Collections whose create answers the new record (``id``) and whose routes live under
# ``<collection>/{someId}``; elsewhere (members, invites) the POST answers something else.
LINKED_COLLECTIONS = re.compile(r"/api/v1/projects/\{projectId\}/[\w-]+")
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": (
        "Makes the POST safe to retry: the same key and body from the same caller within 24"
        " hours get the first answer again (marked `Idempotent-Replayed: true`) and write"
        " nothing; another body or route with the key is 422 `IDEMPOTENCY_KEY_REUSED`. Only"
        " answers below 400 are kept. 1 to 255 printable ASCII characters."
    ),
    # No space at either end: HTTP drops it there.
    "schema": {"type": "string", "maxLength": 255, "pattern": "^[!-~]([ -~]*[!-~])?$"},
}
REPLAYED_HEADER = {
    "description": "`true` on the replay of a stored answer to an `Idempotency-Key`",
    "schema": {"type": "string", "enum": ["true"]},
}
Responses = dict[int | str, dict[str, Any]]


def errors(*statuses: int, texts: Mapping[int, str] | None = None) -> Responses:
    """A route's own error responses (``responses=``), each an ``ErrorBody``: the statuses
    listed, or all that ``texts`` describes when none is; one ``texts`` leaves out is
    described by its HTTP reason phrase (FastAPI's default). A domain with its own wording
    binds it once: ``errors = partial(openapi.errors, texts=DESCRIPTIONS)`` (files, cloud)."""
    texts = texts or {}
    return {
        status: {"model": ErrorBody, "description": texts[status]}
        if status in texts
        else {"model": ErrorBody}
        for status in statuses or texts
    }


def build_openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title="Plumbline",
        version=__version__,
        openapi_version="3.1.0",
        description="Coordination and operations service for construction and facilities teams.",
        routes=app.routes,
    )
    components = schema.setdefault("components", {})
    _declare_security(app, schema["paths"], components.setdefault("securitySchemes", {}))
    _declare_conditions(app, schema["paths"])
    schemas = components.setdefault("schemas", {})
    schemas["ErrorBody"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(schemas["ErrorBody"].pop("$defs", {}))
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            codes = PROTECTED_ERRORS if operation.get("security") else PUBLIC_ERRORS
            if "requestBody" in operation:  # a body not sent as JSON is refused with 415
                codes = (*codes, "415")
            for code in codes:
                responses.setdefault(
                    code, {"description": ERROR_DESCRIPTIONS[code], "content": error_ref}
                )
            for code, response in responses.items():
                # Errors are JSON whatever the route answers on success (an HTML page's 410):
                # FastAPI would declare a route's ErrorBody in the route's own media type.
                content = response.get("content", {})
                if code[:1] in "45" and any(
                    media.get("schema") == error_ref["application/json"]["schema"]
                    for media in content.values()
                ):
                    response["content"] = error_ref
    _declare_idempotency(schema["paths"], error_ref)
    _link_creates(schema["paths"])
    schema["webhooks"] = _webhooks(schemas)
    app.openapi_schema = schema
    return schema


def _declare_idempotency(paths: dict[str, Any], error_ref: dict[str, Any]) -> None:
    """The ``Idempotency-Key`` header of every POST under /api/v1, its 422, and the header
    that marks a replay (``plumbline.idempotency``)."""
    for path, item in paths.items():
        operation = item.get("post")
        if operation is None or not idempotency.applies("POST", path):
            continue
        operation.setdefault("parameters", []).append(dict(IDEMPOTENCY_KEY))
        responses = operation["responses"]
        responses["422"] = {
            "description": "`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key came with another"
            " body or route first",
            "content": error_ref,
        }
        for code, response in responses.items():
            if code.startswith("2"):
                response.setdefault("headers", {})["Idempotent-Replayed"] = dict(REPLAYED_HEADER)


def _link_creates(paths: dict[str, Any]) -> None:
    """OpenAPI links (stateful clients follow them) from each create POST on a project
    collection to every operation under ``<collection>/{someId}``, which names the new ``id``."""
    for collection, item in paths.items():
        if "post" not in item or not LINKED_COLLECTIONS.fullmatch(collection):
            continue
        links = item["post"]["responses"]["200"].setdefault("links", {})
        for path, target_item in paths.items():
            under = re.fullmatch(re.escape(collection) + r"/\{(\w+)\}(/.*)?", path)
            if under is None:
                continue
            for operation in target_item.values():
                named = [p["name"] for p in operation.get("parameters", ()) if p["in"] == "path"]
                parameters = {
                    name: "$response.body#/id" if name == under[1] else f"$request.path.{name}"
                    for name in named
                    if name == under[1] or f"{{{name}}}" in collection
                }
                links[operation["operationId"]] = {
                    "operationId": operation["operationId"],
                    "parameters": parameters,
                }


def _declare_security(app: FastAPI, paths: dict[str, Any], schemes: dict[str, Any]) -> None:
    """Each operation's ``security``: the schemes its principal dependency names
    (``auth.deps.principal_dependency``), which reads the credentials itself."""
    for context in routing.iter_route_contexts(app.routes):
        route = context.original_route
        path_item = paths.get(str(context.path))
        if not isinstance(route, APIRoute) or path_item is None:
            continue
        for scheme in (s for call in dependency_calls(route.dependant) for s in _schemes(call)):
            schemes[scheme.scheme_name] = scheme.model.model_dump(
                mode="json", by_alias=True, exclude_none=True
            )
            for method in route.methods or ():
                security = path_item[method.lower()].setdefault("security", [])
                if {scheme.scheme_name: []} not in security:
                    security.append({scheme.scheme_name: []})


# A list of entity tags or "*" (RFC 9110 §13.1.1): what a client generating requests from this
# description sends is well formed (anything else is a 400).
ENTITY_TAGS = {"type": "string", "pattern": r'^(\*|(W/)?"[!#-~]*"(, ?(W/)?"[!#-~]*")*)$'}
ETAG = {
    "ETag": {
        "description": "The entity tag of the resource as this route answers it (a hash of "
        "the body): send it back in If-None-Match to read, in If-Match to write",
        "schema": {"type": "string"},
    }
}
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "Entity tags held: 304 (no body) when the resource still has one of them",
    "schema": ENTITY_TAGS,
}
IF_MATCH = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": "Write only if the resource still has this entity tag (its ETag); else "
    "412 and nothing is written. `*`: only if it exists",
    "schema": ENTITY_TAGS,
}


def _declare_conditions(app: FastAPI, paths: dict[str, Any]) -> None:
    """The conditional requests of each route (``plumbline.conditional``): the single-resource
    reads' ETag, If-None-Match and 304; If-Match and 412 on the writes of their paths."""
    contexts = list(routing.iter_route_contexts(app.routes))
    error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for context in contexts:
        route = context.original_route
        path_item = paths.get(str(context.path))
        if not isinstance(route, UnitOfWorkRoute) or path_item is None:
            continue
        place = conditional.place_of(route, contexts)
        for method in route.methods or ():
            operation = path_item[method.lower()]
            responses = operation.setdefault("responses", {})
            if place.tagged:
                responses["200"].setdefault("headers", {}).update(ETAG)
            if place.read:
                operation.setdefault("parameters", []).append(IF_NONE_MATCH)
                responses["304"] = {
                    "description": "Not modified: the tag is current",
                    "headers": ETAG,
                }
            if place.reader is not None:
                operation.setdefault("parameters", []).append(IF_MATCH)
                responses["412"] = {"description": ERROR_DESCRIPTIONS["412"], "content": error_ref}


def _schemes(call: Any) -> tuple[Any, ...]:
    return getattr(call, "__plumbline_schemes__", ())


# The schema of each resource's ``data`` in an event: the resource as its routes answer it.
EVENT_DATA = {
    "issue": "IssueRead",
    "comment": "IssueCommentRead",
    "rfi": "RfiRead",
    "punch": "PunchRead",
    "field_report": "FieldReportRead",
    "proposal": "ProposalRead",
    "asset": "AssetRead",
    "meter_reading": "ReadingRead",
    "maintenance_schedule": "MaintenanceScheduleRead",
    "inspection_run": "RunRead",
    "schedule": "ScheduleRead",
    "material": "MaterialRead",
    "file": "FileRead",
    "file_version": "VersionRead",
    "stock_location": "LocationRead",
    "stock_move": "MoveRead",
    "work_order_cost": "CostRead",
    "purchase_order": "OrderRead",
    "downtime": "DowntimeRead",
}
# What is left of a deleted resource in its event (``events.log.tombstone``).
TOMBSTONE = {
    "type": "object",
    "required": ["type", "id", "deletedAt"],
    "properties": {
        "type": {"type": "string"},
        "id": {"type": "string"},
        "deletedAt": {"type": "string", "format": "date-time"},
    },
}
SIGNATURE_HEADERS = (
    ("webhook-id", "The event's id: the same on every attempt (deduplicate on it)"),
    ("webhook-timestamp", "When this attempt was signed, in seconds since the epoch"),
    (
        "webhook-signature",
        "Space-separated v1,<base64 HMAC-SHA256 of id.timestamp.body>: one per signing "
        "secret (two for 24 h after a rotation)",
    ),
)


def _webhooks(schemas: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI 3.1 ``webhooks``: every event type a webhook may subscribe to (and the
    test event), each a signed POST of a ``WebhookEvent`` whose ``data`` is the resource."""
    schemas["WebhookEvent"] = WebhookEvent.model_json_schema(
        ref_template="#/components/schemas/{model}", by_alias=True
    )
    parameters = [
        {
            "name": name,
            "in": "header",
            "required": True,
            "schema": {"type": "string"},
            "description": text,
        }
        for name, text in SIGNATURE_HEADERS
    ]
    hooks: dict[str, Any] = {}
    for kind in (*TYPES, TEST_TYPE):
        resource, verb = kind.rsplit(".", 1)
        name = EVENT_DATA.get(resource)
        data: dict[str, Any] = (
            TOMBSTONE
            if verb == "deleted"
            else {"$ref": f"#/components/schemas/{name}"}
            if name in schemas
            else {"type": "object"}
        )
        body = {
            "allOf": [
                {"$ref": "#/components/schemas/WebhookEvent"},
                {"type": "object", "properties": {"type": {"const": kind}, "data": data}},
            ]
        }
        hooks[kind] = {
            "post": {
                "summary": f"{resource.replace('_', ' ')} {verb.replace('_', ' ')}",
                "description": (
                    "Sent to the project's webhooks subscribed to this type, signed as "
                    "Standard Webhooks specifies; retried with the same id for 3 days "
                    "until a 2xx answer."
                ),
                "operationId": f"webhook_{kind.replace('.', '_')}",
                "tags": ["webhooks"],
                "parameters": parameters,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": body}},
                },
                "responses": {
                    "2XX": {
                        "description": "Received: any other answer, or none within 10 s, is retried"
                    }
                },
            }
        }
    return hooks
