"""Rotating the secret key without signing everyone out: ``PLUMBLINE_SECRET_KEY_PREVIOUS``
names the keys replaced, whose cookies, signed links and encrypted values are still accepted
while everything new is signed and encrypted with the new key."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from pydantic import SecretStr

from plumbline.config import Settings, settings
from plumbline.kit import crypto
from tests.factories import World

LATER = datetime(2100, 1, 1, tzinfo=UTC)
OLD, NEW = b"the-key-before-the-rotation", b"the-key-after-the-rotation"


def use_keys(monkeypatch: pytest.MonkeyPatch, key: bytes, *previous: bytes) -> None:
    monkeypatch.setattr(settings, "secret", key)
    listed = ",".join(p.decode() for p in previous)
    monkeypatch.setattr(settings, "secret_key_previous", SecretStr(listed) if listed else None)


def test_the_setting_lists_the_previous_keys() -> None:
    assert Settings(secret_key_previous=None).previous_secrets == ()
    rotated = Settings(secret_key_previous=" older , oldest,")
    assert rotated.previous_secrets == (b"older", b"oldest")


async def test_sessions_signed_with_a_previous_key_stay_signed_in(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_keys(monkeypatch, OLD)
    before = world.member.headers  # the cookie as the old key signed it
    assert (await client.get("/api/v1/me", headers=before)).status_code == 200

    use_keys(monkeypatch, NEW)  # rotated without naming the old key: everyone signed out
    assert (await client.get("/api/v1/me", headers=before)).status_code == 401

    use_keys(monkeypatch, NEW, b"another-key", OLD)
    assert (await client.get("/api/v1/me", headers=before)).status_code == 200
    # What is signed now is signed with the new key alone.
    assert world.member.cookie != before["Cookie"].split("=", 1)[1]
    assert crypto.sign("value", "session") == crypto.signed("value", "session").split(".")[1]
    use_keys(monkeypatch, NEW)
    assert (await client.get("/api/v1/me", headers=world.member.headers)).status_code == 200


def test_values_encrypted_with_a_previous_key_are_read_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_keys(monkeypatch, OLD)
    token = crypto.encrypt("oauth-refresh-token", "cloud")
    sealed = crypto.seal(b"a stored answer", "idempotency")
    link = crypto.signed_claims({"k": "ws/1/object"}, "storage-get", LATER)

    use_keys(monkeypatch, NEW)
    assert crypto.decrypt(token, "cloud") is None
    assert crypto.unseal(sealed, "idempotency") is None
    assert crypto.unsign_claims(link, "storage-get") is None

    use_keys(monkeypatch, NEW, OLD)
    assert crypto.decrypt(token, "cloud") == "oauth-refresh-token"
    assert crypto.unseal(sealed, "idempotency") == b"a stored answer"
    assert crypto.unsign_claims(link, "storage-get") == {"k": "ws/1/object", "x": 4102444800}
    assert crypto.decrypt(token, "another-purpose") is None  # keys stay per purpose
    # New values use the new key: readable without the previous one.
    fresh = crypto.encrypt("new-token", "cloud")
    use_keys(monkeypatch, NEW)
    assert crypto.decrypt(fresh, "cloud") == "new-token"
