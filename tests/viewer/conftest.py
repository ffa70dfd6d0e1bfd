from collections.abc import AsyncIterator

import httpx
import pytest

from plumbline.models import FileVersion
from tests.factories import World
from tests.viewer.helpers import create_file_version, in_process_server, live_client


@pytest.fixture(scope="session")
async def live_url(app) -> AsyncIterator[str]:  # type: ignore[no-untyped-def]
    """The test app behind a real socket (SSE needs one: httpx's ASGI transport buffers)."""
    async with in_process_server(app) as url:
        yield url


@pytest.fixture
async def live(live_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with live_client(live_url) as client:
        yield client


@pytest.fixture
async def version(world: World) -> FileVersion:
    return await create_file_version(world.project, created_by=world.member.id)
