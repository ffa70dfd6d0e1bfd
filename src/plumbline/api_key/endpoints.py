"""``/projects/{projectId}/api-keys``: list, create (the secret shown once) and revoke."""

from plumbline.api_key.auth import CanManageApiKeys
from plumbline.api_key.schemas import ApiKeyCreate, ApiKeyCreated, ApiKeyRead
from plumbline.api_key.service import api_key as api_key_service
from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router

router = make_router(tags=["api-keys"])


@router.get("/projects/{projectId}/api-keys", response_model=list[ApiKeyRead])
async def list_api_keys(ctx: CanManageApiKeys, db: DB, page: Page) -> ORJSONResponse:
    """The project's API keys (never the secret), newest first."""
    return ORJSONResponse.page(await api_key_service.list_keys(db, ctx, page))


@router.post("/projects/{projectId}/api-keys", response_model=ApiKeyCreated)
async def create_api_key(ctx: CanManageApiKeys, db: DB, body: ApiKeyCreate) -> ORJSONResponse:
    """Create an API key; the full key (apiKey) is shown in this response only."""
    return ORJSONResponse(await api_key_service.create(db, ctx, body))


@router.delete("/projects/{projectId}/api-keys/{keyId}", response_model=Ok)
async def revoke_api_key(ctx: CanManageApiKeys, db: DB, keyId: str) -> ORJSONResponse:
    """Revoke an API key; it stops working at once."""
    await api_key_service.revoke(db, ctx, keyId)
    return ORJSONResponse({"ok": True})
