from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from moto.server import ThreadedMotoServer

from plumbline.config import settings
from plumbline.kit.ids import new_id
from plumbline.kit.storage import get_storage
from plumbline.kit.storage.s3 import S3Storage
from tests.live import free_port


@pytest.fixture(scope="module")
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
