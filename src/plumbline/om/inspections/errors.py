"""Errors of the inspections."""

from plumbline.errors import Conflict, Forbidden, NotFound


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
