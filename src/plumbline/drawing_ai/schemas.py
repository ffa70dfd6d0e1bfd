"""Drawing-AI requests and answers. Boxes are normalised to 0..1 from the page's top-left
corner; ``pageIndex`` counts pages from 0."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, Strict, model_validator

from plumbline.kit.schema import Schema

PageIndex = Annotated[int, Strict(), Field(ge=0, le=100_000, description="0 is the first page")]
Category = Literal["doors", "windows", "rooms", "walls", "fixtures"]
CATEGORIES: tuple[Category, ...] = ("doors", "windows", "rooms", "walls", "fixtures")


class PageRequest(Schema):
    page_index: PageIndex


class DrawingChatMessage(Schema):
    role: Literal["user", "assistant"]
    content: str = Field(min_length=1, max_length=4000)


class DrawingChatRequest(PageRequest):
    messages: list[DrawingChatMessage] = Field(min_length=1, max_length=40)

    @model_validator(mode="after")
    def _asks_something(self) -> DrawingChatRequest:
        if not any(m.role == "user" for m in self.messages):
            raise ValueError("messages must include a user message")
        return self


class TakeoffRequest(PageRequest):
    categories: list[Category] = Field(
        default_factory=lambda: list(CATEGORIES),
        max_length=5,
        description="What to detect; all five when omitted",
    )


class BBox(BaseModel):
    x0: float = Field(ge=0, le=1)
    y0: float = Field(ge=0, le=1)
    x1: float = Field(ge=0, le=1)
    y1: float = Field(ge=0, le=1)


class TocEntry(BaseModel):
    title: str
    bbox: BBox


class SheetSummaryRead(BaseModel):
    sheetNumber: str | None
    sheetTitle: str | None
    discipline: str | None
    scale: str | None
    revision: str | None
    date: str | None = Field(description="YYYY-MM-DD when unambiguous, else as printed")
    summaryMarkdown: str
    notes: list[str]
    rooms: list[str]
    tableOfContents: list[TocEntry]


class Citation(BaseModel):
    text: str
    bbox: BBox


class ChatReplyRead(BaseModel):
    reply: str
    citations: list[Citation]


class TakeoffItem(BaseModel):
    category: Category
    label: str
    bbox: BBox


class WallLengths(BaseModel):
    metres: float | None = Field(description="Real length at the sheet's scale; null unscaled")
    feet: float | None = Field(description="Also in feet when the scale is imperial")
    paperMm: float = Field(description="Length measured on the paper")
    runs: int = Field(ge=0, description="Wall runs after merging collinear strokes")
    scale: str | None


class TakeoffLengths(BaseModel):
    walls: WallLengths | None = None


class TakeoffRead(BaseModel):
    counts: dict[str, int]
    items: list[TakeoffItem]
    lengths: TakeoffLengths


class SheetCacheRead(BaseModel):
    fileVersionId: str
    pageIndex: int
    summary: SheetSummaryRead | None
    summaryComputedAt: str | None
    takeoff: TakeoffRead | None = Field(description="Every category, as first computed")
    takeoffComputedAt: str | None
