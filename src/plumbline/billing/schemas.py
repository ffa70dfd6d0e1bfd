"""Request and response shapes of the payments routes."""

from typing import Annotated, Literal

from pydantic import BaseModel, StringConstraints

from plumbline.kit.schema import Schema

WorkspaceId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
PaidPlan = Literal["team", "pro", "enterprise"]


class CheckoutCreate(Schema):
    workspace_id: WorkspaceId
    plan: PaidPlan


class PortalCreate(Schema):
    workspace_id: WorkspaceId


class Url(BaseModel):
    url: str
