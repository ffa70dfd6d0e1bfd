"""Parts (``/workspaces/{workspaceId}/om/parts``) and a project's stock: locations, levels and
the ledger (``/projects/{projectId}/om/stock...``)."""

from typing import Annotated

from fastapi import Depends
from fastapi.responses import StreamingResponse

from plumbline.db import DB
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.om.auth import (
    CanReadOm,
    CanReadOmMoney,
    CanReadOmWorkspace,
    CanSetupOm,
    CanSetupOmWorkspace,
    CanWorkOm,
)
from plumbline.om.parts.catalogue import part_service
from plumbline.om.parts.schemas import (
    AdjustmentCreate,
    LevelFilters,
    LevelRead,
    LocationCreate,
    LocationRead,
    MoveFilters,
    MoveRead,
    PartCreate,
    PartRead,
    PartUpdate,
    ReceiptCreate,
    TransferCreate,
    level_filters,
    move_filters,
)
from plumbline.om.parts.service import MOVE_HEADER, stock
from plumbline.openapi import errors
from plumbline.records.export import csv_response, stream
from plumbline.routing import make_router

parts_router = make_router(prefix="/workspaces/{workspaceId}/om/parts", tags=["om"])
router = make_router(prefix="/projects/{projectId}/om", tags=["om"])
Moves = Annotated[MoveFilters, Depends(move_filters)]
OUT_OF_STOCK = errors(409, texts={409: "Not enough stock (INSUFFICIENT_STOCK: partId, available)"})


@parts_router.get("", response_model=list[PartRead])
async def list_parts(ctx: CanReadOmWorkspace, db: DB, page: Page) -> ORJSONResponse:
    """The workspace's parts, newest first."""
    return ORJSONResponse.page(await part_service.list_parts(db, ctx, page))


@parts_router.post("", response_model=PartRead, responses=errors(409))
async def create_part(ctx: CanSetupOmWorkspace, db: DB, body: PartCreate) -> ORJSONResponse:
    """Create a part (MANAGER+); sku unique in the workspace."""
    return ORJSONResponse(await part_service.create(db, ctx, body))


@parts_router.get("/{partId}", response_model=PartRead)
async def get_part(ctx: CanReadOmWorkspace, db: DB, partId: str) -> ORJSONResponse:
    """One part."""
    return ORJSONResponse(await part_service.get(db, ctx, partId))


@parts_router.patch("/{partId}", response_model=PartRead, responses=errors(409))
async def update_part(
    ctx: CanSetupOmWorkspace, db: DB, partId: str, body: PartUpdate
) -> ORJSONResponse:
    """Update a part (MANAGER+): only the fields sent."""
    return ORJSONResponse(await part_service.update(db, ctx, partId, body))


@parts_router.delete("/{partId}", response_model=Ok)
async def delete_part(ctx: CanSetupOmWorkspace, db: DB, partId: str) -> ORJSONResponse:
    """Delete a part (soft, MANAGER+); its ledger keeps it."""
    await part_service.delete(db, ctx, partId)
    return ORJSONResponse({"ok": True})


@router.get("/stock-locations", response_model=list[LocationRead])
async def list_locations(ctx: CanReadOm, db: DB, page: Page) -> ORJSONResponse:
    """The project's stock locations (store rooms), newest first."""
    return ORJSONResponse.page(await stock.list_locations(db, ctx, page))


@router.post("/stock-locations", response_model=LocationRead, responses=errors(409))
async def create_location(ctx: CanSetupOm, db: DB, body: LocationCreate) -> ORJSONResponse:
    """Create a stock location (MANAGER+); names unique in the project."""
    return ORJSONResponse(await stock.create_location(db, ctx, body))


@router.get("/stock", response_model=list[LevelRead])
async def list_levels(
    ctx: CanReadOm,
    db: DB,
    page: Page,
    filters: Annotated[LevelFilters, Depends(level_filters)],
) -> ORJSONResponse:
    """On hand per part and location, the ledger's sum (filters: locationId, belowMinimum)."""
    return ORJSONResponse.page(await stock.list_levels(db, ctx, filters, page))


@router.get("/stock/moves", response_model=list[MoveRead])
async def list_moves(ctx: CanReadOmMoney, db: DB, page: Page, filters: Moves) -> ORJSONResponse:
    """The stock ledger, newest first (filters: partId, locationId, workOrderId)."""
    return ORJSONResponse.page(await stock.list_moves(db, ctx, filters, page))


@router.get(
    "/stock/moves/export.csv",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, one row per move"}},
)
async def export_moves(ctx: CanReadOmMoney, filters: Moves) -> StreamingResponse:
    """The stock ledger as CSV (streamed, newest first; the list's filters)."""
    return csv_response(stream(MOVE_HEADER, stock.export_moves(ctx, filters)), "stock-ledger.csv")


@router.post("/stock/receipts", response_model=MoveRead)
async def receive_stock(ctx: CanSetupOm, db: DB, body: ReceiptCreate) -> ORJSONResponse:
    """Receive stock outside a purchase order (MANAGER+)."""
    return ORJSONResponse(await stock.receive(db, ctx, body))


@router.post("/stock/transfers", response_model=list[MoveRead], responses=OUT_OF_STOCK)
async def transfer_stock(ctx: CanWorkOm, db: DB, body: TransferCreate) -> ORJSONResponse:
    """Move stock between two of the project's locations: two ledger entries."""
    return ORJSONResponse(await stock.transfer(db, ctx, body))


@router.post("/stock/adjustments", response_model=MoveRead)
async def adjust_stock(ctx: CanSetupOm, db: DB, body: AdjustmentCreate) -> ORJSONResponse:
    """Record a stock count with its reason (MANAGER+): the ledger takes the difference."""
    return ORJSONResponse(await stock.adjust(db, ctx, body))
