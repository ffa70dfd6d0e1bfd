"""Project API keys: management by admins, and authentication with them on project routes."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import ApiKey
from tests.factories import QueryCounter, create_api_key, create_project, key_headers, make_world
from tests.project.helpers import audit_entries

KEY_FIELDS = {
    "id",
    "projectId",
    "name",
    "prefix",
    "scopes",
    "createdAt",
    "createdBy",
    "expiresAt",
    "lastUsedAt",
    "revokedAt",
}


def keys_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/api-keys"


async def _create(client, world, **payload):
    body = {"name": "CI sync", "scopes": ["project:read"], **payload}
    response = await client.post(keys_url(world.project.id), json=body, headers=world.admin.headers)
    assert response.status_code == 200, response.text
    return response.json()


# --- management -----------------------------------------------------------------------------


async def test_admin_creates_a_key_shown_once(client, world):
    created = await _create(client, world, scopes=["issues:read", "audit:read", "issues:read"])
    assert set(created) == KEY_FIELDS | {"apiKey"}
    raw = created["apiKey"]
    assert raw.startswith("psk_") and len(raw) >= 44
    assert all(c.isalnum() or c in "-_" for c in raw[4:])
    assert created["prefix"] == raw[:12]
    assert created["scopes"] == ["issues:read", "audit:read"]
    assert created["createdBy"] == world.admin.id
    assert created["projectId"] == world.project.id
    assert created["lastUsedAt"] is None and created["revokedAt"] is None

    async with database.sessionmaker() as db:
        stored = (await db.execute(select(ApiKey).where(ApiKey.id == created["id"]))).scalar_one()
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in (stored.prefix, stored.key_hash, stored.name)

    listed = await client.get(keys_url(world.project.id), headers=world.owner.headers)
    assert listed.status_code == 200
    [key] = listed.json()
    assert set(key) == KEY_FIELDS
    assert raw not in listed.text
    assert key == {k: v for k, v in created.items() if k != "apiKey"}

    [entry] = await audit_entries(world.project.id, "api_key.created")
    assert entry.actor_user_id == world.admin.id and entry.entity_id == created["id"]
    assert raw not in str(entry.changes)


async def test_key_with_an_expiry(client, world):
    expires = (clock.now() + timedelta(days=30)).replace(tzinfo=None).isoformat()
    created = await _create(client, world, expiresAt=expires)
    assert created["expiresAt"].startswith(expires[:19]) and created["expiresAt"].endswith("Z")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "", "scopes": []}, "name"),
        ({"scopes": ["project:read"]}, "name"),
        ({"name": "x"}, "scopes"),
        ({"name": "x", "scopes": ["project:read", "everything"]}, "scopes"),
        ({"name": "x", "scopes": "project:read"}, "scopes"),
        ({"name": "x", "scopes": [], "expiresAt": "2020-01-01T00:00:00Z"}, "expiresAt"),
        ({"name": "x", "scopes": [], "expiresAt": "soon"}, "expiresAt"),
    ],
)
async def test_create_rejects_bad_input(client, world, payload, field):
    response = await client.post(
        keys_url(world.project.id), json=payload, headers=world.admin.headers
    )
    assert response.status_code == 400, response.text
    assert field in [d["field"] for d in response.json()["details"]]
    assert (await client.get(keys_url(world.project.id), headers=world.admin.headers)).json() == []


async def test_only_admins_with_a_session_manage_keys(client, world):
    url = keys_url(world.project.id)
    body = {"name": "x", "scopes": []}
    for actor in (world.manager, world.member):
        assert (await client.get(url, headers=actor.headers)).status_code == 403
        assert (await client.post(url, json=body, headers=actor.headers)).status_code == 403
    assert (await client.get(url)).status_code == 401
    other = await make_world()
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404
    assert (await client.post(url, json=body, headers=other.owner.headers)).status_code == 404
    # A key never manages keys, whatever its scopes.
    raw, key = await create_api_key(world.project, ["project:read", "audit:read"])
    response = await client.get(url, headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_PROJECT"
    response = await client.delete(f"{url}/{key.id}", headers=key_headers(raw))
    assert response.status_code == 403


async def test_list_is_paginated_with_fixed_queries(client, world):
    await _create(client, world)
    with QueryCounter() as small:
        response = await client.get(keys_url(world.project.id), headers=world.admin.headers)
    assert len(response.json()) == 1
    for _ in range(30):
        await create_api_key(world.project, ["issues:read"])
    with QueryCounter() as large:
        response = await client.get(keys_url(world.project.id), headers=world.admin.headers)
    assert len(response.json()) == 31
    assert large.count == small.count
    page = await client.get(
        keys_url(world.project.id), params={"limit": 5}, headers=world.admin.headers
    )
    assert len(page.json()) == 5 and 'rel="next"' in page.headers["Link"]


async def test_revoke_stops_the_key(client, world):
    created = await _create(client, world)
    headers = key_headers(created["apiKey"])
    project_url = f"/api/v1/projects/{world.project.id}"
    assert (await client.get(project_url, headers=headers)).status_code == 200

    url = f"{keys_url(world.project.id)}/{created['id']}"
    assert (await client.delete(url, headers=world.manager.headers)).status_code == 403
    response = await client.delete(url, headers=world.admin.headers)
    assert response.status_code == 200 and response.json() == {"ok": True}
    response = await client.get(project_url, headers=headers)
    assert response.status_code == 401 and response.json()["code"] == "UNAUTHORIZED"

    [key] = (await client.get(keys_url(world.project.id), headers=world.admin.headers)).json()
    revoked_at = key["revokedAt"]
    assert revoked_at is not None
    # Revoking again is harmless and keeps the first time.
    assert (await client.delete(url, headers=world.admin.headers)).status_code == 200
    [key] = (await client.get(keys_url(world.project.id), headers=world.admin.headers)).json()
    assert key["revokedAt"] == revoked_at
    assert len(await audit_entries(world.project.id, "api_key.revoked")) == 1


async def test_revoking_an_unknown_or_foreign_key_is_404(client, world):
    other_project = await create_project(world.workspace, name="Other")
    _, foreign = await create_api_key(other_project, ["project:read"])
    base = keys_url(world.project.id)
    for key_id in ("nope", foreign.id):
        response = await client.delete(f"{base}/{key_id}", headers=world.admin.headers)
        assert response.status_code == 404
    other = await make_world()
    _, theirs = await create_api_key(other.project, ["project:read"])
    response = await client.delete(
        f"{keys_url(other.project.id)}/{theirs.id}", headers=world.admin.headers
    )
    assert response.status_code == 404


# --- authenticating with a key --------------------------------------------------------------


async def test_key_reads_its_project_and_records_last_use(client, world):
    created = await _create(client, world)
    response = await client.get(
        f"/api/v1/projects/{world.project.id}", headers=key_headers(created["apiKey"])
    )
    assert response.status_code == 200
    assert response.json()["id"] == world.project.id
    assert response.headers["RateLimit-Limit"] == "600"
    assert int(response.headers["RateLimit-Remaining"]) == 599
    assert int(response.headers["RateLimit-Reset"]) >= 1
    [key] = (await client.get(keys_url(world.project.id), headers=world.admin.headers)).json()
    assert key["lastUsedAt"] is not None


async def test_no_rate_limit_headers_when_limits_are_off(client, world, monkeypatch):
    monkeypatch.setattr(settings, "rate_limits", False)
    raw, _ = await create_api_key(world.project, ["project:read"])
    for _ in range(2):
        response = await client.get(
            f"/api/v1/projects/{world.project.id}", headers=key_headers(raw)
        )
        assert response.status_code == 200
        assert not [name for name in response.headers if name.lower().startswith("ratelimit")]


async def test_key_without_the_scope_is_refused(client, world):
    raw, _ = await create_api_key(world.project, ["issues:read"])
    response = await client.get(f"/api/v1/projects/{world.project.id}", headers=key_headers(raw))
    assert response.status_code == 403
    assert response.json() == {
        "error": "API key missing scope: project:read",
        "code": "API_KEY_SCOPE",
    }


async def test_key_without_any_scope_has_no_access(client, world):
    raw, _ = await create_api_key(world.project, [])
    response = await client.get(f"/api/v1/projects/{world.project.id}", headers=key_headers(raw))
    assert response.status_code == 403 and response.json()["code"] == "API_KEY_SCOPE"


async def test_key_of_another_project_is_refused(client, world):
    other_project = await create_project(world.workspace, name="Other")
    raw, _ = await create_api_key(other_project, ["project:read"])
    response = await client.get(f"/api/v1/projects/{world.project.id}", headers=key_headers(raw))
    assert response.status_code == 403
    assert response.json()["code"] == "API_KEY_PROJECT"


async def test_revoked_expired_and_unknown_keys_are_401(client, world):
    url = f"/api/v1/projects/{world.project.id}"
    revoked, _ = await create_api_key(world.project, ["project:read"], revoked=True)
    expiring, _ = await create_api_key(
        world.project, ["project:read"], expires_in=timedelta(hours=1)
    )
    assert (await client.get(url, headers=key_headers(expiring))).status_code == 200
    clock.set_now(clock.now() + timedelta(hours=2))
    for raw in (revoked, expiring, "psk_" + "x" * 40):
        response = await client.get(url, headers=key_headers(raw))
        assert response.status_code == 401, raw
        assert response.json()["code"] == "UNAUTHORIZED"


async def test_key_on_a_workspace_route_is_refused(client, world):
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(
        f"/api/v1/workspaces/{world.workspace.id}/projects", headers=key_headers(raw)
    )
    assert response.status_code == 403
    assert response.json()["error"] == "API keys are accepted on project-scoped routes only"


async def test_key_in_the_session_cookie_is_401(client, world):
    raw, _ = await create_api_key(world.project, ["project:read"])
    response = await client.get(
        f"/api/v1/projects/{world.project.id}",
        headers={"Cookie": f"auth.session_token={raw}"},
    )
    assert response.status_code == 401
    assert response.json()["error"] == "API keys must be sent in the x-api-key header"


async def test_key_reads_the_audit_log_with_its_scope(client, world):
    url = f"/api/v1/projects/{world.project.id}/audit-logs"
    with_scope, _ = await create_api_key(world.project, ["audit:read"])
    without, _ = await create_api_key(world.project, ["project:read"])
    assert (await client.get(url, headers=key_headers(with_scope))).status_code == 200
    response = await client.get(url, headers=key_headers(without))
    assert response.status_code == 403
    assert response.json()["error"] == "API key missing scope: audit:read"
