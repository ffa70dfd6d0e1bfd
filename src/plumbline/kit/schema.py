"""Pydantic base models: camelCase on the wire, unknown request fields ignored."""

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Schema(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Ok(BaseModel):
    ok: bool = True


class ErrorDetail(BaseModel):
    field: str
    message: str


class ErrorBody(BaseModel):
    error: str
    code: str
    details: list[ErrorDetail] | None = None
