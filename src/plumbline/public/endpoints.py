"""``/health``, ``/ready`` and ``/public/marketing/chat``."""

from fastapi import Request
from sqlalchemy import text

from plumbline import __version__
from plumbline.auth.deps import Public
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.openapi import errors
from plumbline.public.readiness import readiness
from plumbline.public.schemas import Health, MarketingChatReply, MarketingChatRequest, Ready
from plumbline.public.service import marketing_reply
from plumbline.routing import make_router

router = make_router(tags=["public"], dependencies=[Public])


@router.get("/health", response_model=Health, responses={503: {"model": Health}})
async def health(db: DB) -> ORJSONResponse:
    """Liveness and database reachability."""
    try:
        await db.execute(text("SELECT 1"))
    except Exception:
        return ORJSONResponse({"ok": False, "version": __version__, "database": "unreachable"}, 503)
    return ORJSONResponse({"ok": True, "version": __version__, "database": "ok"})


@router.get(
    "/ready",
    response_model=Ready,
    responses=errors(503, texts={503: "A part the server needs fails; `checks` names it"}),
)
async def ready() -> ORJSONResponse:
    """Whether this server can take traffic: the database reachable, its schema at the
    migrations' head, Redis (when configured) and the object storage reachable. 503 names the
    failing parts in `error` and says what each part's state is in `checks`."""
    return ORJSONResponse({"ok": True, "checks": await readiness()})


@router.post("/public/marketing/chat", response_model=MarketingChatReply)
async def marketing_chat(request: Request, body: MarketingChatRequest) -> ORJSONResponse:
    """Answer a visitor's question from the product FAQ (24 per 15 minutes per address)."""
    reply, headers = await marketing_reply(request, body)
    return ORJSONResponse({"reply": reply}, headers=headers)
