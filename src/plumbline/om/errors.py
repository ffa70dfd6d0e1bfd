"""O&M errors, each a subclass of the service's errors."""

from plumbline.errors import Conflict, NotFound


class AssetNotFound(NotFound):
    def __init__(self) -> None:
        super().__init__("Asset not found")


class ScheduleNotFound(NotFound):
    def __init__(self) -> None:
        super().__init__("Maintenance schedule not found")


class TagTaken(Conflict):
    def __init__(self) -> None:
        super().__init__("Another asset of this project has this tag")


class AssetInUse(Conflict):
    def __init__(self) -> None:
        super().__init__(
            "This asset has open work orders or active maintenance schedules; "
            "delete it with ?force=true (managers)",
            code="ASSET_IN_USE",
        )


class AlreadyCompleted(Conflict):
    def __init__(self) -> None:
        super().__init__("This work order has already completed its maintenance schedule")
