"""Asset rules: tag unique among the project's live assets, parents in the same project without
cycles, the meters an asset has and their readings, soft delete guarded by open work.

Access (om/auth.py): MANAGER+ sets assets up; whoever works on work orders reads them and
records meter readings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.project import ProjectContext
from plumbline.errors import InvalidField, found
from plumbline.events.readers import reader
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, MeterReading
from plumbline.om.assets import repository as repo
from plumbline.om.assets.repository import FIELDS, READING_FIELDS
from plumbline.om.assets.schemas import AssetCreate, AssetFilters, AssetUpdate, ReadingCreate
from plumbline.om.errors import AssetExternalIdTaken, AssetInUse, AssetNotFound, TagTaken
from plumbline.om.maintenance.service import maintenance
from plumbline.records import add_record, references, soft_delete
from plumbline.records.references import ASSET
from plumbline.records.repository import rows_by_id

ENTITY = "asset"
# What an update may change, and the audit log compares.
AUDITED = tuple(to_camel(name) for name in AssetUpdate.model_fields)


def meter_view(meter: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": meter["type"],
        "unit": meter.get("unit", ""),
        "cumulative": bool(meter.get("cumulative", True)),
        "lastReading": meter.get("lastReading"),
        "lastReadingAt": meter.get("lastReadingAt"),
    }


def _view(result: dict[str, Any]) -> dict[str, Any]:
    """An asset's answer (``FIELDS``) with its meters as the API shows them."""
    result["meters"] = [meter_view(m) for m in result["meters"] or ()]
    return result


@reader("asset")
async def assets_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: _view(FIELDS.row(row)) for row in await rows_by_id(db, FIELDS, ids)}


@reader("meter_reading")
async def readings_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    rows = await rows_by_id(db, READING_FIELDS, ids)
    return {row.id: _reading(READING_FIELDS.row(row)) for row in rows}


def _meters(
    declared: Sequence[Mapping[str, Any]], current: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The declared meters, each keeping the last reading of the current meter of its type."""
    last = {meter["type"]: meter for meter in current}
    return [meter_view({**last.get(meter["type"], {}), **meter}) for meter in declared]


class AssetService:
    async def list_assets(
        self, db: AsyncSession, ctx: ProjectContext, filters: AssetFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The project's live assets, newest first, filtered."""
        rows, headers = page.finish(await repo.list_rows(db, ctx.project.id, filters, page))
        return [_view(FIELDS.row(row)) for row in rows], headers

    async def require(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, *, lock: bool = False
    ) -> Asset:
        """A live asset of the caller's project, else 404."""
        return found(await repo.get(db, ctx.project.id, asset_id, lock=lock), AssetNotFound())

    async def get(self, db: AsyncSession, ctx: ProjectContext, asset_id: str) -> dict[str, Any]:
        """One live asset of the project (404 otherwise)."""
        return _view(FIELDS.read(FIELDS.of(await self.require(db, ctx, asset_id))))

    async def _check_parent(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str | None, parent_id: str
    ) -> None:
        """The parent is a live asset of this project, and not the asset or one beneath it."""
        parents = await repo.parents(db, ctx.project.id)
        if parent_id not in parents:
            raise references.refused(ASSET, "parentAssetId")
        seen: set[str] = set()
        current: str | None = parent_id
        while current is not None and current not in seen:
            if current == asset_id:
                raise InvalidField("parentAssetId", "an asset cannot sit beneath itself")
            seen.add(current)
            current = parents.get(current)

    async def _check_external_id(
        self, db: AsyncSession, ctx: ProjectContext, external_id: str | None, own: str | None
    ) -> None:
        if external_id is not None and await repo.external_id_taken(
            db, ctx.project.id, external_id, own
        ):
            raise AssetExternalIdTaken()

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, body: AssetCreate, *, key_checked: bool = False
    ) -> dict[str, Any]:
        """An asset whose tag and externalId no live asset of the project has (409), under a
        live parent; ``key_checked``: the caller (a bulk upsert) knows the key is free."""
        if await repo.tag_taken(db, ctx.project.id, body.tag):
            raise TagTaken()
        if not key_checked:
            await self._check_external_id(db, ctx, body.external_id, None)
        if body.parent_asset_id is not None:
            await self._check_parent(db, ctx, None, body.parent_asset_id)
        meters = _meters([m.model_dump() for m in body.meters], [])
        values = body.model_dump(exclude={"meters"})
        asset = await add_record(db, ctx, Asset, meters=meters, **values)
        await audit_change(
            db, ctx, (ENTITY, asset.id), "asset.created", created(FIELDS.audited(asset, AUDITED))
        )
        return _view(FIELDS.read(FIELDS.of(asset)))

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, body: AssetUpdate
    ) -> dict[str, Any]:
        """Only the fields sent change: the tag stays unique, the parent live and not beneath
        it; kept meter types keep their last reading."""
        asset = await self.require(db, ctx, asset_id, lock=True)
        await self.change(db, ctx, asset, body)
        return _view(FIELDS.read(FIELDS.of(asset)))

    async def change(
        self, db: AsyncSession, ctx: ProjectContext, asset: Asset, body: AssetUpdate
    ) -> dict[str, list[Any]]:
        """The fields sent applied to ``asset`` (loaded and locked) with every rule of the
        PATCH; audited. Returns the changes (none: nothing was written)."""
        changes = body.sent()
        if "external_id" in changes and changes["external_id"] != asset.external_id:
            await self._check_external_id(db, ctx, changes["external_id"], asset.id)
        new_tag = changes.get("tag", asset.tag)
        if new_tag != asset.tag and await repo.tag_taken(db, ctx.project.id, new_tag, asset.id):
            raise TagTaken()
        parent = changes.get("parent_asset_id")
        if parent is not None and parent != asset.parent_asset_id:
            await self._check_parent(db, ctx, asset.id, parent)
        if "meters" in changes:
            changes["meters"] = _meters(changes["meters"], asset.meters)
        before = FIELDS.audited(asset, AUDITED)
        for column, value in changes.items():
            setattr(asset, column, value)
        after = FIELDS.audited(asset, AUDITED)
        return await audit_update(db, ctx, (ENTITY, asset), "asset.updated", before, after)

    async def delete(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, *, force: bool
    ) -> None:
        """Soft delete. With open work orders or active schedules: 409 unless ``force``, which
        pauses its schedules (its work orders stay as they are); children lose their parent."""
        asset = await self.require(db, ctx, asset_id, lock=True)
        if not force and await repo.in_use(db, ctx.project.id, asset.id):
            raise AssetInUse()
        paused = await repo.detach(db, ctx.project.id, asset.id)
        await soft_delete(
            db,
            ctx,
            asset,
            entity_type=ENTITY,
            action="asset.deleted",
            refusal="Only managers delete assets",
            also={"pausedSchedules": [None, paused]} if paused else None,
        )

    async def record_reading(
        self, db: AsyncSession, ctx: ProjectContext, asset_id: str, body: ReadingCreate
    ) -> dict[str, Any]:
        """Keep the reading; it becomes the meter's last one unless an earlier time was given
        (non-cumulative meters may be back-filled). Cumulative meters never go backwards:
        neither a smaller value nor a time before the last reading (400)."""
        asset = await self.require(db, ctx, asset_id, lock=True)
        now = clock.now()
        read_at = body.read_at or now
        if read_at > now:
            raise InvalidField("readAt", "a reading cannot be in the future")
        meters = [dict(meter) for meter in asset.meters]
        meter = next((m for m in meters if m["type"] == body.meter_type), None)
        if meter is None:
            raise InvalidField("meterType", "this asset has no meter of this type")
        value = Decimal(str(body.value)).quantize(Decimal("0.0001"))
        last_at = (
            datetime.fromisoformat(meter["lastReadingAt"]) if meter.get("lastReadingAt") else None
        )
        if meter.get("cumulative", True) and meter.get("lastReading") is not None and last_at:
            if read_at < last_at:
                raise InvalidField("readAt", "a cumulative meter's readings are recorded in order")
            if value < Decimal(str(meter["lastReading"])):
                raise InvalidField("value", "a cumulative meter's reading cannot go backwards")
        reading = {
            "id": new_id(),
            "asset_id": asset.id,
            "project_id": ctx.project.id,
            "meter_type": body.meter_type,
            "value": value,
            "read_at": read_at,
            "recorded_by": ctx.user_id,
            "created_at": now,
        }
        db.add(MeterReading(**reading))
        await db.flush()
        if last_at is None or read_at >= last_at:
            meter["lastReading"] = float(value)
            meter["lastReadingAt"] = clock.iso(read_at)
            asset.meters = meters
            asset.updated_at = now
            await maintenance.meter_read(db, ctx, asset.id, body.meter_type, value, read_at)
        await audit_change(
            db,
            ctx,
            (ENTITY, asset.id),
            "asset.meter_read",
            {
                "readingId": [None, reading["id"]],
                "meterType": [None, body.meter_type],
                "value": [None, str(value)],
            },
        )
        await db.flush()
        return _reading(READING_FIELDS.read(reading))

    async def readings(
        self,
        db: AsyncSession,
        ctx: ProjectContext,
        asset_id: str,
        meter_type: str | None,
        page: PageParams,
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """A live asset's reading history, newest recorded first (of one meter type when given)."""
        asset = await self.require(db, ctx, asset_id)
        rows, headers = page.finish(await repo.list_readings(db, asset.id, meter_type, page))
        return [_reading(READING_FIELDS.row(row)) for row in rows], headers


def _reading(values: dict[str, Any]) -> dict[str, Any]:
    values["value"] = float(values["value"])
    return values


asset_service = AssetService()
