"""Signing secrets and signatures as the Standard Webhooks specification says, with the
``standardwebhooks`` package: ``whsec_`` + base64 of 32 random bytes, kept encrypted."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime, timedelta

from standardwebhooks.webhooks import Webhook as Signer

from plumbline.kit import crypto
from plumbline.models import Webhook

PREFIX = "whsec_"
PURPOSE = "webhook-secret"
# How long a rotated-out secret still signs (a second signature beside the new one's), so that
# receivers can switch secrets without refusing a delivery (docs/decisions.md).
ROTATION_OVERLAP = timedelta(hours=24)


class Unreadable(Exception):
    """A secret sealed under another secret key: rotating the webhook's secret mends it."""


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def seal(secret: str) -> str:
    return crypto.encrypt(secret, PURPOSE)


def rotate(webhook: Webhook, now: datetime) -> str:
    """A new secret for ``webhook``; the current one goes on signing for ``ROTATION_OVERLAP``.
    Answers the new secret (shown once)."""
    secret = new_secret()
    webhook.previous_secret = webhook.secret
    webhook.previous_secret_expires_at = now + ROTATION_OVERLAP
    webhook.secret = seal(secret)
    return secret


def signing_secrets(
    secret: str, previous: str | None, previous_expires_at: datetime | None, now: datetime
) -> list[str]:
    """The secrets that sign now: the current one, and the previous one until it expires."""
    sealed = [secret]
    if previous is not None and previous_expires_at is not None and previous_expires_at > now:
        sealed.append(previous)
    opened = [crypto.decrypt(value, PURPOSE) for value in sealed]
    if opened[0] is None:
        raise Unreadable("The signing secret cannot be read (was PLUMBLINE_SECRET_KEY changed?)")
    return [value for value in opened if value is not None]


def headers(message_id: str, body: str, keys: list[str], now: datetime) -> dict[str, str]:
    """The ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` headers: one ``v1``
    signature per secret, separated by spaces."""
    signatures = " ".join(Signer(key).sign(message_id, now, body) for key in keys)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signatures,
        "content-type": "application/json",
        "user-agent": "Plumbline-Webhooks/1.0",
    }
