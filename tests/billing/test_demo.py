"""`plumbline demo` with the local processor buys the demo workspace a plan."""

from __future__ import annotations

from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.demo.seed import seed
from plumbline.models import BillingEvent, Workspace


async def test_demo_subscribes_through_the_local_checkout(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(settings, "billing", "local")
    demo = await seed()
    async with database.sessionmaker() as db:
        workspace = await db.get(Workspace, demo.workspace_id)
        assert workspace is not None
        assert (workspace.plan, workspace.subscription_status) == ("enterprise", "active")
        kinds = (
            await db.scalars(
                select(BillingEvent.type).where(BillingEvent.workspace_id == demo.workspace_id)
            )
        ).all()
    assert kinds == ["checkout.session.completed"]
