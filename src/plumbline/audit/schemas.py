"""Audit log filters and the entry shape declared for the OpenAPI description."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Depends, Query

from plumbline.kit.schema import Instant, Schema

ExportFormat = Literal["csv", "json"]


@dataclass(frozen=True)
class AuditFilters:
    action: str | None = None
    entity_type: str | None = None
    entity_id: str | None = None
    actor_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None


async def audit_filters(
    action: Annotated[str | None, Query(max_length=64, description="e.g. project.updated")] = None,
    entity_type: Annotated[
        str | None, Query(alias="entityType", max_length=64, description="e.g. project")
    ] = None,
    entity_id: Annotated[str | None, Query(alias="entityId", max_length=128)] = None,
    actor_id: Annotated[
        str | None,
        Query(alias="actorId", max_length=128, description="A user id or an API key id"),
    ] = None,
    since: Annotated[
        Instant | None, Query(alias="from", description="Entries at or after (date-time)")
    ] = None,
    until: Annotated[
        Instant | None, Query(alias="to", description="Entries at or before (date-time)")
    ] = None,
) -> AuditFilters:
    # async: a plain function dependency would cost a thread-pool hop per request
    return AuditFilters(action, entity_type, entity_id, actor_id, since, until)


Filters = Annotated[AuditFilters, Depends(audit_filters)]


class AuditLogRead(Schema):
    id: str
    workspace_id: str | None
    project_id: str | None
    actor: str
    actor_user_id: str | None
    actor_key_id: str | None
    action: str
    entity_type: str
    entity_id: str | None
    changes: dict[str, Any]
    request_id: str | None
    ip: str | None
    created_at: datetime
