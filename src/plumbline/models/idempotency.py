"""The ``idempotency_keys`` table: the first answer to each caller's ``Idempotency-Key``."""

from datetime import datetime

from sqlalchemy import LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, JSONType


class IdempotencyKey(Base):
    """A caller's key and the answer it got, written in the transaction of the request that
    answered (so it exists exactly when that request's writes do), replayed until
    ``expires_at`` (``plumbline.idempotency``)."""

    __tablename__ = "idempotency_keys"

    # The caller (``auth.principal.Principal.identity``, "cron" or "ip:<address>") and the key
    caller: Mapped[str] = mapped_column(String(80), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    # SHA-256 of the method, path, query and body the key was first sent with
    fingerprint: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int]
    headers: Mapped[list[list[str]]] = mapped_column(JSONType)
    # The answer's body, encrypted (it may hold a secret shown once, such as a new API key)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
