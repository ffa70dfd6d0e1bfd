"""Rows to camelCase dicts in one pass (the list endpoint's hot loop)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from orjson import Fragment

from plumbline.kit import clock
from plumbline.models import Issue


def iso(value: datetime | None) -> str | None:
    """``clock.iso`` with a fast path for the UTC datetimes the database hands back."""
    if value is None:
        return None
    if value.tzinfo is UTC:
        return value.isoformat(timespec="milliseconds")[:-6] + "Z"
    return clock.iso(value)


def issue_dict(row: Sequence[Any], photos: Sequence[Any]) -> dict[str, Any]:
    """``row`` starts with the values of ``repository.COLUMNS`` in that order; ``pin`` and
    ``checklist`` are either Python values or, from a query, their JSON text (passed through)."""
    (
        id_,
        project_id,
        number,
        title,
        description,
        status,
        priority,
        issue_kind,
        assignee_id,
        due_date,
        location,
        file_id,
        file_version_id,
        page_number,
        pin,
        asset_id,
        work_order_type,
        maintenance_schedule_id,
        checklist,
        created_by,
        created_at,
        updated_at,
        status_changed_at,
        resolved_at,
        closed_at,
        *_,
    ) = row
    return {
        "id": id_,
        "projectId": project_id,
        "number": number,
        "title": title,
        "description": description,
        "status": status,
        "priority": priority,
        "issueKind": issue_kind,
        "assigneeId": assignee_id,
        "dueDate": due_date.isoformat() if due_date is not None else None,
        "location": location,
        "fileId": file_id,
        "fileVersionId": file_version_id,
        "pageNumber": page_number,
        "pin": Fragment(pin) if type(pin) is str else pin,
        "assetId": asset_id,
        "workOrderType": work_order_type,
        "maintenanceScheduleId": maintenance_schedule_id,
        "checklist": Fragment(checklist) if type(checklist) is str else checklist,
        "referencePhotos": photos,
        "createdBy": created_by,
        "createdAt": iso(created_at),
        "updatedAt": iso(updated_at),
        "statusChangedAt": iso(status_changed_at),
        "resolvedAt": iso(resolved_at),
        "closedAt": iso(closed_at),
    }


def entity_row(issue: Issue, keys: Sequence[str]) -> tuple[Any, ...]:
    return tuple(getattr(issue, key) for key in keys)


def comment_dict(row: Sequence[Any]) -> dict[str, Any]:
    id_, issue_id, body, author_id, author_name, created_at = row
    return {
        "id": id_,
        "issueId": issue_id,
        "body": body,
        "authorId": author_id,
        "authorName": (author_name or "Unknown user") if author_id is not None else "API key",
        "createdAt": iso(created_at),
    }
