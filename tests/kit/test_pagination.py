import base64
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from plumbline.errors import ValidationFailed
from plumbline.kit import crypto
from plumbline.kit.pagination import (
    CURSOR_PURPOSE,
    Position,
    decode_cursor,
    decode_position,
    encode_cursor,
    encode_position,
)


def test_cursor_round_trips() -> None:
    assert decode_cursor(encode_cursor("01a1fd10ea39732aab253e9c5a6b9f60")) == (
        "01a1fd10ea39732aab253e9c5a6b9f60"
    )


@pytest.mark.parametrize("raw", [b"\x00abc", b"\xff\xfe", b"", b"a" * 300])
def test_foreign_cursors_are_refused(raw: bytes) -> None:
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=") or "!!"
    with pytest.raises(ValidationFailed):
        decode_cursor(cursor)


def test_an_updated_since_position_round_trips_to_the_microsecond() -> None:
    at = datetime(2031, 3, 1, 9, 0, 0, 123456, tzinfo=UTC)
    cursor = encode_position(Position(at, "01a1fd10ea39732aab253e9c5a6b9f60"))
    assert decode_position(cursor) == Position(at, "01a1fd10ea39732aab253e9c5a6b9f60")
    # SQLite hands back naive UTC values: the same position.
    assert encode_position(Position(at.replace(tzinfo=None), "x")) == encode_position(
        Position(at, "x")
    )


@pytest.mark.parametrize(
    "mangle",
    [
        lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # the signature
        lambda c: ("A" if c[0] != "A" else "B") + c[1:],  # the position
        lambda c: c.split(".")[0],  # no signature
        lambda c: encode_cursor("2031-03-01T09:00:00+00:00|x"),  # unsigned
    ],
)
def test_an_altered_position_is_refused(mangle: Callable[[str], str]) -> None:
    cursor = encode_position(Position(datetime(2031, 3, 1, tzinfo=UTC), "abc"))
    with pytest.raises(ValidationFailed):
        decode_position(mangle(cursor))


def test_a_signed_position_that_is_not_a_time_is_refused() -> None:
    for text in ("yesterday|abc", "2031-03-01T09:00:00|abc", "2031-03-01T09:00:00Z|"):
        with pytest.raises(ValidationFailed):
            decode_position(crypto.signed(encode_cursor(text), CURSOR_PURPOSE))
