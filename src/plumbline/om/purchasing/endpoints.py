"""Vendors (``/workspaces/{workspaceId}/vendors``) and purchase orders
(``/projects/{projectId}/om/purchase-orders``)."""

from typing import Annotated

from fastapi import Depends, Response

from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.auth import CanReadOmMoney, CanReadOmWorkspace, CanSetupOm, CanSetupOmWorkspace
from plumbline.om.purchasing.schemas import (
    OrderCreate,
    OrderFilters,
    OrderRead,
    OrderSummary,
    OrderUpdate,
    Receive,
    Send,
    VendorCreate,
    VendorRead,
    VendorUpdate,
    order_filters,
)
from plumbline.om.purchasing.service import orders
from plumbline.om.purchasing.vendors import vendors
from plumbline.openapi import errors
from plumbline.routing import make_router

vendors_router = make_router(prefix="/workspaces/{workspaceId}/vendors", tags=["om"])
router = make_router(prefix="/projects/{projectId}/om/purchase-orders", tags=["om"])
STEP = errors(409)


@vendors_router.get("", response_model=list[VendorRead])
async def list_vendors(ctx: CanReadOmWorkspace, db: DB, page: Page) -> ORJSONResponse:
    """The workspace's vendors, newest first."""
    return ORJSONResponse.page(await vendors.list_vendors(db, ctx, page))


@vendors_router.post("", response_model=VendorRead)
async def create_vendor(ctx: CanSetupOmWorkspace, db: DB, body: VendorCreate) -> ORJSONResponse:
    """Create a vendor (MANAGER+)."""
    return ORJSONResponse(await vendors.create(db, ctx, body))


@vendors_router.get("/{vendorId}", response_model=VendorRead)
async def get_vendor(ctx: CanReadOmWorkspace, db: DB, vendorId: str) -> ORJSONResponse:
    """One vendor."""
    return ORJSONResponse(await vendors.get(db, ctx, vendorId))


@vendors_router.patch("/{vendorId}", response_model=VendorRead)
async def update_vendor(
    ctx: CanSetupOmWorkspace, db: DB, vendorId: str, body: VendorUpdate
) -> ORJSONResponse:
    """Update a vendor (MANAGER+): only the fields sent."""
    return ORJSONResponse(await vendors.update(db, ctx, vendorId, body))


@vendors_router.delete("/{vendorId}", response_model=Ok)
async def delete_vendor(ctx: CanSetupOmWorkspace, db: DB, vendorId: str) -> ORJSONResponse:
    """Delete a vendor (soft, MANAGER+); its orders keep it."""
    await vendors.delete(db, ctx, vendorId)
    return ORJSONResponse({"ok": True})


@router.get("", response_model=list[OrderSummary])
async def list_orders(
    ctx: CanReadOmMoney,
    db: DB,
    page: Page,
    filters: Annotated[OrderFilters, Depends(order_filters)],
) -> ORJSONResponse:
    """The project's purchase orders, newest first (filters: status, vendorId)."""
    return ORJSONResponse.page(await orders.list_orders(db, ctx, filters, page))


@router.post("", response_model=OrderRead)
async def create_order(ctx: CanSetupOm, db: DB, body: OrderCreate) -> ORJSONResponse:
    """Create a DRAFT purchase order (MANAGER+)."""
    return ORJSONResponse(await orders.create(db, ctx, body))


@router.get("/{orderId}", response_model=OrderRead)
async def get_order(ctx: CanReadOmMoney, db: DB, orderId: str) -> ORJSONResponse:
    """One purchase order with its lines."""
    return ORJSONResponse(await orders.get(db, ctx, orderId))


@router.patch("/{orderId}", response_model=OrderRead, responses=STEP)
async def update_order(ctx: CanSetupOm, db: DB, orderId: str, body: OrderUpdate) -> ORJSONResponse:
    """Change a DRAFT purchase order (MANAGER+); ``lines`` as a whole list."""
    return ORJSONResponse(await orders.update(db, ctx, orderId, body))


@router.post("/{orderId}/approve", response_model=OrderRead, responses=STEP)
async def approve_order(ctx: CanSetupOm, db: DB, orderId: str) -> ORJSONResponse:
    """Approve a DRAFT purchase order (MANAGER+)."""
    return ORJSONResponse(await orders.approve(db, ctx, orderId))


@router.post("/{orderId}/order", response_model=OrderRead, responses=STEP)
async def place_order(ctx: CanSetupOm, uow: UoW, orderId: str, body: Send) -> ORJSONResponse:
    """Mark an APPROVED order ORDERED and e-mail its PDF to the vendor (MANAGER+)."""
    return ORJSONResponse(await orders.order(uow, ctx, orderId, body))


@router.post("/{orderId}/email", response_model=OrderRead, responses=STEP)
async def email_order(ctx: CanSetupOm, uow: UoW, orderId: str) -> ORJSONResponse:
    """E-mail the order's PDF to its vendor again (MANAGER+)."""
    return ORJSONResponse(await orders.email(uow, ctx, orderId))


@router.post("/{orderId}/receive", response_model=OrderRead, responses=STEP)
async def receive_order(ctx: CanSetupOm, db: DB, orderId: str, body: Receive) -> ORJSONResponse:
    """Receive lines into the order's stock location (MANAGER+); never beyond what was ordered."""
    return ORJSONResponse(await orders.receive(db, ctx, orderId, body))


@router.post("/{orderId}/cancel", response_model=OrderRead, responses=STEP)
async def cancel_order(ctx: CanSetupOm, db: DB, orderId: str) -> ORJSONResponse:
    """Cancel an order nothing of which was received (MANAGER+)."""
    return ORJSONResponse(await orders.cancel(db, ctx, orderId))


@router.get(
    "/{orderId}/pdf",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}, "description": "The order as a PDF"}},
)
async def order_pdf(ctx: CanReadOmMoney, db: DB, orderId: str) -> Response:
    """The purchase order as a PDF, as its vendor receives it."""
    pdf, filename = await orders.pdf(db, ctx, orderId)
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
