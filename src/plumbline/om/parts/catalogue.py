"""The workspace's parts (``/workspaces/{workspaceId}/om/parts``): what is stocked, counted how,
at what unit cost, with which minimum and reorder quantity (MANAGER+ keeps them)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import found
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.money import number_text
from plumbline.kit.pagination import PageParams
from plumbline.models import Material, Part
from plumbline.om.parts import repository as repo
from plumbline.om.parts.errors import PartNotFound, SkuTaken
from plumbline.om.parts.repository import PART_FIELDS
from plumbline.om.parts.schemas import PartCreate, PartUpdate
from plumbline.records import references
from plumbline.records.references import Kind

MATERIAL = Kind("material", Material, "workspace")
AUDITED = tuple(to_camel(name) for name in PartUpdate.model_fields)
NUMBERS = ("unitCost", "minQuantity", "reorderQuantity")


def _part(values: dict[str, Any]) -> dict[str, Any]:
    for name in NUMBERS:
        values[name] = number_text(Decimal(values[name]))
    return values


class PartService:
    async def list_parts(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_parts(db, ctx.workspace.id, page))
        return [_part(PART_FIELDS.row(row)) for row in rows], headers

    async def require(self, db: AsyncSession, workspace_id: str, part_id: str) -> Part:
        return found(await repo.get_part(db, workspace_id, part_id), PartNotFound())

    async def get(self, db: AsyncSession, ctx: WorkspaceContext, part_id: str) -> dict[str, Any]:
        part = await self.require(db, ctx.workspace.id, part_id)
        return _part(PART_FIELDS.read(PART_FIELDS.of(part)))

    async def create(
        self, db: AsyncSession, ctx: WorkspaceContext, body: PartCreate
    ) -> dict[str, Any]:
        """A part; its sku unique among the workspace's live parts (409), its material one of
        the workspace's catalogue (400)."""
        if body.sku and await repo.sku_taken(db, ctx.workspace.id, body.sku, None):
            raise SkuTaken()
        await references.require(db, ctx, MATERIAL, "materialId", body.material_id)  # type: ignore[arg-type]
        now = clock.now()
        part = Part(
            id=new_id(),
            workspace_id=ctx.workspace.id,
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
            **body.model_dump(),
        )
        db.add(part)
        await db.flush()
        await audit_change(
            db, ctx, ("part", part.id), "part.created", created(PART_FIELDS.audited(part, AUDITED))
        )
        return _part(PART_FIELDS.read(PART_FIELDS.of(part)))

    async def update(
        self, db: AsyncSession, ctx: WorkspaceContext, part_id: str, body: PartUpdate
    ) -> dict[str, Any]:
        part = await self.require(db, ctx.workspace.id, part_id)
        changes = body.sent()
        if changes.get("sku") and await repo.sku_taken(
            db, ctx.workspace.id, changes["sku"], part.id
        ):
            raise SkuTaken()
        if "material_id" in changes:
            await references.require(db, ctx, MATERIAL, "materialId", changes["material_id"])  # type: ignore[arg-type]
        before = PART_FIELDS.audited(part, AUDITED)
        for column, value in changes.items():
            setattr(part, column, value)
        await audit_update(
            db, ctx, ("part", part), "part.updated", before, PART_FIELDS.audited(part, AUDITED)
        )
        return _part(PART_FIELDS.read(PART_FIELDS.of(part)))

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext, part_id: str) -> None:
        """Soft delete: its ledger and the work orders that used it keep its name."""
        part = await self.require(db, ctx.workspace.id, part_id)
        part.deleted_at = clock.now()
        await audit_change(
            db,
            ctx,
            ("part", part.id),
            "part.deleted",
            {"deletedAt": [None, clock.iso(part.deleted_at)]},
        )
        await db.flush()


part_service = PartService()
