"""The hooks joining modules that must not import each other, connected once by ``create_app``."""

from plumbline.issue import hooks as issue_hooks
from plumbline.om.maintenance.completions import completions


def connect() -> None:
    """A PREVENTIVE work order resolved or closed completes its maintenance schedule."""
    issue_hooks.on_done(completions.complete_work_order)
