from datetime import timedelta

from sqlalchemy import func, select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import AuditLog, Invite, Membership, Project, Workspace
from plumbline.workspace.service import purge_deleted_workspaces
from tests.factories import make_world
from tests.member.helpers import workspace_row, ws_url


async def _count(model, workspace_id: str) -> int:  # type: ignore[no-untyped-def]
    async with database.sessionmaker() as db:
        query = select(func.count()).select_from(model).where(model.workspace_id == workspace_id)
        return int((await db.execute(query)).scalar_one())


async def test_purge_removes_workspaces_deleted_more_than_30_days_ago(client):
    old, recent, live = await make_world(), await make_world(), await make_world()
    real_now = clock.now()
    for world, days_ago in ((old, 31), (recent, 29)):
        invite = await client.post(
            ws_url(world.workspace.id, "/invites"),
            json={"role": "MEMBER"},
            headers=world.admin.headers,
        )
        assert invite.status_code == 200
        clock.set_now(real_now - timedelta(days=days_ago))
        deleted = await client.delete(ws_url(world.workspace.id), headers=world.owner.headers)
        assert deleted.status_code == 200
        clock.set_now(None)

    seen: list[list[str]] = []

    async def before_purge(db, ids):  # type: ignore[no-untyped-def]
        seen.append(ids)
        # rows still exist while the hook runs (the files module removes objects here)
        assert await db.get(Workspace, old.workspace.id) is not None

    async with database.sessionmaker() as db:
        purged = await purge_deleted_workspaces(db, timedelta(days=30), before_purge=before_purge)
        await db.commit()
    assert old.workspace.id in purged
    assert recent.workspace.id not in purged and live.workspace.id not in purged
    assert seen == [purged]

    assert await workspace_row(old.workspace.id) is None
    for model in (Membership, Project, Invite, AuditLog):
        assert await _count(model, old.workspace.id) == 0, model
    # the one still inside its restore window and the live one keep everything
    assert (await workspace_row(recent.workspace.id)).deleted_at is not None
    for world in (recent, live):
        assert await _count(Membership, world.workspace.id) == 4
        assert await _count(Project, world.workspace.id) == 1

    async with database.sessionmaker() as db:
        assert await purge_deleted_workspaces(db) == []
