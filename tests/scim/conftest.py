"""A workspace with a SCIM token, and requests in SCIM's media type."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
import pytest

from plumbline.db import database
from plumbline.kit import clock, crypto
from plumbline.models import AuthSession
from tests.factories import World, make_world

SCIM_JSON = "application/scim+json"


@dataclass
class ScimWorld:
    world: World
    token: str
    token_id: str

    @property
    def base(self) -> str:
        return f"/scim/v2/{self.world.workspace.id}"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Content-Type": SCIM_JSON}


async def new_token(client: httpx.AsyncClient, world: World) -> tuple[str, str]:
    answer = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/scim-tokens",
        json={"name": "Entra"},
        headers=world.admin.headers,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["token"], answer.json()["id"]


@pytest.fixture
async def scim_world(client: httpx.AsyncClient) -> ScimWorld:
    world = await make_world()
    token, token_id = await new_token(client, world)
    return ScimWorld(world, token, token_id)


def user_body(email: str, **extra: Any) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": email,
        "externalId": f"ext-{email}",
        "name": {"givenName": "Pat", "familyName": "Provisioned"},
        "emails": [{"value": email, "type": "work", "primary": True}],
        "active": True,
        **extra,
    }


async def session_for(user_id: str) -> dict[str, str]:
    """A signed-in browser of the user (as a sign-in would open it): its cookie header."""
    token = crypto.random_token()
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add(
            AuthSession(
                user_id=user_id,
                token_hash=crypto.sha256_hex(token),
                expires_at=now + timedelta(days=30),
                created_at=now,
                updated_at=now,
            )
        )
        await db.commit()
    return {"Cookie": f"auth.session_token={crypto.signed(token, 'session')}"}
