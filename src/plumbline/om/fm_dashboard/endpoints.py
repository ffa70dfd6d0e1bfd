"""The FM dashboard route: ``GET .../om/fm-dashboard``."""

from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.om.auth import CanReadOm
from plumbline.om.fm_dashboard.schemas import FmDashboardRead
from plumbline.om.fm_dashboard.service import fm_dashboard
from plumbline.routing import make_router

router = make_router(prefix="/projects/{projectId}/om/fm-dashboard", tags=["om"])


@router.get("", response_model=FmDashboardRead)
async def get_fm_dashboard(ctx: CanReadOm, db: DB) -> ORJSONResponse:
    """The facilities figures of the project (definitions in docs/om.md)."""
    return ORJSONResponse(await fm_dashboard.figures(db, ctx))
