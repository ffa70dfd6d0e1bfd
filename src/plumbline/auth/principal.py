"""The caller as the routes see it: a ``Principal`` (user, API key or public token)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from plumbline.models import ApiKey, AuthSession, User


@dataclass(frozen=True)
class TokenGrant:
    """What a public token opens (``auth.public_token``): its purpose, workspace, project and
    the row it names, with the rows its lookup loaded for the route."""

    purpose: str
    token_hash: str
    workspace_id: str
    project_id: str | None
    subject_id: str
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    used_at: datetime | None = None  # single-use tokens (e-mail invites)
    rows: tuple[Any, ...] = ()


@dataclass
class Principal:
    """The authenticated caller: a signed-in user, a project API key or a public token."""

    user: User | None = None
    session: AuthSession | None = None
    api_key: ApiKey | None = None
    token: TokenGrant | None = None

    @property
    def user_id(self) -> str | None:
        return self.user.id if self.user else None

    @property
    def key_id(self) -> str | None:
        return self.api_key.id if self.api_key else None

    @property
    def identity(self) -> str:
        """The caller whatever credential it sends this time: the user (any of their sessions),
        the API key, or the public link (its token's hash). Idempotency keys belong to it."""
        if self.api_key is not None:
            return f"key:{self.api_key.id}"
        if self.user is not None:
            return f"user:{self.user.id}"
        return f"link:{self.require_token().token_hash}"

    def require_token(self) -> TokenGrant:
        if self.token is None:
            raise RuntimeError("this route declared a public-token principal")
        return self.token

    def require_user(self) -> User:
        if self.user is None:
            raise RuntimeError("this route declared a session principal")
        return self.user
