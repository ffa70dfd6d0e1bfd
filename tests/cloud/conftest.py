from __future__ import annotations

from collections.abc import Iterator

import pytest

from plumbline.config import settings
from tests.cloud.standin import CLIENT_SECRET, StandIn


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    server = StandIn().start()
    yield server
    server.stop()


@pytest.fixture
def provider_server(standin: StandIn, monkeypatch: pytest.MonkeyPatch) -> StandIn:
    """Every provider configured and pointing at the stand-in; tokens issued for an hour."""
    from pydantic import SecretStr

    for name, value in standin.settings().items():
        monkeypatch.setattr(settings, name, value)
    for provider in ("google", "microsoft", "dropbox"):
        monkeypatch.setattr(settings, f"{provider}_client_secret", SecretStr(CLIENT_SECRET))
    standin.state.expires_in = 3600
    return standin
