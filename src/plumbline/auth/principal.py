from __future__ import annotations

from dataclasses import dataclass

from plumbline.models import ApiKey, AuthSession, User


@dataclass
class Principal:
    """The authenticated caller: a signed-in user or a project API key."""

    user: User | None = None
    session: AuthSession | None = None
    api_key: ApiKey | None = None

    @property
    def user_id(self) -> str | None:
        return self.user.id if self.user else None

    @property
    def key_id(self) -> str | None:
        return self.api_key.id if self.api_key else None

    def require_user(self) -> User:
        if self.user is None:
            raise RuntimeError("this route declared a session principal")
        return self.user
