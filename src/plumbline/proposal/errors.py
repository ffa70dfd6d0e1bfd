from plumbline.errors import Conflict, Forbidden, InvalidTransition


class ProposalsInternal(Forbidden):
    message = "Proposals are internal to the workspace"


class ProposalNotEditable(InvalidTransition):
    message = "A proposal can be edited only in DRAFT or CHANGES_REQUESTED"


class TemplateNameTaken(Conflict):
    message = "A proposal template with this name already exists in the workspace"
