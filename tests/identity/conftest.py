from collections.abc import AsyncIterator

import httpx
import pytest


@pytest.fixture
async def client(client: httpx.AsyncClient) -> AsyncIterator[httpx.AsyncClient]:
    """The suite's client, without a cookie jar: each request names its session explicitly."""

    async def forget(_: httpx.Response) -> None:
        client.cookies.clear()

    client.event_hooks["response"].append(forget)
    yield client
    client.event_hooks["response"].remove(forget)
