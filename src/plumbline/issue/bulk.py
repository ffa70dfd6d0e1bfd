"""Bulk upsert of issues and work orders by externalId (``POST .../issues/bulk``): each record
through the issue service's own create and PATCH rules (``plumbline.records.bulk``); and one
change (assign, status, priority, delete) to many issues at once (the list page's bulk bar)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import AppError, InvalidField
from plumbline.issue import repository as repo
from plumbline.issue.access import require_entity, require_shared
from plumbline.issue.errors import ExternalIdTaken, TooManyAtOnce
from plumbline.issue.filters import IssueFilters
from plumbline.issue.schemas import IssueBulk, IssueRecord, IssueUpdate
from plumbline.issue.service import issue as issue_service
from plumbline.models import Issue
from plumbline.records import bulk


async def _load(
    uow: UnitOfWork, ctx: ProjectContext, external_ids: Sequence[str]
) -> Mapping[str, tuple[Issue, bool]]:
    rows = await repo.by_external_ids(uow.session, require_shared(ctx), external_ids)
    return {str(issue.external_id): (issue, seen) for issue, seen in rows}


async def _create(uow: UnitOfWork, ctx: ProjectContext, record: IssueRecord) -> str:
    return str((await issue_service.create(uow, ctx, record, key_checked=True))["id"])


UPSERTS = bulk.Upserts(
    load=_load,
    create=_create,
    update=issue_service.change,
    patch=IssueUpdate,
    taken=ExternalIdTaken,
)


async def upsert(uow: UnitOfWork, ctx: ProjectContext, body: IssueBulk) -> dict[str, Any]:
    """Up to 1,000 issues created or updated by externalId; a result per record."""
    return await bulk.upsert(uow, ctx, body.records, UPSERTS, all_or_nothing=body.all_or_nothing)


async def edit(
    uow: UnitOfWork,
    ctx: ProjectContext,
    ids: Sequence[str],
    change: IssueUpdate | None,
    view: IssueFilters | None = None,
) -> int:
    """One change (None: delete) to the issues named, or to every issue the ``view`` matches,
    each through the single routes' rules (audit, notifications, who may delete what). All or
    nothing: the first refusal is raised, naming the issue, and the caller rolls back (the
    request's transaction). Returns how many issues changed."""
    db = uow.session
    vis = require_shared(ctx)
    if view is not None:
        ids = await repo.matching_ids(db, vis, view.of_caller(ctx.user_id), bulk.MAX_RECORDS)
    wanted = sorted(set(ids))  # one lock order for two bulks over the same issues
    if not wanted:
        raise InvalidField("ids", "Select at least one issue")
    if len(wanted) > bulk.MAX_RECORDS:
        raise TooManyAtOnce(bulk.MAX_RECORDS)
    changed = 0
    for issue_id in wanted:
        issue = await require_entity(db, ctx, issue_id)
        number = issue.number
        try:
            if change is None:
                await issue_service.delete(uow, ctx, issue_id)
                changed += 1
            elif await issue_service.change(uow, ctx, issue, change):
                changed += 1
        except AppError as refusal:
            refusal.message = f"#{number}: {refusal.message}"
            raise
    return changed
