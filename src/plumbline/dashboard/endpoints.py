"""``/projects/{projectId}/dashboard``: the project at a glance."""

from plumbline.dashboard.auth import CanReadDashboard
from plumbline.dashboard.schemas import ProjectDashboardRead
from plumbline.dashboard.service import dashboard as dashboard_service
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router

router = make_router(tags=["dashboard"])


@router.get("/projects/{projectId}/dashboard", response_model=ProjectDashboardRead)
async def project_dashboard(ctx: CanReadDashboard, db: DB) -> ORJSONResponse:
    """The project at a glance: team, files, record counts by status, due dates, recent activity."""
    return ORJSONResponse(await dashboard_service.project_dashboard(db, ctx))
