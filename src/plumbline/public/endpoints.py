from sqlalchemy import text

from plumbline import __version__
from plumbline.auth.deps import Public
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.public.schemas import Health
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
