"""Refusals of the field-report rules (clients not shown, externals not writing, drafts)."""

from plumbline.errors import Forbidden


class FieldReportsHiddenFromClients(
    Forbidden, message="Field reports are not shared with clients on this project"
): ...


class ExternalCannotWriteReports(
    Forbidden, message="External collaborators cannot write field reports"
): ...


class ManagerOnlyReturnToDraft(
    Forbidden, message="Only a manager can return a submitted field report to draft"
): ...
