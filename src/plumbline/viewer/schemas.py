"""Request and response shapes of the viewer routes."""

from typing import Annotated, Any

from pydantic import Field, Strict

from plumbline.kit.schema import Revision, Schema


class LockRead(Schema):
    file_version_id: str
    locked_by: str
    locked_at: str
    expires_at: str


class ViewerStateRead(Schema):
    viewer_state: dict[str, Any]
    revision: int


class ViewerStateWrite(Schema):
    viewer_state: dict[str, Any]
    base_revision: Revision


class ViewerStateRevision(Schema):
    revision: int


class Heartbeat(Schema):
    connection_id: str = Field(min_length=1, max_length=64)
    page_index: Annotated[int, Strict(), Field(ge=0, le=1_000_000)] | None = None


class ConnectionRef(Schema):
    connection_id: str = Field(min_length=1, max_length=64)


class CollabMetrics(Schema):
    connections_open: int
    rooms: int
    events_published: int
    events_delivered: int
    events_dropped: int
    slow_consumers_dropped: int
    heartbeats: int
    connections_total: int
    presence_swept: int
    sessions_ended: int
    backend: str
