"""O&M errors, each a subclass of the service's errors."""

from typing import Any

from plumbline.errors import Conflict, NotFound


class AssetNotFound(NotFound, message="Asset not found"): ...


class ScheduleNotFound(NotFound, message="Maintenance schedule not found"): ...


class TagTaken(Conflict, message="Another asset of this project has this tag"): ...


class AssetExternalIdTaken(
    Conflict, message="Another asset of this project has this externalId"
): ...


class AssetInUse(
    Conflict,
    code="ASSET_IN_USE",
    message="This asset has open work orders or active maintenance schedules; "
    "delete it with ?force=true (managers)",
): ...


class AlreadyCompleted(
    Conflict, message="This work order has already completed its maintenance schedule"
): ...


class LabourOverlap(
    Conflict,
    code="LABOUR_OVERLAP",
    message="This labour entry shares time with another of the person's",
):
    """``overlaps`` names the other entry: ``id``, ``workOrderId``, ``projectId``,
    ``startedAt`` and ``endedAt`` (null: a running timer)."""

    def __init__(self, overlaps: dict[str, Any]) -> None:
        super().__init__(field="startedAt", overlaps=overlaps)
