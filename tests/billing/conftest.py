"""Billing tests: events signed here the way the processor signs them."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest

from plumbline.billing.signature import local_secret, sign
from plumbline.config import settings
from plumbline.kit.ids import new_id

WEBHOOK = "/api/payments/webhook"


@pytest.fixture
def billing_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "billing", "local")


def event(
    kind: str, obj: dict[str, Any], *, event_id: str | None = None, created: int | None = None
) -> bytes:
    return orjson.dumps(
        {
            "id": event_id or f"evt_{new_id()}",
            "object": "event",
            "type": kind,
            "created": created if created is not None else int(time.time()),
            "data": {"object": obj},
        }
    )


def signed(payload: bytes, *, secret: str | None = None, at: int | None = None) -> dict[str, str]:
    stamp = at if at is not None else int(time.time())
    return {
        "Stripe-Signature": sign(payload, secret or local_secret(), stamp),
        "Content-Type": "application/json",
    }
