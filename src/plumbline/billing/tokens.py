"""Signed, expiring tokens naming the local processor's checkout and portal sessions.

The token is the credential, as a Stripe checkout URL is.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from plumbline.errors import Expired, found
from plumbline.kit import clock, crypto

CHECKOUT = "billing:local-checkout"
PORTAL = "billing:local-portal"
LIFETIME = timedelta(hours=24)  # as a Stripe Checkout Session


def make(purpose: str, claims: dict[str, Any]) -> str:
    return crypto.signed_claims(claims, purpose, clock.now() + LIFETIME)


def read(token: str, purpose: str) -> dict[str, Any]:
    """The claims: 404 when forged or malformed, 410 when expired."""
    claims = found(crypto.unsign_claims(token, purpose), "Checkout session not found")
    if claims["x"] < clock.now().timestamp():
        raise Expired("This session has expired; start again from the workspace")
    return claims
