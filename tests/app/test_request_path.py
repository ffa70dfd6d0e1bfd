"""The shared request path: read-only routes (no transaction on PostgreSQL) and the credential
writes they still make, and one statement for the credential and the access check."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import httpx
import pytest
from fastapi import Depends, FastAPI
from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import DB, database
from plumbline.errors import Conflict, install_error_handlers
from plumbline.kit import clock, crypto
from plumbline.models import ApiKey, AuthSession
from plumbline.routing import make_router, transactional
from tests.factories import (
    QueryCounter,
    World,
    add_member,
    create_api_key,
    create_project,
    create_user,
    create_workspace,
    key_headers,
)


def issues_url(project_id: str) -> str:
    return f"/api/v1/projects/{project_id}/issues"


def projects_url(workspace_id: str) -> str:
    return f"/api/v1/workspaces/{workspace_id}/projects"


async def _key(key_id: str) -> ApiKey:
    async with database.sessionmaker() as db:
        return (await db.execute(select(ApiKey).where(ApiKey.id == key_id))).scalar_one()


async def _session_of(token: str) -> AuthSession:
    async with database.sessionmaker() as db:
        query = select(AuthSession).where(AuthSession.token_hash == crypto.sha256_hex(token))
        return (await db.execute(query)).scalar_one()


async def _age_session(token: str, days: int) -> None:
    """Makes the session look last refreshed ``days`` ago (and expiring in a day)."""
    now = clock.now()
    async with database.sessionmaker() as db:
        await db.execute(
            update(AuthSession)
            .where(AuthSession.token_hash == crypto.sha256_hex(token))
            .values(updated_at=now - timedelta(days=days), expires_at=now + timedelta(days=1))
        )
        await db.commit()


async def _two_transaction_ids(session: AsyncSession) -> tuple[int, int]:
    async with session as db:
        first = (await db.execute(text("SELECT txid_current()"))).scalar_one()
        second = (await db.execute(text("SELECT txid_current()"))).scalar_one()
        await db.rollback()
    return int(first), int(second)


async def test_read_only_sessions_run_each_statement_on_its_own_on_postgresql() -> None:
    async with await database.read_session() as db:
        assert db.sync_session.autoflush is False
    if database.engine.dialect.name == "postgresql":
        first, second = await _two_transaction_ids(await database.read_session())
        assert first != second
        first, second = await _two_transaction_ids(database.sessionmaker())
        assert first == second


async def test_read_only_list_records_the_key_use(client: httpx.AsyncClient, world: World) -> None:
    raw, key = await create_api_key(world.project, ["issues:read"])
    response = await client.get(issues_url(world.project.id), headers=key_headers(raw))
    assert response.status_code == 200
    used = (await _key(key.id)).last_used_at
    assert used is not None
    clock.set_now(clock.now() + timedelta(minutes=5))
    response = await client.get(issues_url(world.project.id), headers=key_headers(raw))
    assert response.status_code == 200
    assert (await _key(key.id)).last_used_at == clock.now()


async def test_refused_read_only_request_writes_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    raw, key = await create_api_key(world.project, ["issues:read"])
    response = await client.get(
        issues_url(world.project.id), params={"status": "NOPE"}, headers=key_headers(raw)
    )
    assert response.status_code == 400
    assert (await _key(key.id)).last_used_at is None


CanReadProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope="project:read"))
]


def _app_failing_after_a_read() -> FastAPI:
    """A read-only route that reads, then refuses: the credential touch must not survive."""
    router = make_router()

    @router.get("/projects/{projectId}/refuse-after-reading")
    async def refuse(ctx: CanReadProject, db: DB) -> None:
        await db.execute(text("SELECT 1"))
        raise Conflict("Refused after reading")

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    return app


async def test_read_only_request_refused_after_a_read_writes_nothing(world: World) -> None:
    raw, key = await create_api_key(world.project, ["project:read"])
    transport = httpx.ASGITransport(app=_app_failing_after_a_read())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get(
            f"/projects/{world.project.id}/refuse-after-reading", headers=key_headers(raw)
        )
    assert response.status_code == 409
    assert (await _key(key.id)).last_used_at is None


async def test_read_only_list_slides_a_stale_session(client: httpx.AsyncClient) -> None:
    owner = await create_user()
    workspace = await create_workspace(owner)
    await _age_session(owner.token, days=2)
    response = await client.get(projects_url(workspace.id), headers=owner.headers)
    assert response.status_code == 200
    assert "auth.session_token=" in response.headers["set-cookie"]
    session = await _session_of(owner.token)
    assert session.expires_at > clock.now() + timedelta(days=29)


async def test_refused_read_only_request_keeps_the_session_as_it_was(
    client: httpx.AsyncClient, world: World
) -> None:
    outsider = await create_user()
    await _age_session(outsider.token, days=2)
    before = await _session_of(outsider.token)
    response = await client.get(projects_url(world.workspace.id), headers=outsider.headers)
    assert response.status_code == 404
    after = await _session_of(outsider.token)
    assert (after.expires_at, after.updated_at) == (before.expires_at, before.updated_at)


async def test_project_access_takes_one_statement(client: httpx.AsyncClient, world: World) -> None:
    raw, _ = await create_api_key(world.project, ["project:read"])
    url = f"/api/v1/projects/{world.project.id}"
    assert (await client.get(url, headers=key_headers(raw))).status_code == 200  # key now used
    for headers in (key_headers(raw), world.member.headers):
        with QueryCounter() as counter:
            response = await client.get(url, headers=headers)
        assert response.status_code == 200
        assert counter.count == 1, counter.statements


async def test_workspace_access_takes_one_statement(
    client: httpx.AsyncClient, world: World
) -> None:
    with QueryCounter() as counter:
        response = await client.get(
            f"/api/v1/workspaces/{world.workspace.id}", headers=world.member.headers
        )
    assert response.status_code == 200
    # the access in one statement; then the read counts the workspace's seats
    assert counter.count == 2, counter.statements
    assert "FROM sessions" in counter.statements[0] and "memberships" in counter.statements[0]
    assert counter.statements[1].lstrip().startswith("SELECT count(*)")


async def test_one_statement_access_keeps_the_answers(
    client: httpx.AsyncClient, world: World
) -> None:
    url = f"/api/v1/projects/{world.project.id}"
    other = await create_project(await create_workspace(await create_user()))
    raw, _ = await create_api_key(world.project, ["project:read"])
    revoked, _ = await create_api_key(world.project, ["project:read"], revoked=True)
    answers = [
        (await client.get(url, headers=key_headers(revoked))).status_code,
        (await client.get(url, headers=key_headers("psk_unknown"))).status_code,
        (await client.get(f"/api/v1/projects/{other.id}", headers=key_headers(raw))).status_code,
        (await client.get("/api/v1/projects/missing", headers=world.member.headers)).status_code,
        (
            await client.get(f"/api/v1/projects/{other.id}", headers=world.member.headers)
        ).status_code,
        (await client.get(url, headers={"Cookie": "auth.session_token=forged.sig"})).status_code,
    ]
    assert answers == [401, 401, 403, 404, 404, 401]


async def test_routers_route_and_refuse_methods(client: httpx.AsyncClient, world: World) -> None:
    headers = world.member.headers
    assert (await client.get(projects_url(world.workspace.id), headers=headers)).status_code == 200
    assert (await client.put(projects_url(world.workspace.id), headers=headers)).status_code == 405
    assert (await client.get("/api/v1/no-such-thing", headers=headers)).status_code == 404


def test_transactional_is_for_get_routes() -> None:
    router = make_router()

    async def create_thing() -> None: ...

    with pytest.raises(ValueError, match="only GET routes"):
        router.post("/things")(transactional(create_thing))


@pytest.mark.parametrize("restricted", [False, True])
async def test_projects_list_pages_through_its_prebuilt_statements(
    client: httpx.AsyncClient, restricted: bool
) -> None:
    owner = await create_user()
    workspace = await create_workspace(owner)
    projects = [await create_project(workspace, name=f"P{n}") for n in range(3)]
    await create_project(workspace, name="Not named")
    caller = await create_user()
    await add_member(
        workspace, caller, "MEMBER", project_ids=[p.id for p in projects] if restricted else None
    )
    first = await client.get(
        projects_url(workspace.id), params={"limit": 2}, headers=caller.headers
    )
    assert first.status_code == 200
    next_url = first.headers["link"].split(";")[0].strip("<>")
    rest = await client.get(next_url, headers=caller.headers)
    assert rest.status_code == 200
    names = [p["name"] for p in first.json() + rest.json()]
    expected = ["P2", "P1", "P0"] if restricted else ["Not named", "P2", "P1", "P0"]
    assert names == expected
    assert len(first.json()) == 2
