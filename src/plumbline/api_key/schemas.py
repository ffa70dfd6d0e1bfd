"""API key requests and responses."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import StringConstraints, field_validator

from plumbline.authz.permissions import SCOPES
from plumbline.kit.schema import Instant, Schema


class ApiKeyCreate(Schema):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    scopes: list[str]
    expires_at: Instant | None = None  # without an offset: UTC

    @field_validator("scopes")
    @classmethod
    def _known_scopes(cls, value: list[str]) -> list[str]:
        unknown = [scope for scope in value if scope not in SCOPES]
        if unknown:
            raise ValueError(f"unknown scope {', '.join(unknown)}; known: {', '.join(SCOPES)}")
        return list(dict.fromkeys(value))


class ApiKeyRead(Schema):
    id: str
    project_id: str
    name: str
    prefix: str
    scopes: list[str]
    created_at: datetime
    created_by: str | None
    expires_at: datetime | None
    last_used_at: datetime | None
    revoked_at: datetime | None


class ApiKeyCreated(ApiKeyRead):
    api_key: str
