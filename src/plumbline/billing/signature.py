"""The processor's webhook signature, verified by the Stripe SDK itself.

``Stripe-Signature: t=<unix time>,v1=<HMAC-SHA256 hex of "<t>.<payload>">``, checked by
``stripe.Webhook.construct_event``.
"""

from __future__ import annotations

import hashlib
import hmac

from plumbline.config import settings

TOLERANCE_SECONDS = 300
HEADER = "Stripe-Signature"


def local_secret() -> str:
    """The local processor's webhook secret, derived from ``PLUMBLINE_SECRET_KEY`` so there is
    nothing more to configure (and it changes with the key)."""
    mac = hmac.new(settings.secret, b"plumbline:billing:local-webhook", hashlib.sha256)
    return f"whsec_local_{mac.hexdigest()}"


def webhook_secret() -> str | None:
    if settings.billing == "local":
        return local_secret()
    configured = settings.stripe_webhook_secret
    return configured.get_secret_value() if configured is not None else None


def sign(payload: bytes, secret: str, timestamp: int) -> str:
    """A signature header as the processor sends it (the local processor signs its events)."""
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"
