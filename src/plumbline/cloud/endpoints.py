"""``/cloud/*``: a user's connections, the OAuth round trip, browse, open-link and import."""

from functools import partial
from typing import Annotated

from fastapi import Query
from fastapi.responses import RedirectResponse

from plumbline import openapi
from plumbline.auth.deps import CurrentUser
from plumbline.cloud.providers import ProviderName
from plumbline.cloud.schemas import (
    Browse,
    CloudItemRead,
    CloudLinkRead,
    ConnectionRead,
    ImportItem,
    OpenLink,
)
from plumbline.cloud.service import cloud as cloud_service
from plumbline.db import DB, UoW
from plumbline.file.schemas import UploadResult
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.openapi import Responses
from plumbline.routing import make_router, transactional

router = make_router(prefix="/cloud", tags=["cloud"])

DESCRIPTIONS = {
    402: "Plan required or storage quota exceeded",
    404: "Not connected, or the item or project was not found",
    409: "RECONNECT_REQUIRED: the provider refused the stored tokens, or a conflict",
    413: "Too large",
    415: "Unsupported media type",
    502: "The provider could not be reached or answered an error",
    503: "NOT_CONFIGURED: the provider is not configured on this server",
}
NEXT_CURSOR = "X-Next-Cursor"
errors = partial(openapi.errors, texts=DESCRIPTIONS)


REDIRECT: Responses = {
    302: {"description": "Redirect", "headers": {"Location": {"schema": {"type": "string"}}}}
}
ReturnTo = Annotated[str, Query(alias="returnTo", max_length=2000)]
Code = Annotated[str | None, Query(max_length=4000)]
State = Annotated[str, Query(min_length=1, max_length=2000)]
ProviderError = Annotated[str | None, Query(alias="error", max_length=200)]


@router.get("/connections", response_model=list[ConnectionRead], responses=errors(402))
async def list_connections(principal: CurrentUser, db: DB) -> ORJSONResponse:
    """The caller's cloud-storage connections (never their tokens)."""
    return ORJSONResponse(await cloud_service.connections(db, principal))


@router.get(
    "/{provider}/authorize",
    status_code=302,
    response_class=RedirectResponse,
    responses={**REDIRECT, **errors(402, 503)},
)
@transactional
async def authorize(
    provider: ProviderName, principal: CurrentUser, db: DB, return_to: ReturnTo = "/"
) -> RedirectResponse:
    """Redirect to the provider to connect an account (PKCE, a state valid for 10 minutes)."""
    url = await cloud_service.authorize(db, principal, provider, return_to)
    return RedirectResponse(url, status_code=302)


@router.get(
    "/{provider}/callback",
    status_code=302,
    response_class=RedirectResponse,
    responses={**REDIRECT, **errors(502, 503)},
)
@transactional
async def callback(
    provider: ProviderName,
    principal: CurrentUser,
    db: DB,
    state: State,
    code: Code = None,
    error: ProviderError = None,
) -> RedirectResponse:
    """Where the provider sends the user back: keep the tokens, then go to ``returnTo``."""
    return_to = await cloud_service.callback(
        db, principal, provider, code=code, state=state, error=error
    )
    return RedirectResponse(return_to, status_code=302)


@router.delete("/{provider}", response_model=Ok, responses=errors(404, 503))
async def disconnect(provider: ProviderName, principal: CurrentUser, uow: UoW) -> ORJSONResponse:
    """Disconnect: revoke the grant at the provider and forget the tokens."""
    await cloud_service.disconnect(uow, principal, provider)
    return ORJSONResponse({"ok": True})


@router.post(
    "/{provider}/browse",
    response_model=list[CloudItemRead],
    responses={
        200: {
            "description": "One page of the folder; X-Next-Cursor names the next when there is one",
            "headers": {NEXT_CURSOR: {"schema": {"type": "string"}}},
        },
        **errors(402, 404, 409, 502, 503),
    },
)
async def browse(
    provider: ProviderName, principal: CurrentUser, uow: UoW, body: Browse
) -> ORJSONResponse:
    """List a folder of the connected account (the root by default), a page at a time."""
    items, cursor = await cloud_service.browse(uow, principal, provider, body)
    return ORJSONResponse(items, headers={NEXT_CURSOR: cursor} if cursor else None)


@router.post(
    "/{provider}/open-link",
    response_model=CloudLinkRead,
    responses=errors(402, 404, 409, 502, 503),
)
async def open_link(
    provider: ProviderName, principal: CurrentUser, uow: UoW, body: OpenLink
) -> ORJSONResponse:
    """A link that opens the item at the provider."""
    return ORJSONResponse(await cloud_service.open_link(uow, principal, provider, body.item_id))


@router.post(
    "/{provider}/import",
    response_model=UploadResult,
    responses=errors(402, 404, 409, 413, 415, 502, 503),
)
async def import_item(
    provider: ProviderName, principal: CurrentUser, uow: UoW, body: ImportItem
) -> ORJSONResponse:
    """Copy a file into a project, stored exactly as an upload (new file or new version)."""
    return ORJSONResponse(await cloud_service.import_item(uow, principal, provider, body))
