"""Refusals of the punch workflow and visibility rules."""

from plumbline.errors import Forbidden, InvalidTransition


class PunchTransitionRefused(
    InvalidTransition, message="This punch status change is not allowed"
): ...


class ManagerOnlyTransition(
    Forbidden, message="Only a manager can close or reopen a punch item"
): ...


class ExternalCannotReassign(
    Forbidden, message="External collaborators cannot change who a punch item is assigned to"
): ...


class PunchHiddenFromClients(
    Forbidden, message="Punch items are not shared with clients on this project"
): ...
