"""Errors of the materials catalogue."""

from plumbline.errors import Conflict, NotFound


class MaterialNotFound(NotFound, message="Material not found"): ...


class SkuTaken(Conflict, message="Another material of this workspace has this SKU"): ...


class ExternalIdTaken(
    Conflict, message="Another material of this workspace has this externalId"
): ...
