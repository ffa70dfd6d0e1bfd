"""The RFI workflow: which status changes exist, who holds the ball, whom each change notifies.

OPEN -> IN_REVIEW (sent to the responders; needs at least one)
IN_REVIEW -> ANSWERED (a responder or the manager names a message as the official response)
ANSWERED -> CLOSED (the manager)
CLOSED -> IN_REVIEW (reopened; a closed RFI is otherwise read-only)

PRODUCT §5 enforces exactly this chain: an answer the manager does not accept is closed, then
reopened to the responders (the audit log keeps both answers).

Any other change of status is 409 INVALID_TRANSITION (``from``/``to`` in the body), as are
sending for review with no responder and answering without naming a message of this RFI. A
step that exists but that the caller may not take is 403: the manager's steps (send, close,
reopen) belong to the RFI's manager, MANAGER+ and API keys with ``rfi:write``; a
responder who is none of these may only answer. Setting the current status again is no change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

OPEN, IN_REVIEW, ANSWERED, CLOSED = "OPEN", "IN_REVIEW", "ANSWERED", "CLOSED"


@dataclass(frozen=True)
class Step:
    action: str  # the audit action
    notify: str  # the notification kind
    to_responders: bool  # else to the manager
    title: str  # notification title; {n} and {title} are filled in


STEPS: dict[tuple[str, str], Step] = {
    (OPEN, IN_REVIEW): Step(
        "rfi.status_changed", "RFI_REVIEW", True, "RFI #{n} needs your response: {title}"
    ),
    (IN_REVIEW, ANSWERED): Step(
        "rfi.answered", "RFI_ANSWERED", False, "RFI #{n} was answered: {title}"
    ),
    (ANSWERED, CLOSED): Step("rfi.closed", "RFI_CLOSED", True, "RFI #{n} was closed: {title}"),
    (CLOSED, IN_REVIEW): Step(
        "rfi.reopened", "RFI_REOPENED", True, "RFI #{n} was reopened: {title}"
    ),
}
# The steps a responder who is not the manager may take; every other step is the manager's.
RESPONDER_STEPS = frozenset({(IN_REVIEW, ANSWERED)})


def ball_in_court(status: str, manager_id: str | None, responders: Sequence[str]) -> list[str]:
    """Who must act next: the manager while OPEN or ANSWERED, the responders IN_REVIEW."""
    if status == IN_REVIEW:
        return list(responders)
    if status in (OPEN, ANSWERED):
        return [manager_id] if manager_id else []
    return []
