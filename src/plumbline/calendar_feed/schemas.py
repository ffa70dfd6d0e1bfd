"""Calendar feed requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import NOT_BLANK, Schema

FeedName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200, pattern=NOT_BLANK)
]


class FeedCreate(Schema):
    name: FeedName | None = Field(
        default=None, description="The calendar's name (default: the project's, or yours)"
    )


class FeedRead(BaseModel):
    id: str
    kind: Literal["USER", "PROJECT"]
    projectId: str | None
    name: str
    createdBy: str
    createdAt: datetime
    lastUsedAt: datetime | None


class FeedCreated(FeedRead):
    url: str = Field(description="The secret subscription URL, shown in this response only")
