"""Rules shared by the record modules: issues, RFIs, punch items, field reports."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import Base, UnitOfWork, session_of
from plumbline.errors import AppError, Forbidden
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.notification.service import notification


class Record(Protocol):
    """What the shared rules read and write on a record row."""

    id: str
    project_id: str
    workspace_id: str
    created_by: str | None
    updated_at: datetime
    deleted_at: datetime | None


R = TypeVar("R", bound=Base)


async def add_record(db: AsyncSession, ctx: ProjectContext, model: type[R], /, **values: Any) -> R:
    """A new record of the caller's project, created (and updated, for a model that keeps
    ``updated_at``) now by the caller, added and flushed; ``id`` when given, else a new one."""
    now = clock.now()
    if hasattr(model, "updated_at"):
        values["updated_at"] = now
    record = model(
        id=values.pop("id", None) or new_id(),
        project_id=ctx.project.id,
        workspace_id=ctx.workspace.id,
        created_by=ctx.user_id,
        created_at=now,
        **values,
    )
    db.add(record)
    await db.flush()
    return record


def record_access(
    permission: Permission,
    *,
    scope: str,
    module: str,
    externals: Callable[[], AppError] | None = None,
) -> Callable[..., Awaitable[ProjectContext]]:
    """``project_access`` for a record module: always behind the RECORDS plan feature."""
    return project_access(
        permission, scope=scope, module=module, feature=Feature.RECORDS, externals=externals
    )


def seen(
    alias: Any, load: Callable[[AsyncSession, ProjectContext, str], Awaitable[object]], param: str
) -> Callable[..., Awaitable[ProjectContext]]:
    """``alias`` (an access alias such as ``CanWriteIssues``), then the record the path
    parameter ``param`` names, loaded by ``load`` within what the caller may see (404): so a
    caller who cannot see it is refused before the body is read (the service loads it again)."""
    access = alias.__metadata__[0].dependency

    async def dependency(request: Request, ctx: ProjectContext) -> ProjectContext:
        await load(await session_of(request), ctx, request.path_params[param])
        return ctx

    # Real objects, not this module's postponed strings: ``access`` is a local name.
    dependency.__annotations__ = {
        "request": Request,
        "ctx": Annotated[ProjectContext, Depends(access)],
        "return": ProjectContext,
    }
    return dependency


async def soft_delete(
    db: AsyncSession,
    ctx: ProjectContext,
    record: Record,
    *,
    entity_type: str,
    action: str,
    refusal: str,
    also: Mapping[str, list[Any]] | None = None,
) -> None:
    """MANAGER+ (and API keys) delete any record, a MEMBER only the ones they created, everyone
    else gets 403 ``refusal``; then stamp ``deleted_at`` (and ``updated_at``) and audit
    ``action`` (with the changes ``also`` made alongside). The record must already be loaded
    within what the caller may see."""
    own = ctx.user_id is not None and record.created_by == ctx.user_id
    if not (
        ctx.can(Permission.RECORDS_DELETE_ANY) or (own and ctx.can(Permission.RECORDS_DELETE_OWN))
    ):
        raise Forbidden(refusal)
    now = clock.now()
    record.deleted_at = now
    record.updated_at = now
    changes = {"deletedAt": [None, clock.iso(now)], **(also or {})}
    await audit_change(db, ctx, (entity_type, record.id), action, changes)
    await db.flush()


@dataclass(frozen=True)
class Notice:
    """The assignment notice of a record kind; ``{n}`` and ``{title}`` are filled in."""

    kind: str
    title: str
    what: str  # "issue #{n}": "<actor> assigned you <what> on <project>"
    path: str  # "issues": the record's page is /projects/<p>/<path>/<id>

    async def send(
        self,
        uow: UnitOfWork,
        ctx: ProjectContext,
        user_ids: Iterable[str | None],
        *,
        record_id: str,
        number: int,
        title: str,
    ) -> list[str]:
        """``notification.assigned``: a notification and an e-mail to each of ``user_ids``."""
        return await notification.assigned(
            uow,
            ctx,
            user_ids,
            kind=self.kind,
            title=self.title.format(n=number, title=title),
            what=self.what.format(n=number),
            record_title=title,
            href=f"/projects/{ctx.project.id}/{self.path}/{record_id}",
        )
