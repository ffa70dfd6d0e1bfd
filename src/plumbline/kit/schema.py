"""Pydantic base models (camelCase on the wire, unknown request fields ignored) and the field
types several domains share."""

import re
from datetime import date, datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list | tuple | set):
        return any(_contains_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, BaseModel):
        return False  # a nested Schema checked its own fields
    return False


class Schema(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_nul_characters(cls, value: Any) -> Any:
        """PostgreSQL text and JSONB cannot hold NUL: refuse it in every request field (400)."""
        if _contains_nul(value):
            raise ValueError("must not contain NUL characters")
        return value


class Patch(Schema):
    """A PATCH body: only the fields sent apply; the ones named in ``not_null`` refuse null."""

    not_null: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _refuse_nulls(self) -> Self:
        for name in self.not_null:
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        return self


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

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class Pin(Schema):
    """A point on a drawing page, normalised to 0..1 from the top-left corner."""

    x: float = Field(ge=0, le=1)
    y: float = Field(ge=0, le=1)


class PinRead(BaseModel):
    x: float
    y: float


# The HTML ``<input type=email>`` grammar (ASCII only, so every address can go in a mail
# header as written), with at least one dot in the domain.
_EMAIL = re.compile(
    r"^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$"
)


def _email(value: str) -> str:
    value = value.strip().lower()
    if len(value) > 320 or not _EMAIL.match(value):
        raise ValueError("not a valid e-mail address")
    return value


EmailAddress = Annotated[str, Field(max_length=400), AfterValidator(_email)]
