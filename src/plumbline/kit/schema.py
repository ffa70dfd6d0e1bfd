"""Pydantic base models (camelCase on the wire) and the field types several domains share.

Unknown request fields are ignored.
"""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    Strict,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.config import JsonDict
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

# How deep a request field's JSON may nest (docs/decisions.md): deeper values would exhaust
# the recursion of the JSON encoders that store and return them (orjson stops at 255).
MAX_DEPTH = 64


def _check_value(value: Any) -> None:
    """Refuses NUL characters (PostgreSQL text and JSONB cannot hold them), integers beyond 64
    bits and nesting deeper than ``MAX_DEPTH``; iterative, so no client value can exhaust the
    interpreter's stack."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ValueError("must not contain NUL characters")
        elif isinstance(item, int):
            if not -(2**63) <= item < 2**63:  # the JSON encoder stores 64-bit integers only
                raise ValueError("must not hold integers beyond 64 bits")
        elif isinstance(item, list | tuple | set | dict):
            if depth >= MAX_DEPTH:
                raise ValueError(f"must not be nested more than {MAX_DEPTH} levels deep")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
        # A nested Schema checked its own fields.


class Schema(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_nul_characters(cls, value: Any) -> Any:
        """Every request field: no NUL characters, no deep nesting (400)."""
        _check_value(value)
        return value


def one_of(*groups: tuple[str, ...]) -> JsonDict:
    """A body's ``json_schema_extra`` when it needs every field of at least one group, not null
    (as its validation checks): the OpenAPI's ``anyOf`` of ``required``."""
    return {
        "anyOf": [
            {
                "required": list(group),
                "properties": {name: {"not": {"type": "null"}} for name in group},
            }
            for group in groups
        ]
    }


class Patch(Schema):
    """A PATCH body: only the fields sent apply; the ones named in ``not_null`` refuse null."""

    not_null: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="after")
    def _refuse_nulls(self) -> Self:
        for name in self.not_null:
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null")
        return self

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The OpenAPI says what the body accepts: no null for the ``not_null`` fields."""
        schema = handler(core_schema)
        properties = handler.resolve_ref_schema(schema).get("properties", {})
        for name in cls.not_null:
            field = cls.model_fields[name]
            prop = properties.get(field.alias or name) or properties.get(name) or {}
            if "anyOf" in prop:
                prop["anyOf"] = [b for b in prop["anyOf"] if b.get("type") != "null"]
        return schema

    def sent(self) -> dict[str, Any]:
        """The fields the body named, each dumped whole: nested items get their defaults, as
        on create (``exclude_unset`` would drop them)."""
        return self.model_dump(include=self.model_fields_set)


class Ok(BaseModel):
    ok: bool = True


class ErrorDetail(BaseModel):
    field: str
    message: str


class ErrorBody(BaseModel):
    error: str
    code: str
    details: list[ErrorDetail] | None = None


# Dates and date-times on the wire are ISO 8601 text with ASCII digits: a number (which the
# date parsers would read as seconds since 1970) or digits alone are refused.
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9].*)?", re.DOTALL)


def _iso_text(value: Any) -> Any:
    """A date or date-time from a client is an ISO 8601 string (Python callers may hand over
    ``date`` and ``datetime`` objects)."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _ISO_DAY.fullmatch(value):
        raise PydanticCustomError(
            "iso_8601", "must be an ISO 8601 string such as 2026-11-24 or 2026-11-24T09:30:00Z"
        )
    return value


def _calendar_day(value: Any) -> Any:
    """A calendar day is ``YYYY-MM-DD``; a date-time names the day it was written in."""
    value = _iso_text(value)
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str) and len(value) > 10:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
        except ValueError:
            return value  # the date parser reports it
    return value


CalendarDay = Annotated[date, BeforeValidator(_calendar_day)]


def _in_utc(value: datetime) -> datetime:
    """Aware and in UTC (a naive value is UTC); a date-time UTC cannot hold is refused."""
    try:
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except OverflowError:
        raise ValueError("date-time out of range") from None


Instant = Annotated[datetime, BeforeValidator(_iso_text), AfterValidator(_in_utc)]

# Numbers from clients. Every integer has bounds (an unbounded one overflows a database column
# or a conversion with a 500), and in bodies numbers and booleans are strict: "10" and true are
# not numbers, 1 is not true. Query and path values arrive as text, so their types stay lax.
MAX_INT32 = 2**31 - 1  # versions, revisions and per-project numbers are 32-bit columns
MAX_BYTES = 2**53  # the largest integer a JavaScript client holds exactly
Flag = Annotated[bool, Strict()]
Number = Annotated[float, Strict(), AllowInfNan(False)]
ByteCount = Annotated[int, Strict(), Field(ge=0, le=MAX_BYTES)]
Revision = Annotated[int, Strict(), Field(ge=0, le=MAX_INT32)]
PageNumber = Annotated[int, Strict(), Field(ge=1, le=100_000)]
VersionNumber = Annotated[int, Field(ge=1, le=MAX_INT32)]

# Not blank: the pattern tells the OpenAPI what stripping leaves (blank gets "at least 1").
NOT_BLANK = r"\S"
Title = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500, pattern=NOT_BLANK)
]
# The caller's own key for a record (issues, assets, materials): opaque, kept as sent.
ExternalId = Annotated[str, StringConstraints(min_length=1, max_length=255, pattern=NOT_BLANK)]


@dataclass(frozen=True)
class Decimals:
    """A non-negative JSON number or decimal string with at most ``integers`` digits before
    the point and ``places`` after it, or up to ``maximum`` (a power of ten). The OpenAPI says
    exactly that (``multipleOf`` and a pattern), so values generated from it are accepted."""

    places: int
    integers: int = 12
    maximum: int | None = None

    @property
    def top(self) -> Decimal:
        if self.maximum is not None:
            return Decimal(self.maximum)
        return Decimal(10) ** self.integers - Decimal(1).scaleb(-self.places)

    @property
    def pattern(self) -> str:
        """The decimal strings accepted: ASCII digits and an optional point, nothing else (no
        exponent, spaces, sign or other scripts' digits, all of which ``Decimal`` would read)."""
        fraction = rf"(\.[0-9]{{1,{self.places}}})?"
        if self.maximum is None:
            return rf"^[0-9]{{1,{self.integers}}}{fraction}$"
        below = len(str(self.maximum)) - 1  # the maximum itself, or fewer digits than it has
        return rf"^({self.maximum}(\.0{{1,{self.places}}})?|[0-9]{{1,{below}}}{fraction})$"

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        digits = None if self.maximum is not None else self.integers + self.places
        text = re.compile(self.pattern)

        def written_plainly(value: Any) -> Any:
            # ``fullmatch``: a trailing newline, which ``$`` lets through, is refused too.
            if isinstance(value, str) and not text.fullmatch(value):
                raise PydanticCustomError(
                    "decimal_text",
                    "must be a decimal number written with ASCII digits and a point, such as 12.50",
                )
            return value

        return core_schema.no_info_before_validator_function(
            written_plainly,
            core_schema.decimal_schema(
                ge=Decimal(0), le=self.top, max_digits=digits, decimal_places=self.places
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        step = float(Decimal(1).scaleb(-self.places))
        number = {"type": "number", "minimum": 0, "maximum": float(self.top), "multipleOf": step}
        return {"anyOf": [number, {"type": "string", "pattern": self.pattern}]}


# Money in a 12-digit column; quantities and rates with four places; percentages 0 to 100.
Money = Annotated[Decimal, Decimals(places=2)]
Quantity = Annotated[Decimal, Decimals(places=4)]
Percentage = Annotated[Decimal, Decimals(places=4, maximum=100)]


class Pin(Schema):
    """A point on a drawing page, normalised to 0..1 from the top-left corner."""

    x: Number = Field(ge=0, le=1)
    y: Number = Field(ge=0, le=1)


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


EmailAddress = Annotated[
    str, Field(max_length=400, json_schema_extra={"format": "email"}), AfterValidator(_email)
]
