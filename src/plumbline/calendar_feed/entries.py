"""A feed's rows as calendar entries, one function per kind of record (``due_repository``).

UIDs are ``<kind>-<id>``: the record's own id, so an event keeps its UID across fetches and
edits (schedule task ids are the client's, unique within their project, so the project is in
theirs). Maintenance and inspections are due on a day of the project's time zone."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from plumbline.calendar_feed.ics import Entry, all_day, recurrence
from plumbline.om.recurrence import effective_due, local_day

ISSUE_LABELS = {"WORK_ORDER": "Work order", "OCCUPANT": "Occupant request"}
Convert = Callable[[Sequence[Any], Mapping[str, ZoneInfo]], list[Entry]]


def _about(*parts: str | None) -> str:
    return "\n".join(part for part in parts if part)


def issues(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    return [
        all_day(
            f"issue-{row.id}",
            f"{ISSUE_LABELS.get(row.issue_kind, 'Issue')} #{row.number} due: {row.title}",
            row.due_date,
            description=f"Status: {row.status}, priority: {row.priority}",
            location=row.location,
            modified=row.updated_at,
            project_id=row.project_id,
        )
        for row in rows
    ]


def rfis(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    return [
        all_day(
            f"rfi-{row.id}",
            f"RFI #{row.rfi_number} due: {row.title}",
            row.due_date,
            description=f"Status: {row.status}, priority: {row.priority}",
            modified=row.updated_at,
            project_id=row.project_id,
        )
        for row in rows
    ]


def punch(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    return [
        all_day(
            f"punch-{row.id}",
            f"Punch #{row.punch_number} due: {row.title}",
            row.due_date,
            description=f"Status: {row.status}, priority: {row.priority}",
            location=row.location,
            modified=row.updated_at,
            project_id=row.project_id,
        )
        for row in rows
    ]


def maintenance(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    """A calendar schedule repeats (RRULE) from its next due day; a meter schedule is one event
    on the day it is due now, since a reading may bring the next one forward."""
    entries = []
    for row in rows:
        day = local_day(effective_due(row.next_due_at, row.meter_due_at), zones[row.project_id])
        metered = row.meter_type is not None
        rule = (
            None if metered else recurrence(row.frequency, row.interval_days, row.anchor_day, day)
        )
        entries.append(
            all_day(
                f"maintenance-{row.id}",
                f"Maintenance: {row.title} ({row.tag})",
                day,
                rrule=rule,
                description=_about(
                    f"Asset: {row.tag} {row.asset_name}",
                    f"Frequency: {row.frequency}, priority: {row.priority}",
                    f"Meter/calendar: due on this day or when the {row.meter_type} meter "
                    "condition is met, whichever comes first"
                    if metered
                    else None,
                ),
                location=row.location,
                modified=row.updated_at,
                project_id=row.project_id,
            )
        )
    return entries


def inspections(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    entries = []
    for row in rows:
        day = local_day(row.next_due_at, zones[row.project_id])
        entries.append(
            all_day(
                f"inspection-{row.id}",
                f"Inspection: {row.name}",
                day,
                rrule=recurrence(row.frequency, row.interval_days, row.anchor_day, day),
                description=f"Frequency: {row.frequency}",
                modified=row.updated_at,
                project_id=row.project_id,
            )
        )
    return entries


def inspection_runs(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    return [
        all_day(
            f"inspection-run-{row.id}",
            f"Inspection: {row.template_name}",
            local_day(row.next_due_at, zones[row.project_id]),
            description="An inspection run under way, assigned to you",
            modified=row.updated_at,
            project_id=row.project_id,
        )
        for row in rows
    ]


def proposals(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    return [
        Entry(
            f"proposal-{row.id}",
            f"Proposal {row.reference} expires: {row.title}",
            row.valid_until,
            description=_about(f"Status: {row.status}", f"Client: {row.client_name}"),
            modified=row.updated_at,
            project_id=row.project_id,
        )
        for row in rows
    ]


def tasks(rows: Sequence[Any], zones: Mapping[str, ZoneInfo]) -> list[Entry]:
    """Start and end are instants; a milestone (or a task ending as it starts) has no end."""
    return [
        Entry(
            f"task-{row.project_id}-{row.id}",
            f"Milestone: {row.name}" if row.is_milestone else row.name,
            row.start_date,
            row.end_date if row.end_date > row.start_date else None,
            description=f"Status: {row.status}, {row.progress_percent}% done",
            project_id=row.project_id,
        )
        for row in rows
    ]
