"""The access contexts' entities are snapshots (``plumbline.snapshots``): they read as the
entities do, refuse writes, and a write goes through the entity loaded with ``tracked``."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.orm.exc import UnmappedInstanceError

from plumbline.auth.session import session_params
from plumbline.authz.repository import MEMBER_PROJECTS, SESSION_ACCESS
from plumbline.authz.workspace import SESSION_MEMBERSHIP
from plumbline.db import database
from plumbline.errors import NotFound
from plumbline.kit import clock
from plumbline.models import AuthSession, Membership, Project, User, Workspace
from plumbline.snapshots import tracked
from tests.factories import World, create_user


def _params(token: str, **more: str) -> dict[str, object]:
    return {**session_params(token, clock.now()), **more}


async def test_a_snapshot_reads_as_the_entity_and_refuses_writes(world: World) -> None:
    async with database.sessionmaker() as db:
        row = await SESSION_MEMBERSHIP.first(
            db, _params(world.member.token, workspace_id=world.workspace.id)
        )
        assert row is not None
        session, user, workspace, membership = row
        assert isinstance(session, AuthSession) and isinstance(user, User)
        assert isinstance(workspace, Workspace) and isinstance(membership, Membership)
        loaded = await db.get(Workspace, world.workspace.id)
        assert loaded is not None and loaded is not workspace
        for column in Workspace.__table__.columns:
            key = Workspace.__mapper__.get_property_by_column(column).key
            assert getattr(workspace, key) == getattr(loaded, key), key
        assert user.id == world.member.id and user.email == world.member.user.email
        assert membership.role == "MEMBER" and membership.user_id == world.member.id
        assert session.user_id == world.member.id
        with pytest.raises(AttributeError):
            workspace.name = "Renamed"
        with pytest.raises(UnmappedInstanceError):
            db.add(workspace)
        assert not db.new and not db.dirty


async def test_what_an_outer_join_did_not_find_is_none(world: World) -> None:
    stranger = await create_user(name="Stella Stranger")
    async with database.sessionmaker() as db:
        row = await SESSION_MEMBERSHIP.first(
            db, _params(stranger.token, workspace_id=world.workspace.id)
        )
        assert row is not None
        _, user, workspace, membership = row
        assert user.id == stranger.id and workspace.id == world.workspace.id
        assert membership is None
        row = await SESSION_ACCESS.first(db, _params(world.member.token, project_id="nope"))
        assert row is not None
        assert row[2:] == (None, None, None, None, None)
        assert await SESSION_ACCESS.first(db, _params("not-a-token", project_id="nope")) is None


async def test_columns_selected_alone_come_as_they_are(world: World) -> None:
    async with database.sessionmaker() as db:
        rows = await MEMBER_PROJECTS.all(db, {"user_id": world.member.id})
    assert len(rows) == 1
    project, workspace, membership, named, project_role = rows[0]
    assert isinstance(project, Project) and project.id == world.project.id
    assert workspace.id == world.workspace.id and membership.user_id == world.member.id
    assert named is None and project_role is None


async def test_tracked_loads_the_entity_to_write(world: World) -> None:
    async with database.sessionmaker() as db:
        row = await SESSION_MEMBERSHIP.first(
            db, _params(world.owner.token, workspace_id=world.workspace.id)
        )
        assert row is not None
        workspace = await tracked(db, row[2])
        workspace.name = "Renamed"
        await db.commit()
    async with database.sessionmaker() as db:
        stored = await db.get(Workspace, world.workspace.id)
        assert stored is not None and stored.name == "Renamed"
        gone = Workspace.__new__(Workspace)
        gone.__dict__["id"] = "gone"
        with pytest.raises(NotFound, match="Workspace not found"):
            await tracked(db, gone)


async def test_writes_through_the_contexts_land(client: httpx.AsyncClient, world: World) -> None:
    """A workspace, a project and a user written by the routes that change them."""
    ws = f"/api/v1/workspaces/{world.workspace.id}"
    renamed = await client.patch(ws, json={"name": "Harbour"}, headers=world.owner.headers)
    assert renamed.status_code == 200 and renamed.json()["name"] == "Harbour"
    project = f"/api/v1/projects/{world.project.id}"
    changed = await client.patch(project, json={"name": "Tower B"}, headers=world.owner.headers)
    assert changed.status_code == 200 and changed.json()["name"] == "Tower B"
    settings = await client.patch(
        f"{project}/settings", json={"operationsMode": True}, headers=world.owner.headers
    )
    assert settings.status_code == 200 and settings.json()["operationsMode"] is True
    async with database.sessionmaker() as db:
        stored_ws = await db.get(Workspace, world.workspace.id)
        stored_project = await db.get(Project, world.project.id)
    assert stored_ws is not None and stored_ws.name == "Harbour"
    assert stored_project is not None and stored_project.name == "Tower B"
    assert stored_project.operations_mode is True
    read = await client.get(project, headers=world.owner.headers)
    assert read.json()["name"] == "Tower B"
