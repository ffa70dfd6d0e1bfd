"""The FM dashboard's response (built as a dict; this describes it in the OpenAPI)."""

from pydantic import BaseModel, Field


class FmDashboardRead(BaseModel):
    openWorkOrders: int
    inProgressWorkOrders: int
    openOccupantRequests: int
    overdueMaintenance: int
    maintenanceDueThisWeek: int
    maintenanceDueSoon: int
    pmCompliancePct: float | None
    workOrderBacklogOver7Days: int
    workOrderBacklogOver30Days: int
    mttrHours: float | None
    assetsTracked: int
    overdueInspections: int
    failedInspectionsLast30Days: int
    maintenanceCostLast30Days: str | None = Field(
        description="Parts, labour and other costs of the last 30 days; null for external "
        "collaborators (the project's money is the team's)"
    )
    availabilityLast30Days: float | None
