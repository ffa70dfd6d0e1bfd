"""The audit trail: every write appends who did what to which entity, with old and new values."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.principal import Principal
from plumbline.kit import clock
from plumbline.kit.logging import client_ip_var, request_id_var
from plumbline.models import AuditLog


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return clock.iso(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """``{field: [old, new]}`` for the fields whose value changed."""
    return {
        key: [_plain(before.get(key)), _plain(value)]
        for key, value in after.items()
        if _plain(before.get(key)) != _plain(value)
    }


def created(values: dict[str, Any]) -> dict[str, list[Any]]:
    return {key: [None, _plain(value)] for key, value in values.items() if value is not None}


class AuditService:
    def record(
        self,
        db: AsyncSession,
        *,
        action: str,
        entity_type: str,
        entity_id: str | None,
        principal: Principal | None = None,
        actor: str | None = None,
        workspace_id: str | None = None,
        project_id: str | None = None,
        changes: dict[str, Any] | None = None,
    ) -> AuditLog:
        """Append one entry; ``actor`` is "public" or "system" when there is no principal."""
        if principal is not None:
            actor = "key" if principal.api_key is not None else "user"
        entry = AuditLog(
            workspace_id=workspace_id,
            project_id=project_id,
            actor=actor or "system",
            actor_user_id=principal.user_id if principal else None,
            actor_key_id=principal.key_id if principal else None,
            action=action,
            entity_type=entity_type,
            entity_id=entity_id,
            changes=changes or {},
            request_id=request_id_var.get(),
            ip=client_ip_var.get(),
            created_at=clock.now(),
        )
        db.add(entry)
        return entry


audit = AuditService()
