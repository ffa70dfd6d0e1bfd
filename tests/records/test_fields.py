"""``Fields.row``, the function written out per resource: the response's order, the formats,
the module's own fields and the extras."""

from __future__ import annotations

from datetime import UTC, date, datetime

import orjson
from sqlalchemy import JSON, Column, Date, DateTime, MetaData, String, Table

from plumbline.records.fields import Fields

TABLE = Table(
    "things",
    MetaData(),
    Column("id", String),
    Column("name", String),
    Column("due", Date),
    Column("data", JSON),
    Column("created_at", DateTime(timezone=True)),
)
FIELDS = Fields(
    TABLE,
    {
        "id": "id",
        "photos": None,  # the module's own, at its place
        "name": "name",
        "due": "due",
        "data": "data",
        "createdAt": "created_at",
    },
)
AT = datetime(2026, 11, 27, 9, 5, 7, 123456, tzinfo=UTC)


def test_a_row_in_the_response_order_with_its_values_formatted() -> None:
    row = FIELDS.row(("t1", "Pump", date(2026, 1, 2), '{"a": 1}', AT))
    assert list(row) == ["id", "photos", "name", "due", "data", "createdAt"]
    assert row["photos"] is None
    assert row["due"] == "2026-01-02"
    assert row["createdAt"] == "2026-11-27T09:05:07.123Z"
    # JSON selected as its text goes to orjson untouched
    assert b'"data":{"a": 1},' in orjson.dumps(row)


def test_none_stays_none_and_is_not_formatted() -> None:
    row = FIELDS.row(("t1", None, None, None, None))
    assert row == dict.fromkeys(["id", "photos", "name", "due", "data", "createdAt"]) | {"id": "t1"}


def test_extras_fill_the_modules_fields_and_come_after_the_others() -> None:
    row = FIELDS.row(("t1", "Pump", None, None, AT, "ignored"), photos=["p1"], score=3)
    assert list(row) == ["id", "photos", "name", "due", "data", "createdAt", "score"]
    assert row["photos"] == ["p1"]
    assert row["score"] == 3


def test_read_takes_the_columns_by_name() -> None:
    values = {"id": "t1", "name": "Pump", "due": None, "data": None, "created_at": AT}
    assert FIELDS.read(values, photos=[]) == FIELDS.row(("t1", "Pump", None, None, AT), photos=[])


def test_every_row_is_a_new_dict() -> None:
    first = FIELDS.row(("t1", "Pump", None, None, None))
    first["name"] = "changed"
    assert FIELDS.row(("t1", "Pump", None, None, None))["name"] == "Pump"
