"""The one check of the ids a request body names: each names a live record of the caller's
project (or, for workspace-wide records, its workspace), else 400 naming the field.

A record of another workspace, of another project, a soft-deleted one and one that never
existed are all the same answer, so a reference reveals nothing about other tenants. A module
that loads the record anyway (it needs its columns) raises ``refused(...)`` itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField
from plumbline.models import (
    Asset,
    File,
    FileVersion,
    Folder,
    InspectionTemplate,
    Issue,
    MaintenanceSchedule,
)
from plumbline.records import repository


@dataclass(frozen=True)
class Kind:
    """What a body id may name: ``noun`` for the message, the model, and its scope."""

    noun: str
    model: Any
    scope: Literal["project", "workspace"] = "project"


ASSET = Kind("asset", Asset)
MAINTENANCE_SCHEDULE = Kind("maintenance schedule", MaintenanceSchedule)
FILE = Kind("file", File)
FILE_VERSION = Kind("file version", FileVersion)
FOLDER = Kind("folder", Folder)
ISSUE = Kind("issue", Issue)
INSPECTION_TEMPLATE = Kind("inspection template", InspectionTemplate)


async def require_assignee(db: AsyncSession, ctx: ProjectContext, user_id: str | None) -> None:
    """400 naming ``assigneeId`` unless ``user_id`` (None: nobody) may be given work on the
    project (``repository.assignable``)."""
    if user_id is not None and user_id not in await repository.assignable(db, ctx, [user_id]):
        raise InvalidField(
            "assigneeId", "the assignee must be someone who can work on this project"
        )


def refused(kind: Kind, field: str) -> InvalidField:
    return InvalidField(field, f"no such {kind.noun} in this {kind.scope}")


async def require(
    db: AsyncSession,
    ctx: ProjectContext,
    kind: Kind,
    field: str,
    ids: str | Sequence[str] | None,
) -> None:
    """400 naming ``field`` unless every id (one, a list, or None for none) names a live
    ``kind`` of the caller's project (or workspace); one query."""
    wanted = [ids] if isinstance(ids, str) else list(ids or ())
    if not wanted:
        return
    scope = ctx.project.id if kind.scope == "project" else ctx.workspace.id
    found = await repository.live_ids(db, kind.model, kind.scope, scope, wanted)
    if any(i not in found for i in wanted):
        raise refused(kind, field)
