"""Tokens, hashes and signatures."""

import base64
import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from plumbline.config import settings

_hasher = PasswordHasher()
# Verified against when the e-mail is unknown, so both answers take similar time.
_DUMMY_HASH = _hasher.hash("not-a-real-password-Aa1!")


def random_token(nbytes: int = 32) -> str:
    return secrets.token_urlsafe(nbytes)


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def sign(value: str, purpose: str = "") -> str:
    mac = hmac.new(settings.secret, f"{purpose}:{value}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def signed(value: str, purpose: str = "") -> str:
    return f"{value}.{sign(value, purpose)}"


def unsign(signed_value: str, purpose: str = "") -> str | None:
    value, _, signature = signed_value.rpartition(".")
    # Bytes: compare_digest refuses non-ASCII str, and a forged token may carry any characters.
    if not value or not hmac.compare_digest(signature.encode(), sign(value, purpose).encode()):
        return None
    return value


def constant_time_equals(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
