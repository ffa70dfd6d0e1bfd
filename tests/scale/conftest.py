"""The cluster of a test module (tests/scale/cluster.py), on PostgreSQL only."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from tests.scale.cluster import Cluster, Http, cluster

ON_POSTGRES = bool(os.environ.get("PLUMBLINE_TEST_DATABASE_URL"))
POSTGRES_ONLY = pytest.mark.skipif(
    not ON_POSTGRES,
    reason="several processes share one database: PostgreSQL only "
    "(set PLUMBLINE_TEST_DATABASE_URL; the PostgreSQL pass of .ci/run does)",
)


# Worlds seeded for the modules of this folder, each taking its ``WORLDS``.
POOL = 10


@pytest.fixture(scope="session")
def running(moto_url: str, redis_url: str) -> Iterator[Cluster]:
    """Two servers and two workers on a database of their own, shared by this folder's
    modules (each scopes what it counts to its own worlds)."""
    if not ON_POSTGRES:
        pytest.skip("PostgreSQL only")
    with cluster("cluster", moto_url, redis_url, worlds=POOL) as started:
        yield started


@pytest.fixture(scope="module")
def worlds(request: pytest.FixtureRequest, running: Cluster) -> list[dict[str, Any]]:
    """The module's own ``WORLDS`` seeded worlds."""
    return running.take(request.module.WORLDS)


@pytest.fixture
async def http(running: Cluster) -> AsyncIterator[Http]:
    """A client per server; every process of the cluster running first."""
    running.ensure()
    clients = Http(running)
    yield clients
    await clients.aclose()
