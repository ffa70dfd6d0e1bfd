import base64

import pytest

from plumbline.errors import ValidationFailed
from plumbline.kit.pagination import decode_cursor, encode_cursor


def test_cursor_round_trips() -> None:
    assert decode_cursor(encode_cursor("01a1fd10ea39732aab253e9c5a6b9f60")) == (
        "01a1fd10ea39732aab253e9c5a6b9f60"
    )


@pytest.mark.parametrize("raw", [b"\x00abc", b"\xff\xfe", b"", b"a" * 300])
def test_foreign_cursors_are_refused(raw: bytes) -> None:
    cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=") or "!!"
    with pytest.raises(ValidationFailed):
        decode_cursor(cursor)
