"""Drawing AI on a file version: sheet summary, chat, takeoff detection and the sheet cache."""

from fastapi import Query

from plumbline.db import DB, UoW
from plumbline.drawing_ai.auth import CanReadSheetResults, CanRunDrawingAI
from plumbline.drawing_ai.schemas import (
    ChatReplyRead,
    DrawingChatRequest,
    PageRequest,
    SheetCacheRead,
    SheetSummaryRead,
    TakeoffRead,
    TakeoffRequest,
)
from plumbline.drawing_ai.service import drawing_ai
from plumbline.kit.responses import ORJSONResponse
from plumbline.openapi import errors
from plumbline.routing import make_router

router = make_router(prefix="/file-versions/{fileVersionId}/ai", tags=["drawing-ai"])

# 415 first: the declared order is the served order.
UNREADABLE = errors(
    texts={
        415: "The file version is not a PDF (NOT_A_PDF)",
        400: "VALIDATION_FAILED (pageIndex out of range included), or the PDF cannot be read: "
        "PDF_ENCRYPTED, PDF_UNREADABLE (damaged), PAGE_HAS_NO_TEXT (a scanned or raster-only "
        "page), PAGE_TOO_COMPLEX (past the reader's memory or time limit)",
    }
)


@router.post("/sheet-summary", response_model=SheetSummaryRead, responses=UNREADABLE)
async def sheet_summary(body: PageRequest, access: CanRunDrawingAI, uow: UoW) -> ORJSONResponse:
    """The page's title block (sheet number, title, discipline, scale, revision, date), notes,
    rooms, a short markdown summary and its labelled regions; computed once, then cached."""
    return ORJSONResponse(await drawing_ai.summary(uow, access, body.page_index))


@router.post("/chat", response_model=ChatReplyRead, responses=UNREADABLE)
async def sheet_chat(body: DrawingChatRequest, access: CanRunDrawingAI, uow: UoW) -> ORJSONResponse:
    """Answer the last user message from the page's own text, citing the passages used
    (40 per 10 minutes per user)."""
    messages = [{"role": m.role, "content": m.content} for m in body.messages]
    return ORJSONResponse(await drawing_ai.chat(uow, access, body.page_index, messages))


@router.post("/takeoff-detect", response_model=TakeoffRead, responses=UNREADABLE)
async def takeoff_detect(body: TakeoffRequest, access: CanRunDrawingAI, uow: UoW) -> ORJSONResponse:
    """Counts and boxes of door and window tags, rooms and fixtures, and wall lengths at the
    sheet's stated scale; every category is computed once, then cached."""
    result = await drawing_ai.takeoff(uow, access, body.page_index, list(body.categories))
    return ORJSONResponse(result)


@router.get("/sheet-cache", response_model=SheetCacheRead)
async def sheet_cache(
    access: CanReadSheetResults,
    db: DB,
    page_index: int = Query(0, alias="pageIndex", ge=0, le=100_000),
) -> ORJSONResponse:
    """What was computed for the page of this version (null where nothing was yet)."""
    return ORJSONResponse(await drawing_ai.cache(db, access, page_index))
