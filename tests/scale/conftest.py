"""The cluster of a test module (tests/scale/cluster.py), on PostgreSQL only."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from tests.scale.cluster import Cluster, Http, cluster

ON_POSTGRES = bool(os.environ.get("PLUMBLINE_TEST_DATABASE_URL"))
POSTGRES_ONLY = pytest.mark.skipif(
    not ON_POSTGRES,
    reason="several processes share one database: PostgreSQL only "
    "(set PLUMBLINE_TEST_DATABASE_URL; the PostgreSQL pass of .ci/run does)",
)


@pytest.fixture(scope="module")
def running(request: pytest.FixtureRequest, moto_url: str, redis_url: str) -> Iterator[Cluster]:
    """Two servers and two workers on a database of the module's own (``WORLDS`` seeded)."""
    name = request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    with cluster(name, moto_url, redis_url, worlds=request.module.WORLDS) as started:
        yield started


@pytest.fixture
async def http(running: Cluster) -> AsyncIterator[Http]:
    """A client per server; every process of the cluster running first."""
    running.ensure()
    clients = Http(running)
    yield clients
    await clients.aclose()
