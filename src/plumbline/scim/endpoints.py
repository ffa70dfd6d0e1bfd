"""``/scim/v2/{workspaceId}/``: Users, Groups and the discovery documents, in SCIM's own
media type and error schema (so outside the /api/v1 OpenAPI, which describes our own)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from plumbline.db import DB
from plumbline.errors import AppError
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import UnitOfWorkRoute
from plumbline.scim import discovery
from plumbline.scim.auth import ScimCaller, scim_caller
from plumbline.scim.documents import base_url
from plumbline.scim.errors import (
    ScimError,
    error_response,
    from_app_error,
    not_found,
    scim_response,
)
from plumbline.scim.service import scim


class ScimRoute(UnitOfWorkRoute):
    """Every refusal in SCIM's error schema (the unit of work has rolled back by then)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def run(request: Request) -> Response:
            try:
                return await handler(request)
            except ScimError as exc:
                return error_response(exc)
            except AppError as exc:
                return error_response(from_app_error(exc))
            except RequestValidationError as exc:
                return error_response(ScimError(400, str(exc.errors())[:500], "invalidSyntax"))

        return run


router = APIRouter(
    prefix="/scim/v2/{workspaceId}",
    route_class=ScimRoute,
    default_response_class=ORJSONResponse,
    tags=["scim"],
    include_in_schema=False,
)
Caller = Annotated[ScimCaller, Depends(scim_caller)]
ENDPOINTS = {"ServiceProviderConfig", "ResourceTypes", "Schemas", "Users", "Groups"}


async def body_of(request: Request) -> Any:
    try:
        return orjson.loads(await request.body())
    except orjson.JSONDecodeError as exc:
        raise ScimError(400, "The body is not JSON", "invalidSyntax") from exc


def query_of(request: Request) -> dict[str, str]:
    return dict(request.query_params)


def created(doc: dict[str, Any]) -> Response:
    return scim_response(doc, 201, {"Location": doc["meta"]["location"]})


@router.get("/ServiceProviderConfig")
async def service_provider_config(caller: Caller) -> Response:
    """What this SCIM server supports."""
    return scim_response(discovery.service_provider_config(base_url(caller.workspace.id)))


@router.get("/ResourceTypes")
async def resource_types(caller: Caller) -> Response:
    """User and Group."""
    return scim_response(
        discovery.list_response(discovery.resource_types(base_url(caller.workspace.id)))
    )


@router.get("/ResourceTypes/{name}")
async def resource_type(caller: Caller, name: str) -> Response:
    """One resource type."""
    found = [t for t in discovery.resource_types(base_url(caller.workspace.id)) if t["id"] == name]
    if not found:
        raise not_found(f"Resource type {name} not found")
    return scim_response(found[0])


@router.get("/Schemas")
async def schemas(caller: Caller) -> Response:
    """The User and Group schemas, with the attributes this server keeps."""
    return scim_response(discovery.list_response(discovery.schemas(base_url(caller.workspace.id))))


@router.get("/Schemas/{schema_id}")
async def schema(caller: Caller, schema_id: str) -> Response:
    """One schema."""
    found = [s for s in discovery.schemas(base_url(caller.workspace.id)) if s["id"] == schema_id]
    if not found:
        raise not_found(f"Schema {schema_id} not found")
    return scim_response(found[0])


@router.get("/Users")
async def list_users(caller: Caller, db: DB, request: Request) -> Response:
    """Users, filtered (``filter``) and paged (``startIndex``, ``count``)."""
    return scim_response(await scim.list_users(db, caller, query_of(request)))


@router.post("/Users")
async def create_user(caller: Caller, db: DB, request: Request) -> Response:
    """Provision a person: an account (found by e-mail, or new) joined to the workspace."""
    return created(await scim.create_user(db, caller, await body_of(request)))


@router.get("/Users/{user_id}")
async def read_user(caller: Caller, db: DB, user_id: str, request: Request) -> Response:
    """One User."""
    return scim_response(await scim.read_user(db, caller, user_id, query_of(request)))


@router.put("/Users/{user_id}")
async def replace_user(caller: Caller, db: DB, user_id: str, request: Request) -> Response:
    """Replace a User; ``active: false`` ends their access and sessions at once."""
    return scim_response(await scim.replace_user(db, caller, user_id, await body_of(request)))


@router.patch("/Users/{user_id}")
async def patch_user(caller: Caller, db: DB, user_id: str, request: Request) -> Response:
    """PatchOp on a User (Entra's and Okta's forms); deactivation takes effect at once."""
    return scim_response(await scim.patch_user(db, caller, user_id, await body_of(request)))


@router.delete("/Users/{user_id}", status_code=204)
async def delete_user(caller: Caller, db: DB, user_id: str) -> Response:
    """Deprovision a person: membership and sessions end; the account stays."""
    await scim.delete_user(db, caller, user_id)
    return Response(status_code=204)


@router.get("/Groups")
async def list_groups(caller: Caller, db: DB, request: Request) -> Response:
    """Groups, filtered and paged."""
    return scim_response(await scim.list_groups(db, caller, query_of(request)))


@router.post("/Groups")
async def create_group(caller: Caller, db: DB, request: Request) -> Response:
    """A group; named ADMIN, MANAGER or MEMBER, it gives its members that role."""
    return created(await scim.create_group(db, caller, await body_of(request)))


@router.get("/Groups/{group_id}")
async def read_group(caller: Caller, db: DB, group_id: str, request: Request) -> Response:
    """One Group."""
    return scim_response(await scim.read_group(db, caller, group_id, query_of(request)))


@router.put("/Groups/{group_id}")
async def replace_group(caller: Caller, db: DB, group_id: str, request: Request) -> Response:
    """Replace a Group."""
    return scim_response(await scim.replace_group(db, caller, group_id, await body_of(request)))


@router.patch("/Groups/{group_id}")
async def patch_group(caller: Caller, db: DB, group_id: str, request: Request) -> Response:
    """PatchOp on a Group (members added and removed as Entra and Okta send them)."""
    return scim_response(await scim.patch_group(db, caller, group_id, await body_of(request)))


@router.delete("/Groups/{group_id}", status_code=204)
async def delete_group(caller: Caller, db: DB, group_id: str) -> Response:
    """Delete a Group (its members keep their accounts; roles are recomputed)."""
    await scim.delete_group(db, caller, group_id)
    return Response(status_code=204)


@router.post("/.search")
async def search_all(caller: Caller, db: DB, request: Request) -> Response:
    """A SearchRequest over Users and Groups."""
    found = await scim.search(db, caller, ("User", "Group"), await body_of(request))
    return scim_response(found)


@router.post("/Users/.search")
async def search_users(caller: Caller, db: DB, request: Request) -> Response:
    """A SearchRequest over Users."""
    return scim_response(await scim.search(db, caller, ("User",), await body_of(request)))


@router.post("/Groups/.search")
async def search_groups(caller: Caller, db: DB, request: Request) -> Response:
    """A SearchRequest over Groups."""
    return scim_response(await scim.search(db, caller, ("Group",), await body_of(request)))


# A GET of its own, so that it runs without a transaction like every other read.
@router.get("/{rest:path}")
@router.api_route("/{rest:path}", methods=["POST", "PUT", "PATCH", "DELETE"])
async def unknown(caller: Caller, rest: str, request: Request) -> Response:
    """Anything else under the SCIM base: a SCIM 404, or 405 for a method an endpoint lacks."""
    if rest.split("/", 1)[0] in ENDPOINTS:
        raise ScimError(405, f"{request.method} is not supported on /{rest}")
    raise not_found(f"/{rest} is not a SCIM endpoint")
