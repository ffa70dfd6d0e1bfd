"""Errors of the issue domain."""

from plumbline.errors import Forbidden, NotFound, ValidationFailed


class IssueNotFound(NotFound):
    message = "Issue not found"


class IssuesNotShared(Forbidden):
    message = "Issues are not shared with clients on this project"


class ExternalCannotReassign(Forbidden):
    message = "External collaborators cannot change who an issue is assigned to"


class InvalidIssueField(ValidationFailed):
    """A 400 about one field, with the usual ``details``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(
            f"Invalid {field}: {message}", details=[{"field": field, "message": message}]
        )
