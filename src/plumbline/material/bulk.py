"""Bulk upsert of the workspace's materials by externalId (``POST .../materials/bulk``): each
record through the material service's own create and update rules (``plumbline.records.bulk``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plumbline.authz.workspace import WorkspaceContext
from plumbline.db import UnitOfWork
from plumbline.material import repository as repo
from plumbline.material.errors import ExternalIdTaken
from plumbline.material.schemas import MaterialBulk, MaterialRecord, MaterialUpdate
from plumbline.material.service import material as material_service
from plumbline.models import Material
from plumbline.records import bulk


async def _load(
    uow: UnitOfWork, ctx: WorkspaceContext, external_ids: Sequence[str]
) -> Mapping[str, tuple[Material, bool]]:
    materials = await repo.by_external_ids(uow.session, ctx.workspace.id, external_ids)
    return {str(material.external_id): (material, True) for material in materials}


async def _create(uow: UnitOfWork, ctx: WorkspaceContext, record: MaterialRecord) -> str:
    created = await material_service.create(uow.session, ctx, record, key_checked=True)
    return str(created["id"])


async def _update(
    uow: UnitOfWork, ctx: WorkspaceContext, material: Material, patch: MaterialUpdate
) -> dict[str, list[Any]]:
    return await material_service.change(uow.session, ctx, material, patch)


UPSERTS = bulk.Upserts(
    load=_load, create=_create, update=_update, patch=MaterialUpdate, taken=ExternalIdTaken
)


async def upsert(uow: UnitOfWork, ctx: WorkspaceContext, body: MaterialBulk) -> dict[str, Any]:
    """Up to 1,000 materials created or updated by externalId; a result per record."""
    return await bulk.upsert(uow, ctx, body.records, UPSERTS, all_or_nothing=body.all_or_nothing)
