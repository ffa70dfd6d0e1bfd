"""Parts and stock errors."""

from decimal import Decimal

from plumbline.errors import Conflict, NotFound
from plumbline.kit.money import number_text


class PartNotFound(NotFound, message="Part not found"): ...


class LocationNotFound(NotFound, message="Stock location not found"): ...


class SkuTaken(Conflict, message="Another part of this workspace has this sku"): ...


class LocationNameTaken(
    Conflict, message="Another stock location of this project has this name"
): ...


class InsufficientStock(Conflict, code="INSUFFICIENT_STOCK"):
    """409 naming the part and what is available where it was asked for."""

    def __init__(
        self, part_id: str, name: str, available: Decimal, field: str = "quantity"
    ) -> None:
        super().__init__(
            f"Not enough {name} in stock: {number_text(available)} available",
            field=field,
            partId=part_id,
            available=number_text(available),
        )
