"""``clock.iso``: the one format of a time on the wire, whatever the value it is handed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from plumbline.kit.clock import iso


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime(2026, 11, 27, 6, 0, 19, 977999, tzinfo=UTC), "2026-11-27T06:00:19.977Z"),
        (datetime(2026, 11, 27, 6, 0, 19, tzinfo=UTC), "2026-11-27T06:00:19.000Z"),
        (datetime(2026, 11, 27, 6, 0, 19, 1000), "2026-11-27T06:00:19.001Z"),  # naive is UTC
        (
            datetime(2026, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=1))),
            "2025-12-31T23:30:00.000Z",
        ),
        (
            datetime(2026, 12, 31, 19, 0, 0, 999, tzinfo=timezone(timedelta(hours=-5))),
            "2027-01-01T00:00:00.000Z",
        ),
        (datetime(5, 3, 9, 1, 2, 3, 45000), "0005-03-09T01:02:03.045Z"),
        (datetime.max, "9999-12-31T23:59:59.999Z"),
        (None, None),
    ],
)
def test_iso_is_utc_milliseconds_and_z(value: datetime | None, expected: str | None) -> None:
    assert iso(value) == expected
