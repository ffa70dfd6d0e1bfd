"""Bulk upsert of issues and work orders by externalId (``POST .../issues/bulk``): each record
through the issue service's own create and PATCH rules (``plumbline.records.bulk``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.issue import repository as repo
from plumbline.issue.access import require_shared
from plumbline.issue.errors import ExternalIdTaken
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
