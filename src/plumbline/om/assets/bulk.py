"""Bulk upsert of assets by externalId (``POST .../om/assets/bulk``): each record through the
asset service's own create and PATCH rules (``plumbline.records.bulk``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.models import Asset
from plumbline.om.assets import repository as repo
from plumbline.om.assets.schemas import AssetBulk, AssetRecord, AssetUpdate
from plumbline.om.assets.service import asset_service
from plumbline.om.errors import AssetExternalIdTaken
from plumbline.records import bulk


async def _load(
    uow: UnitOfWork, ctx: ProjectContext, external_ids: Sequence[str]
) -> Mapping[str, tuple[Asset, bool]]:
    assets = await repo.by_external_ids(uow.session, ctx.project.id, external_ids)
    return {str(asset.external_id): (asset, True) for asset in assets}


async def _create(uow: UnitOfWork, ctx: ProjectContext, record: AssetRecord) -> str:
    return str((await asset_service.create(uow.session, ctx, record, key_checked=True))["id"])


async def _update(
    uow: UnitOfWork, ctx: ProjectContext, asset: Asset, patch: AssetUpdate
) -> dict[str, list[Any]]:
    return await asset_service.change(uow.session, ctx, asset, patch)


UPSERTS = bulk.Upserts(
    load=_load, create=_create, update=_update, patch=AssetUpdate, taken=AssetExternalIdTaken
)


async def upsert(uow: UnitOfWork, ctx: ProjectContext, body: AssetBulk) -> dict[str, Any]:
    """Up to 1,000 assets created or updated by externalId; a result per record."""
    return await bulk.upsert(uow, ctx, body.records, UPSERTS, all_or_nothing=body.all_or_nothing)
