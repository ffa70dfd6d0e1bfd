"""Refusals of the RFI workflow and visibility rules."""

from typing import Any

from plumbline.errors import Conflict, Forbidden, InvalidTransition, NotFound


class RfiNotFound(NotFound, message="RFI not found"): ...


class RfisNotShared(Forbidden, message="RFIs are not shared with clients on this project"): ...


class RfiClosed(
    Conflict, message="This RFI is closed; reopen it (status IN_REVIEW) to change it"
): ...


class RfiTransitionRefused(InvalidTransition):
    def __init__(self, current: str, target: str, reason: str | None = None) -> None:
        message = f"An RFI cannot move from {current} to {target}"
        states: dict[str, Any] = {"from": current, "to": target}
        super().__init__(f"{message}: {reason}" if reason else message, **states)


class NotRfiManager(
    Forbidden, message="Only the RFI's manager or a project manager can do this"
): ...


class NotRfiResponder(
    Forbidden, message="Only a responder or the RFI's manager can answer this RFI"
): ...
