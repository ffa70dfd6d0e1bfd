"""The workspace's vendors (``/workspaces/{workspaceId}/vendors``): to whom purchase orders
go (MANAGER+ keeps them; soft-deleted, so orders keep naming them)."""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_update, created
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import NotFound, found
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.models import Vendor
from plumbline.om.purchasing import repository as repo
from plumbline.om.purchasing.repository import VENDOR_FIELDS
from plumbline.om.purchasing.schemas import VendorCreate, VendorUpdate

VENDOR_AUDITED = tuple(to_camel(name) for name in VendorUpdate.model_fields)


class VendorNotFound(NotFound, message="Vendor not found"): ...


class VendorService:
    async def list_vendors(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        rows, headers = page.finish(await repo.list_vendors(db, ctx.workspace.id, page))
        return [VENDOR_FIELDS.row(row) for row in rows], headers

    async def require(self, db: AsyncSession, workspace_id: str, vendor_id: str) -> Vendor:
        return found(await repo.get_vendor(db, workspace_id, vendor_id), VendorNotFound())

    async def get(self, db: AsyncSession, ctx: WorkspaceContext, vendor_id: str) -> dict[str, Any]:
        vendor = await self.require(db, ctx.workspace.id, vendor_id)
        return VENDOR_FIELDS.read(VENDOR_FIELDS.of(vendor))

    async def create(
        self, db: AsyncSession, ctx: WorkspaceContext, body: VendorCreate
    ) -> dict[str, Any]:
        now = clock.now()
        vendor = Vendor(
            id=new_id(),
            workspace_id=ctx.workspace.id,
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
            **body.model_dump(),
        )
        db.add(vendor)
        await db.flush()
        audited = created(VENDOR_FIELDS.audited(vendor, VENDOR_AUDITED))
        await audit_change(db, ctx, ("vendor", vendor.id), "vendor.created", audited)
        return VENDOR_FIELDS.read(VENDOR_FIELDS.of(vendor))

    async def update(
        self, db: AsyncSession, ctx: WorkspaceContext, vendor_id: str, body: VendorUpdate
    ) -> dict[str, Any]:
        vendor = await self.require(db, ctx.workspace.id, vendor_id)
        before = VENDOR_FIELDS.audited(vendor, VENDOR_AUDITED)
        for column, value in body.sent().items():
            setattr(vendor, column, value)
        after = VENDOR_FIELDS.audited(vendor, VENDOR_AUDITED)
        await audit_update(db, ctx, ("vendor", vendor), "vendor.updated", before, after)
        return VENDOR_FIELDS.read(VENDOR_FIELDS.of(vendor))

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext, vendor_id: str) -> None:
        """Soft delete: its orders keep naming it."""
        vendor = await self.require(db, ctx.workspace.id, vendor_id)
        vendor.deleted_at = clock.now()
        stamp = {"deletedAt": [None, clock.iso(vendor.deleted_at)]}
        await audit_change(db, ctx, ("vendor", vendor.id), "vendor.deleted", stamp)
        await db.flush()


vendors = VendorService()
