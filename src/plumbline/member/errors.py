"""Errors of memberships and invites: seats, the last super admin, pending invites."""

from plumbline.errors import Conflict, PaymentRequired


class SeatLimitReached(
    PaymentRequired, code="SEAT_LIMIT_REACHED", message="The workspace has no free seat on its plan"
): ...


class LastSuperAdmin(Conflict, message="The last super admin cannot leave or be demoted"): ...


class AlreadyMember(Conflict, message="This user is already a member of the workspace"): ...


class InviteNotPending(Conflict, message="This invite has already been accepted or revoked"): ...


class DuplicateInvite(Conflict, message="A pending invite for this e-mail already exists"): ...
