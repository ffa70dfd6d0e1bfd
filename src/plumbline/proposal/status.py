"""The proposal statuses, defined once (PRODUCT §8), and the groups the rules are written in."""

from typing import Literal, get_args

ProposalStatus = Literal[
    "DRAFT", "SENT", "VIEWED", "ACCEPTED", "DECLINED", "CHANGES_REQUESTED", "EXPIRED"
]
STATUSES: tuple[str, ...] = get_args(ProposalStatus)
DRAFT, SENT, VIEWED, ACCEPTED, DECLINED, CHANGES_REQUESTED, EXPIRED = STATUSES

# Edited and sent only in these.
EDITABLE = (DRAFT, CHANGES_REQUESTED)
# Sent and unanswered: these take the client's answer, get reminders, can be resent, and show
# EXPIRED once ``validUntil`` has passed.
LIVE = (SENT, VIEWED)
# Answered: read-only, and readable by the client after the offer's validity.
ANSWERED = (ACCEPTED, DECLINED)
# The client thread is open while the client can still answer.
THREAD_OPEN = (*LIVE, CHANGES_REQUESTED)


def shown(status: str, valid_until: str, now: str) -> str:
    """The status a read shows: EXPIRED as soon as a live proposal's ``validUntil`` passed,
    before the reminders run marks it (both ISO 8601 ``...Z`` strings, compared as text)."""
    return EXPIRED if status in LIVE and valid_until <= now else status
