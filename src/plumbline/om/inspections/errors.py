"""Errors of the inspections."""

from typing import Any

from plumbline.errors import Conflict, Forbidden, NotFound, ValidationFailed


class TemplateNotFound(NotFound):
    message = "Inspection template not found"


class RunNotFound(NotFound):
    message = "Inspection run not found"


class RunCompleted(Conflict):
    message = "This inspection run is completed and read-only"

    def __init__(self) -> None:
        super().__init__(code="RUN_COMPLETED")


class ExternalCannotReassign(Forbidden):
    message = "External collaborators cannot change who an inspection run is assigned to"


class InvalidField(ValidationFailed):
    """A 400 about one or more fields, with the usual ``details``."""

    def __init__(self, message: str, details: list[dict[str, Any]], **extra: Any) -> None:
        super().__init__(message, details=details, **extra)

    @classmethod
    def one(cls, field: str, message: str) -> "InvalidField":
        return cls(f"Invalid {field}: {message}", [{"field": field, "message": message}])
