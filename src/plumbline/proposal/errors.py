"""The proposals' own refusals."""

from plumbline.errors import Forbidden, InvalidTransition


class ProposalsInternal(Forbidden, message="Proposals are internal to the workspace"): ...


class ProposalNotEditable(
    InvalidTransition, message="A proposal can be edited only in DRAFT or CHANGES_REQUESTED"
): ...
