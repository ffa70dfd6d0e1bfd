"""Request and response shapes of the cloud-connector routes."""

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from plumbline.file.schemas import Id
from plumbline.kit.schema import Schema

ItemId = Annotated[str, StringConstraints(min_length=1, max_length=1000)]


class ConnectionRead(Schema):
    provider: Literal["google", "microsoft", "dropbox"]
    account_email: str | None
    account_name: str | None
    connected_at: datetime
    expires_at: datetime | None = Field(description="When the current access token expires")
    status: Literal["ACTIVE", "RECONNECT_REQUIRED"]


class Browse(Schema):
    folder_id: ItemId | None = Field(default=None, description="The root folder when absent")
    cursor: Annotated[str, StringConstraints(max_length=8000)] | None = Field(
        default=None, description="The X-Next-Cursor header of the previous page"
    )


class CloudItemRead(BaseModel):
    id: str
    name: str
    kind: Literal["file", "folder"]
    mimeType: str | None
    sizeBytes: int | None


class OpenLink(Schema):
    item_id: ItemId


class CloudLinkRead(BaseModel):
    url: str


class ImportItem(Schema):
    item_id: ItemId
    project_id: Id
    folder_id: Id | None = None
