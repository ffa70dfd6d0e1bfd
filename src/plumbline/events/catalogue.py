"""Every event type integrators can subscribe to: the audit action that writes it, by resource.

An audit entry whose action is listed here also writes an event (``events.service``)."""

from __future__ import annotations

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
        "accepted",
        "declined",
        "changes_requested",
        "expired",
        "deleted",
    ),
    "asset": ("created", "updated", "deleted"),
    "meter_reading": ("created",),
    "maintenance_schedule": ("created", "updated", "completed", "deleted"),
    "inspection_run": ("created", "updated", "completed", "deleted"),
    "schedule": ("replaced",),
    "material": ("created", "updated", "deleted"),
    "file": ("created", "updated", "deleted"),
    "file_version": ("created", "deleted"),
}

TYPES: tuple[str, ...] = tuple(
    f"{resource}.{verb}" for resource, verbs in RESOURCES.items() for verb in verbs
)
