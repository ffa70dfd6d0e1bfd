"""Signed, expiring tokens naming the local processor's checkout and portal sessions.

The token is the credential, as a Stripe checkout URL is.
"""

from __future__ import annotations

import base64
import binascii
from datetime import timedelta
from typing import Any

import orjson

from plumbline.errors import Expired, NotFound, found
from plumbline.kit import clock, crypto

CHECKOUT = "billing:local-checkout"
PORTAL = "billing:local-portal"
LIFETIME = timedelta(hours=24)  # as a Stripe Checkout Session


def make(purpose: str, claims: dict[str, Any]) -> str:
    expiry = int((clock.now() + LIFETIME).timestamp())
    payload = base64.urlsafe_b64encode(orjson.dumps({**claims, "x": expiry})).decode()
    return crypto.signed(payload.rstrip("="), purpose)


def read(token: str, purpose: str) -> dict[str, Any]:
    """The claims: 404 when forged or malformed, 410 when expired."""
    payload = found(crypto.unsign(token, purpose), "Checkout session not found")
    try:
        claims = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (binascii.Error, ValueError):
        raise NotFound("Checkout session not found") from None
    if not isinstance(claims, dict) or not isinstance(claims.get("x"), int):
        raise NotFound("Checkout session not found")
    if claims["x"] < clock.now().timestamp():
        raise Expired("This session has expired; start again from the workspace")
    return claims
