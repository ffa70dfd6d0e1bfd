"""In-app notifications of the current user."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from plumbline.kit.schema import Schema

NotificationId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class NotificationRead(Schema):
    id: str
    kind: str
    title: str
    body: str | None
    href: str | None
    workspace_id: str | None
    project_id: str | None
    read_at: str | None
    created_at: str


class MarkRead(Schema):
    ids: list[NotificationId] = Field(max_length=1000)


class Updated(BaseModel):
    updated: int
