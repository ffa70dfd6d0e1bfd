"""O&M errors, each a subclass of the service's errors."""

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
