"""The project dashboard shape declared for the OpenAPI description."""

from __future__ import annotations

from plumbline.audit.schemas import AuditLogRead
from plumbline.kit.schema import Schema


class DashboardProject(Schema):
    id: str
    name: str
    stage: str


class DashboardFiles(Schema):
    count: int
    storage_bytes: int


class ProjectDashboardRead(Schema):
    """Other modules add their sections (issues, RFIs, punch...) as further keys."""

    project: DashboardProject
    members: int
    files: DashboardFiles
    activity: list[AuditLogRead]
