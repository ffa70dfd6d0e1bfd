"""The workspace's materials catalogue: CRUD, CSV import and export, line-item pricing.

A CSV import is all-or-nothing; proposal line items that name a material are priced from it.
A SKU is unique within a workspace (checked first; the named constraint settles a race). The
currency defaults to USD (workspaces carry none). Deletes are for good: a proposal line item
keeps the name, unit and price it copied, and the material id as a plain reference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created, diff
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import ValidationFailed, found
from plumbline.events.readers import reader
from plumbline.kit import clock, money
from plumbline.kit.export import csv_cell
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.material import repository as repo
from plumbline.material.errors import ExternalIdTaken, MaterialNotFound, SkuTaken
from plumbline.material.imports import parse_rows
from plumbline.material.repository import FIELDS
from plumbline.material.schemas import MaterialCreate, MaterialFilters, MaterialUpdate
from plumbline.models import Material
from plumbline.proposal.drafts.schemas import ItemIn
from plumbline.records import export
from plumbline.records.repository import rows_by_id

ENTITY = "material"
DEFAULT_CURRENCY = "USD"
EDITABLE = ("name", "unit", "unitPrice", "currency", "sku", "category", "supplier")
# What a create or update writes and the audit log compares (the CSV keeps EDITABLE).
WRITTEN = (*EDITABLE, "externalId")
COLUMNS = FIELDS.columns_of(WRITTEN)
CSV_HEADER = ("id", *EDITABLE, "createdAt", "updatedAt")


def to_read(values: Any) -> dict[str, Any]:
    body = FIELDS.read(values)
    body["unitPrice"] = money.text(Decimal(body["unitPrice"]))
    return body


@reader("material")
async def materials_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row.id: _row(row) for row in await rows_by_id(db, FIELDS, ids)}


def _row(row: Sequence[Any]) -> dict[str, Any]:
    body = FIELDS.row(row)
    body["unitPrice"] = money.text(body["unitPrice"])
    return body


def _audited(material: Material, names: Sequence[str] = WRITTEN) -> dict[str, Any]:
    values = FIELDS.audited(material, names)
    values["unitPrice"] = money.text(values["unitPrice"])
    return values


class MaterialService:
    async def list_materials(
        self, db: AsyncSession, ctx: WorkspaceContext, filters: MaterialFilters, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The workspace's materials matching the filters, newest first."""
        found, headers = page.finish(await repo.list_rows(db, ctx.workspace.id, filters, page))
        return [_row(row) for row in found], headers

    async def _load(self, db: AsyncSession, ctx: WorkspaceContext, material_id: str) -> Material:
        return found(await repo.get(db, ctx.workspace.id, material_id), MaterialNotFound())

    async def _check_sku(
        self, db: AsyncSession, ctx: WorkspaceContext, sku: str | None, own_id: str | None
    ) -> None:
        if sku is None:
            return
        owner = await repo.sku_owner(db, ctx.workspace.id, sku)
        if owner is not None and owner != own_id:
            raise SkuTaken(sku=sku)

    async def _check_external_id(
        self, db: AsyncSession, ctx: WorkspaceContext, external_id: str | None, own_id: str | None
    ) -> None:
        if external_id is None:
            return
        owner = await repo.external_id_owner(db, ctx.workspace.id, external_id)
        if owner is not None and owner != own_id:
            raise ExternalIdTaken()

    async def create(
        self,
        db: AsyncSession,
        ctx: WorkspaceContext,
        data: MaterialCreate,
        *,
        key_checked: bool = False,
    ) -> dict[str, Any]:
        """A material with a SKU and an externalId unique in the workspace; the currency
        defaults to USD. ``key_checked``: the caller (a bulk upsert) knows the key is free."""
        await self._check_sku(db, ctx, data.sku, None)
        if not key_checked:
            await self._check_external_id(db, ctx, data.external_id, None)
        material = Material(
            workspace_id=ctx.workspace.id,
            created_by=ctx.user_id,
            name=data.name,
            unit=data.unit,
            unit_price=money.cents(data.unit_price),
            currency=data.currency or DEFAULT_CURRENCY,
            sku=data.sku,
            category=data.category,
            supplier=data.supplier,
            external_id=data.external_id,
        )
        db.add(material)
        await db.flush()
        changes = created(_audited(material))
        await audit_change(db, ctx, (ENTITY, material.id), "material.created", changes)
        return to_read(FIELDS.of(material))

    async def update(
        self, db: AsyncSession, ctx: WorkspaceContext, material_id: str, data: MaterialUpdate
    ) -> dict[str, Any]:
        """Edit a material; a new SKU must stay unique in the workspace; changes are audited."""
        material = await self._load(db, ctx, material_id)
        await self.change(db, ctx, material, data)
        return to_read(FIELDS.of(material))

    async def change(
        self, db: AsyncSession, ctx: WorkspaceContext, material: Material, data: MaterialUpdate
    ) -> dict[str, list[Any]]:
        """The fields sent applied to ``material``, with the update's rules; audited. Returns
        the changes (none: nothing was written)."""
        given = data.model_fields_set
        if "sku" in given:
            await self._check_sku(db, ctx, data.sku, material.id)
        if "external_id" in given:
            await self._check_external_id(db, ctx, data.external_id, material.id)
        before = _audited(material)
        for name in COLUMNS:
            if name in given:
                value = getattr(data, name)
                setattr(material, name, money.cents(value) if name == "unit_price" else value)
        after = _audited(material)
        return await audit_update(db, ctx, (ENTITY, material), "material.updated", before, after)

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext, material_id: str) -> None:
        """Delete for good: proposal line items keep what they copied."""
        material = await self._load(db, ctx, material_id)
        before = _audited(material)
        await repo.remove(db, material)
        changes = {name: [value, None] for name, value in before.items() if value is not None}
        await audit_change(db, ctx, (ENTITY, material.id), "material.deleted", changes)

    async def import_csv(
        self, db: AsyncSession, ctx: WorkspaceContext, body: bytes, *, dry_run: bool
    ) -> dict[str, Any]:
        """Every row checked before anything is written: any bad row and nothing is (400 with
        the per-row results). A row whose SKU the workspace has updates that material; the
        others create one. ``dry_run`` answers the same results and writes nothing."""
        parsed = parse_rows(body)
        skus = [row.data.sku for row in parsed if row.data is not None and row.data.sku]
        existing = await repo.by_skus(db, ctx.workspace.id, skus)
        now = clock.now()
        results, inserts, updates = [], [], []
        for row in parsed:
            result: dict[str, Any] = {"row": row.number, "ok": not row.errors, "errors": row.errors}
            if row.data is not None and not row.errors:
                data = row.data
                # a CSV has no externalId column: the import leaves the keys as they are
                values = data.model_dump(exclude={"external_id"}) | {
                    "unit_price": money.cents(data.unit_price),
                    "currency": data.currency or DEFAULT_CURRENCY,
                    "updated_at": now,
                }
                if data.sku in existing:
                    result |= {"action": "updated", "id": existing[data.sku].id}
                    updates.append({"id": existing[data.sku].id, **values})
                else:
                    material_id = new_id()
                    result |= {"action": "created", "id": material_id}
                    inserts.append(
                        {
                            "id": material_id,
                            "workspace_id": ctx.workspace.id,
                            "created_by": ctx.user_id,
                            "created_at": now,
                            **values,
                        }
                    )
            results.append(result)
        bad = [r for r in results if not r["ok"]]
        if bad:
            details = [
                {"field": f"rows.{r['row']}", "message": "; ".join(r["errors"])} for r in bad[:20]
            ]
            raise ValidationFailed(
                f"{len(bad)} of {len(results)} rows are invalid; nothing was imported",
                details=details,
                results=results,
            )
        if not dry_run:
            befores = {m.id: _audited(m) for m in existing.values()}
            await repo.insert_many(db, inserts)
            await repo.update_many(db, updates)
            # Each material's own entry (and event), as a single create or update writes it.
            for values in inserts:
                changes = created(_audited(Material(**values)))
                await audit_change(db, ctx, (ENTITY, values["id"]), "material.created", changes)
            for values in updates:
                before = befores[values["id"]]
                after = before | _audited(Material(**values), EDITABLE)  # the key stays
                changes = diff(before, after)
                await audit_change(db, ctx, (ENTITY, values["id"]), "material.updated", changes)
        return {
            "dryRun": dry_run,
            "created": len(inserts),
            "updated": len(updates),
            "results": results,
        }

    def export_csv(self, ctx: WorkspaceContext) -> AsyncIterator[bytes]:
        """Every material of the workspace as CSV, streamed in batches."""
        workspace_id = ctx.workspace.id

        async def batch(
            db: AsyncSession, before_id: str | None, size: int
        ) -> tuple[Sequence[Any], Iterable[Any]]:
            rows = await repo.rows_before(db, workspace_id, before_id, size)
            return rows, [_line(_row(row)) for row in rows]

        return export.stream(CSV_HEADER, batch)


def _line(body: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(csv_cell(body[name]) for name in CSV_HEADER)


async def material_items(db: AsyncSession, workspace_id: str, items: list[ItemIn]) -> list[ItemIn]:
    """Proposal line items with ``materialId``: the name, unit and rate not given copied from
    the workspace's material (one query); a material of another workspace or none: 400."""
    ids = list({item.material_id for item in items if item.material_id is not None})
    if not ids:
        return items
    found = await repo.by_ids(db, workspace_id, ids)
    details, priced = [], []
    for index, item in enumerate(items):
        row = found.get(item.material_id) if item.material_id is not None else None
        if item.material_id is not None and row is None:
            message = f"unknown material {item.material_id!r}"
            details.append({"field": f"items.{index}.materialId", "message": message})
        elif row is not None:
            copied = {"name": row.name, "unit": row.unit, "rate": row.unit_price}
            item = item.model_copy(
                update={
                    name: value for name, value in copied.items() if getattr(item, name) is None
                }
            )
        priced.append(item)
    if details:
        raise ValidationFailed(f"Invalid items: {details[0]['message']}", details=details)
    return priced


material = MaterialService()
