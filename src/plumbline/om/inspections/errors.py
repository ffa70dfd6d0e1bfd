"""Errors of the inspections."""

from plumbline.errors import Conflict, Forbidden, NotFound


class TemplateNotFound(NotFound, message="Inspection template not found"): ...


class RunNotFound(NotFound, message="Inspection run not found"): ...


class RunCompleted(
    Conflict, code="RUN_COMPLETED", message="This inspection run is completed and read-only"
): ...


class ExternalCannotReassign(
    Forbidden, message="External collaborators cannot change who an inspection run is assigned to"
): ...
