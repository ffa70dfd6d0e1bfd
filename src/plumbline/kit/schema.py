"""Pydantic base models: camelCase on the wire, unknown request fields ignored."""

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict
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


def _calendar_day(value: Any) -> Any:
    """A calendar day is ``YYYY-MM-DD``; a date-time names the day it was written in."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str) and len(value) > 10:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
        except ValueError:
            return value  # the date parser reports it
    return value


CalendarDay = Annotated[date, BeforeValidator(_calendar_day)]
