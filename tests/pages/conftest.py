"""The pages' live server: one per test file, on the test worker's database."""

from collections.abc import Iterator

import pytest

from tests.live import LiveServer


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live
