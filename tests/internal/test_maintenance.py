from datetime import timedelta

from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.mail import Mail
from plumbline.models import Job, Workspace
from tests.factories import create_user, create_workspace, read_mails

CRON = {"x-service-cron-secret": "test-cron-secret"}


async def _workspace(workspace_id: str) -> Workspace | None:
    async with database.sessionmaker() as db:
        return await db.get(Workspace, workspace_id)


async def test_maintenance_purges_workspaces_past_the_restore_window(client) -> None:  # type: ignore[no-untyped-def]
    owner = await create_user()
    old, recent = await create_workspace(owner), await create_workspace(owner)
    async with database.sessionmaker() as db:
        for workspace, age in ((old, 31), (recent, 29)):
            row = (
                await db.execute(select(Workspace).where(Workspace.id == workspace.id))
            ).scalar_one()
            row.deleted_at = clock.now() - timedelta(days=age)
        await db.commit()
    response = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert "workspaces.purge_deleted" in response.json()["queued"]
    assert await _workspace(old.id) is None
    assert await _workspace(recent.id) is not None


async def test_maintenance_needs_the_cron_secret(client) -> None:  # type: ignore[no-untyped-def]
    assert (await client.post("/api/v1/internal/maintenance")).status_code == 401
    wrong = await client.post(
        "/api/v1/internal/maintenance", headers={"x-service-cron-secret": "x"}
    )
    assert wrong.status_code == 401


async def test_maintenance_retries_undelivered_mail(client, outbox) -> None:  # type: ignore[no-untyped-def]
    """A delivery that failed waits for its retry time; the maintenance run after that time
    sends it, and leaves alone the one whose retry time has not come."""
    due, later = f"{new_id()}@example.com", f"{new_id()}@example.com"
    async with database.sessionmaker() as db:
        for to, wait in ((due, timedelta(minutes=-1)), (later, timedelta(minutes=5))):
            db.add(
                Job(
                    name="mail.send",
                    payload=Mail(to=[to], subject="Retry me", text="Body").to_payload(),
                    status="queued",
                    attempts=1,
                    last_error="SMTP server unreachable",
                    run_at=clock.now() + wait,
                    created_at=clock.now() - timedelta(hours=1),
                    errors=[],
                )
            )
        await db.commit()
    response = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert response.status_code == 200
    assert response.json()["dueJobs"] >= 1
    [message] = read_mails(outbox, due)
    assert message["Subject"] == "Retry me"
    assert read_mails(outbox, later) == []
    again = await client.post("/api/v1/internal/maintenance", headers=CRON)
    assert len(read_mails(outbox, due)) == 1, again.json()
