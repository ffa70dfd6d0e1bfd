"""The hooks joining modules that must not import each other, connected once by ``create_app``."""

from plumbline.events import hooks as event_hooks
from plumbline.events import live
from plumbline.issue import hooks as issue_hooks
from plumbline.kit import stopping
from plumbline.om.maintenance.completions import completions
from plumbline.om.reliability.service import downtime
from plumbline.viewer.collab import hub
from plumbline.webhook import dispatch


def connect() -> None:
    """A PREVENTIVE work order resolved or closed completes its maintenance schedule; the
    events a write records are delivered to the webhooks subscribed to them; a work order done
    brings up the asset it took down; committed events reach the project's open tabs; a server
    asked to stop ends its co-viewing and live streams."""
    issue_hooks.on_done(completions.complete_work_order)
    issue_hooks.on_done(downtime.work_order_done)
    event_hooks.on_written(dispatch.on_written)
    event_hooks.on_written(live.on_written)
    stopping.on_stopping(hub.close_streams)
    stopping.on_stopping(live.close_streams)
