"""Tokens, hashes and signatures."""

import base64
import binascii
import hashlib
import hmac
import secrets
from datetime import datetime
from functools import cache
from typing import Any

import orjson
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from plumbline.config import settings

_hasher = PasswordHasher()


# Verified against when the e-mail is unknown, so both answers take similar time.
@cache
def _dummy_hash() -> str:
    """A hash to verify against when there is none (the same time either way); made when first
    needed, not at import (Argon2 takes tens of milliseconds)."""
    return _hasher.hash("not-a-real-password-Aa1!")


def random_token(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return (
            _hasher.verify(password_hash or _dummy_hash(), password) and password_hash is not None
        )
    except (VerificationError, InvalidHashError):
        return False


def _keys() -> tuple[bytes, ...]:
    """The secret key, then the previous ones still accepted (``PLUMBLINE_SECRET_KEY_PREVIOUS``):
    everything is signed and encrypted with the first; verified and decrypted with any."""
    return (settings.secret, *settings.previous_secrets)


def _mac(key: bytes, value: str, purpose: str) -> str:
    mac = hmac.new(key, f"{purpose}:{value}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def sign(value: str, purpose: str = "") -> str:
    return _mac(settings.secret, value, purpose)


def signed(value: str, purpose: str = "") -> str:
    return f"{value}.{sign(value, purpose)}"


def unsign(signed_value: str, purpose: str = "") -> str | None:
    value, _, signature = signed_value.rpartition(".")
    # Bytes: compare_digest refuses non-ASCII str, and a forged token may carry any characters.
    if not value:
        return None
    for key in _keys():
        if hmac.compare_digest(signature.encode(), _mac(key, value, purpose).encode()):
            return value
    return None


def signed_claims(claims: dict[str, Any], purpose: str, expires_at: datetime) -> str:
    """``<base64url claims>.<HMAC>``: the claims and their epoch expiry ``x``, signed for
    ``purpose`` (links and states whose token is the credential)."""
    expiry = int(expires_at.timestamp())
    payload = base64.urlsafe_b64encode(orjson.dumps({**claims, "x": expiry})).decode()
    return signed(payload.rstrip("="), purpose)


def unsign_claims(token: str, purpose: str) -> dict[str, Any] | None:
    """The claims of a ``signed_claims`` token for ``purpose``, expired or not (``x`` is the
    epoch expiry); None when it was altered or is malformed."""
    payload = unsign(token, purpose)
    if payload is None:
        return None
    try:
        claims = orjson.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (binascii.Error, ValueError):
        return None
    return claims if isinstance(claims, dict) and isinstance(claims.get("x"), int) else None


def constant_time_equals(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


@cache
def _fernet(secret: bytes, purpose: str) -> Fernet:
    key = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=f"plumbline:{purpose}".encode()
    ).derive(secret)
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt(value: str, purpose: str) -> str:
    """Fernet (AES-128-CBC + HMAC-SHA256) with a key derived from the secret key by HKDF, one
    key per ``purpose``: for secrets the server must read back, such as OAuth tokens."""
    return _fernet(settings.secret, purpose).encrypt(value.encode()).decode()


def decrypt(token: str, purpose: str) -> str | None:
    """The value ``encrypt`` sealed; None when it was sealed under another key or altered."""
    data = unseal(token.encode(), purpose)
    return data.decode() if data is not None else None


def seal(data: bytes, purpose: str) -> bytes:
    """``encrypt`` for bytes (a stored response body)."""
    return _fernet(settings.secret, purpose).encrypt(data)


def unseal(token: bytes, purpose: str) -> bytes | None:
    """The bytes ``seal`` sealed (under the secret key or a previous one); None when they were
    sealed under another key or altered."""
    for key in _keys():
        try:
            return _fernet(key, purpose).decrypt(token)
        except InvalidToken:
            continue
    return None
