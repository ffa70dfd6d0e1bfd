"""Test harness: a real database built by the migrations, the app over ASGI, small factories.

Each pytest process (each pytest-xdist worker) has a database of its own: SQLite in its own
temporary directory by default; with PLUMBLINE_TEST_DATABASE_URL set, the PostgreSQL database
``<name>_<worker>`` next to the one the URL names, created fresh and dropped at the end.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from sqlalchemy import make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

_tmp = Path(tempfile.mkdtemp(prefix="plumbline-test-"))
_server = os.environ.get("PLUMBLINE_TEST_DATABASE_URL")
_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
_own = f"{make_url(_server).database}_{_worker}" if _server else None
os.environ["PLUMBLINE_DATABASE_URL"] = (
    make_url(_server).set(database=_own).render_as_string(hide_password=False)
    if _server
    else f"sqlite+aiosqlite:///{_tmp}/test.db"
)
os.environ.update(
    {
        "PLUMBLINE_VAR_DIR": str(_tmp),
        "PLUMBLINE_STORAGE_DIR": str(_tmp / "objects"),
        "PLUMBLINE_OUTBOX_DIR": str(_tmp / "outbox"),
        "PLUMBLINE_SECRET_KEY": "test-secret-key-for-the-suite",
        "PLUMBLINE_PUBLIC_URL": "http://127.0.0.1:8000",
        "PLUMBLINE_CRON_SECRET": "test-cron-secret",
        "PLUMBLINE_LOG_LEVEL": "WARNING",
    }
)
for name in (
    "PLUMBLINE_SMTP_URL",
    "PLUMBLINE_REDIS_URL",
    "PLUMBLINE_BILLING",
    "PLUMBLINE_TRUSTED_ORIGINS",
    "PLUMBLINE_TRUSTED_PROXIES",
):
    os.environ.pop(name, None)

import boto3  # noqa: E402
import httpx  # noqa: E402
import pytest  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from plumbline.app import create_app  # noqa: E402
from plumbline.config import settings  # noqa: E402
from plumbline.db import database  # noqa: E402
from plumbline.kit import clock, ratelimit  # noqa: E402
from plumbline.kit.ids import new_id  # noqa: E402
from plumbline.kit.storage import get_storage  # noqa: E402
from plumbline.kit.storage.s3 import S3Storage  # noqa: E402
from plumbline.migrate import upgrade  # noqa: E402
from tests.factories import World, make_world  # noqa: E402
from tests.live import free_port, redis_server  # noqa: E402

ORIGIN = "http://127.0.0.1:8000"


async def _server_database(*statements: str) -> None:
    """Runs CREATE/DROP DATABASE statements through the database the URL names."""
    assert _server is not None
    engine = create_async_engine(_server, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            for statement in statements:
                await conn.execute(text(statement))
    finally:
        await engine.dispose()


@pytest.fixture(scope="session", autouse=True)
async def _schema() -> AsyncIterator[None]:
    if _own:
        await _server_database(
            f'DROP DATABASE IF EXISTS "{_own}" WITH (FORCE)', f'CREATE DATABASE "{_own}"'
        )
    await upgrade()
    yield
    await database.dispose()
    if _own:
        await _server_database(f'DROP DATABASE IF EXISTS "{_own}" WITH (FORCE)')


@pytest.fixture(scope="session")
def app():  # type: ignore[no-untyped-def]
    return create_app()


@pytest.fixture
async def client(app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url=ORIGIN, headers={"Origin": ORIGIN}
    ) as c:
        yield c


@pytest.fixture(autouse=True)
def _reset_state() -> Iterator[None]:
    ratelimit.set_backend(ratelimit.MemoryBackend())
    yield
    clock.set_now(None)
    ratelimit.set_backend(None)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis of the suite's own, started by the first test that needs one."""
    with redis_server() as url:
        yield url


@pytest.fixture
def outbox() -> Path:
    """The directory where e-mails land when no SMTP server is configured."""
    settings.outbox_dir.mkdir(parents=True, exist_ok=True)
    return settings.outbox_dir


@pytest.fixture
async def world() -> World:
    """A workspace with one user per role and one project."""
    return await make_world()


# Object storage on a local moto server (the S3 backend's tests, drawing AI on S3).
@pytest.fixture(scope="session")
def moto_url() -> Iterator[str]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3_storage(moto_url: str, monkeypatch: pytest.MonkeyPatch) -> S3Storage:
    """The app on the S3 backend, a fresh bucket on a local moto server."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    bucket = f"plumbline-{new_id()[-12:]}"
    boto3.client("s3", endpoint_url=moto_url, region_name="us-east-1").create_bucket(Bucket=bucket)
    monkeypatch.setattr(settings, "storage", "s3")
    monkeypatch.setattr(settings, "s3_endpoint_url", moto_url)
    monkeypatch.setattr(settings, "s3_bucket", bucket)
    monkeypatch.setattr(settings, "s3_region", "us-east-1")
    backend = get_storage()
    assert isinstance(backend, S3Storage)
    return backend


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The worker's one Chromium (tests/pages/browser.py), when a test started it."""
    browser = sys.modules.get("tests.pages.browser")
    if browser is not None:
        browser._worker.stop()
