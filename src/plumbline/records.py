"""Rules shared by the record modules: issues, RFIs, punch items, field reports."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit
from plumbline.authz.permissions import Permission, ProjectRole
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.errors import Forbidden
from plumbline.kit import clock

# Reference photos of issues and punch items: images only.
PHOTO_TYPES = frozenset({"image/jpeg", "image/png", "image/webp", "image/heic"})


class Record(Protocol):
    """What the shared rules read and write on a record row."""

    id: str
    project_id: str
    workspace_id: str
    created_by: str | None
    updated_at: datetime
    deleted_at: datetime | None


def record_access(
    permission: Permission, *, scope: str, module: str
) -> Callable[..., Awaitable[ProjectContext]]:
    """``project_access`` for a record module: always behind the RECORDS plan feature."""
    return project_access(permission, scope=scope, module=module, feature=Feature.RECORDS)


def hidden_from_client(ctx: ProjectContext, flag: str) -> bool:
    """True for a CLIENT collaborator of a project that does not share these records with
    clients (``flag`` is its ``client_visibility`` switch, e.g. ``showPunch``)."""
    return (
        ctx.is_external
        and ctx.project_role == ProjectRole.CLIENT
        and not ctx.project.client_visibility.get(flag)
    )


def require_delete(ctx: ProjectContext, created_by: str | None, refusal: str) -> None:
    """MANAGER+ (and API keys) delete any record, a MEMBER only the ones they created;
    everyone else gets 403 ``refusal``."""
    own = ctx.user_id is not None and created_by == ctx.user_id
    if not (
        ctx.can(Permission.RECORDS_DELETE_ANY) or (own and ctx.can(Permission.RECORDS_DELETE_OWN))
    ):
        raise Forbidden(refusal)


async def soft_delete(
    db: AsyncSession,
    ctx: ProjectContext,
    record: Record,
    *,
    entity_type: str,
    action: str,
    refusal: str,
) -> None:
    """Check ``require_delete``, stamp ``deleted_at`` (and ``updated_at``) and audit ``action``.
    The record must already be loaded within what the caller may see."""
    require_delete(ctx, record.created_by, refusal)
    now = clock.now()
    record.deleted_at = now
    record.updated_at = now
    await audit.record(
        db,
        action=action,
        entity_type=entity_type,
        entity_id=record.id,
        principal=ctx.principal,
        workspace_id=record.workspace_id,
        project_id=record.project_id,
        changes={"deletedAt": [None, clock.iso(now)]},
    )
    await db.flush()
