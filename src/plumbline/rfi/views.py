"""camelCase dicts of RFIs and messages, built in one pass from selected columns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plumbline.kit import clock
from plumbline.models import Rfi
from plumbline.rfi.repository import RFI_COLUMNS
from plumbline.rfi.workflow import ball_in_court

_KEYS = tuple(column.key for column in RFI_COLUMNS)


def values_of(rfi: Rfi) -> dict[str, Any]:
    return {key: getattr(rfi, key) for key in _KEYS}


def rfi_dict(
    v: Mapping[Any, Any], assignee_ids: list[str], attachments: list[dict[str, Any]]
) -> dict[str, Any]:
    due = v["due_date"]
    return {
        "id": v["id"],
        "projectId": v["project_id"],
        "rfiNumber": v["rfi_number"],
        "title": v["title"],
        "question": v["question"],
        "status": v["status"],
        "priority": v["priority"],
        "dueDate": due.isoformat() if due else None,
        "assigneeIds": assignee_ids,
        "managerId": v["manager_id"],
        "issueIds": list(v["issue_ids"] or ()),
        "fileVersionId": v["file_version_id"],
        "pageNumber": v["page_number"],
        "pin": v["pin"],
        "officialResponse": v["official_response"],
        "answeredAt": clock.iso(v["answered_at"]),
        "answeredBy": v["answered_by"],
        "closedAt": clock.iso(v["closed_at"]),
        "ballInCourt": ball_in_court(v["status"], v["manager_id"], assignee_ids),
        "attachments": attachments,
        "createdBy": v["created_by"],
        "createdAt": clock.iso(v["created_at"]),
        "updatedAt": clock.iso(v["updated_at"]),
    }


def message_dict(v: Mapping[Any, Any], official_id: str | None) -> dict[str, Any]:
    return {
        "id": v["id"],
        "rfiId": v["rfi_id"],
        "projectId": v["project_id"],
        "body": v["body"],
        "createdBy": v["created_by"],
        # As issue comments name theirs: a key wrote it, or its author's account is gone.
        "authorName": (v["author_name"] or "Unknown user")
        if v["created_by"] is not None
        else "API key",
        "createdAt": clock.iso(v["created_at"]),
        "isOfficialResponse": v["id"] == official_id,
    }
