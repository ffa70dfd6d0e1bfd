import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import TypeAdapter, ValidationError

from plumbline.kit.schema import CalendarDay, EmailAddress, Money, Percentage, Quantity

emails = TypeAdapter(EmailAddress)


def test_email_addresses_are_trimmed_and_lower_cased() -> None:
    assert emails.validate_python("  Ada.Admin+site@Example.COM ") == "ada.admin+site@example.com"
    assert emails.validate_python("demo@plumbline.local") == "demo@plumbline.local"


@pytest.mark.parametrize(
    "value", ["no-at-sign", "a@b", "ä@example.com", "a@exämple.com", "a b@c.d", "a@-x.com"]
)
def test_addresses_that_cannot_go_in_a_mail_header_are_refused(value: str) -> None:
    with pytest.raises(ValidationError):
        emails.validate_python(value)


def test_calendar_days_accept_a_date_time_and_keep_its_written_day() -> None:
    days = TypeAdapter(CalendarDay)
    assert days.validate_python("2026-11-21").isoformat() == "2026-11-21"
    assert days.validate_python("2026-11-21T23:30:00-05:00").isoformat() == "2026-11-21"
    with pytest.raises(ValidationError):
        days.validate_python("2026-13-01")


DECIMALS = {"money": (Money, 2), "quantity": (Quantity, 4), "percentage": (Percentage, 4)}


def _verdicts(kind: str, value: object) -> tuple[bool, bool]:
    """Whether the OpenAPI's JSON schema admits the value, and whether the server does."""
    adapter = TypeAdapter(DECIMALS[kind][0])
    described = Draft202012Validator(adapter.json_schema()).is_valid(value)
    try:
        adapter.validate_json(json.dumps(value))
    except ValidationError:
        return described, False
    return described, True


@pytest.mark.parametrize("kind", DECIMALS)
@given(data=st.data())
@settings(max_examples=200, deadline=None)
def test_decimal_values_the_openapi_describes_are_accepted(kind: str, data: st.DataObject) -> None:
    """A client (or fuzzer) building values from the description is never refused."""
    places = DECIMALS[kind][1]
    schema = TypeAdapter(DECIMALS[kind][0]).json_schema()
    number, string = schema["anyOf"]
    value = data.draw(
        st.one_of(
            st.decimals(0, Decimal(str(number["maximum"])), places=places).map(float),
            st.integers(0, int(number["maximum"])),
            st.from_regex(string["pattern"], fullmatch=True),
            st.floats(allow_nan=False, allow_infinity=False),
            st.text(max_size=20),
        )
    )
    described, accepted = _verdicts(kind, value)
    if described:
        assert accepted, value


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("money", -0.01), ("money", 0.005), ("money", "1.005"), ("money", 1e12), ("money", "abc"),
        ("quantity", 0.00001), ("quantity", "1234567890123"), ("quantity", "-1"),
        ("percentage", 100.01), ("percentage", "100.5"), ("percentage", "101"),
    ],
)  # fmt: skip
def test_decimal_values_refused_by_the_server_are_refused_by_the_description(
    kind: str, value: object
) -> None:
    assert _verdicts(kind, value) == (False, False)


@pytest.mark.parametrize(
    ("kind", "value"),
    [("money", 0), ("money", "999999999999.99"), ("quantity", 33.3333), ("percentage", "100.0"),
     ("percentage", 12.5), ("percentage", "7.25")],
)  # fmt: skip
def test_decimal_values_both_accept(kind: str, value: object) -> None:
    assert _verdicts(kind, value) == (True, True)
