"""Every event type integrators can subscribe to, and the audit action that writes each.

An audit entry whose action is in ``ACTIONS`` also writes an event (``events.log``): the
entry names the change, the event carries the resource as the API returns it."""

from __future__ import annotations

from typing import NamedTuple

# resource -> the actions on it that are events ("<resource>.<verb>")
RESOURCES: dict[str, tuple[str, ...]] = {
    "issue": ("created", "updated", "deleted"),
    "comment": ("created",),
    "rfi": ("created", "updated", "status_changed", "answered", "closed", "reopened", "deleted"),
    "punch": ("created", "updated", "closed", "reopened", "deleted"),
    "field_report": ("created", "updated", "deleted"),
    "proposal": (
        "created",
        "updated",
        "sent",
        "viewed",
        "accepted",
        "declined",
        "changes_requested",
        "expired",
        "deleted",
    ),
    "asset": ("created", "updated", "deleted"),
    "meter_reading": ("created",),
    "maintenance_schedule": ("created", "updated", "completed"),
    "inspection_run": ("created", "updated", "completed", "deleted"),
    "stock_location": ("created",),
    "stock_move": ("created",),
    "work_order_cost": ("created", "updated", "deleted"),
    "purchase_order": (
        "created",
        "updated",
        "approved",
        "ordered",
        "received",
        "cancelled",
        "emailed",
    ),
    "downtime": ("created", "updated", "deleted"),
    "schedule": ("replaced",),
    "material": ("created", "updated", "deleted"),
    "file": ("created", "updated", "deleted"),
    "file_version": ("created", "deleted"),
}

TYPES: tuple[str, ...] = tuple(
    f"{resource}.{verb}" for resource, verbs in RESOURCES.items() for verb in verbs
)


class Source(NamedTuple):
    """How an audit entry names its event: the type, and where the resource's id is (the
    entry's entity, or the new value of one of its ``changes`` when the entity is a parent)."""

    type: str
    id_change: str | None = None  # the ``changes`` key holding [old, new] ids

    @property
    def resource(self) -> str:
        return self.type.split(".", 1)[0]

    @property
    def deleted(self) -> bool:
        return self.type.endswith(".deleted")


# Audit actions named like their event need no entry here.
_RENAMED: dict[str, Source] = {
    "issue.commented": Source("comment.created", "commentId"),
    "field_report.emailed": Source("field_report.updated"),
    "proposal.resent": Source("proposal.sent"),
    "asset.meter_read": Source("meter_reading.created", "readingId"),
    "maintenance_schedule.meter_due": Source("maintenance_schedule.updated"),
    "file.uploaded": Source("file.created"),
    "file.version_added": Source("file_version.created", "fileVersionId"),
    "file.version_deleted": Source("file_version.deleted", "fileVersionId"),
}
ACTIONS: dict[str, Source] = {**{type_: Source(type_) for type_ in TYPES}, **_RENAMED}
