"""Errors of the issue domain."""

from plumbline.errors import Conflict, Forbidden, InvalidField, NotFound


class IssueNotFound(NotFound, message="Issue not found"): ...


class IssuesNotShared(Forbidden, message="Issues are not shared with clients on this project"): ...


class ExternalCannotReassign(
    Forbidden, message="External collaborators cannot change who an issue is assigned to"
): ...


class ExternalIdTaken(Conflict, message="Another issue of this project has this externalId"): ...


class WorkOrderHasCosts(
    Conflict,
    code="WORK_ORDER_HAS_COSTS",
    message="This work order has cost lines: delete them before making it a construction issue",
): ...


class TooManyAtOnce(InvalidField):
    def __init__(self, most: int) -> None:
        super().__init__("ids", f"{most} issues at most at once: narrow the view")
