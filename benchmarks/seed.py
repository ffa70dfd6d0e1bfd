"""Seeds benchmark data through the ORM models; prints the ids and credentials as JSON.

Run with the benchmark database in PLUMBLINE_DATABASE_URL: ``python -m benchmarks.seed projects 100``
or ``python -m benchmarks.seed issues 1000``.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from decimal import Decimal

import orjson
from sqlalchemy import insert, select, update

from plumbline.audit.service import audit
from plumbline.db import database, prepare_commit
from plumbline.kit import clock, crypto
from plumbline.kit.ids import new_id
from plumbline.models import (
    ApiKey,
    AuthSession,
    InspectionRun,
    InspectionTemplate,
    Issue,
    Membership,
    Project,
    ProjectCounter,
    Proposal,
    User,
    Workspace,
)


async def seed_projects(count: int) -> dict[str, str]:
    """One verified user signed in, a workspace they own, ``count`` projects in it."""
    async with database.sessionmaker() as db:
        now = clock.now()
        user = User(
            name="Bench",
            email="bench@example.com",
            email_verified=True,
            created_at=now,
            updated_at=now,
        )
        db.add(user)
        await db.flush()
        token = crypto.random_token()
        db.add(
            AuthSession(
                user_id=user.id,
                token_hash=crypto.sha256_hex(token),
                expires_at=now + timedelta(days=30),
                created_at=now,
                updated_at=now,
            )
        )
        workspace = Workspace(name="Bench Co", slug="bench", created_at=now, updated_at=now)
        db.add(workspace)
        await db.flush()
        db.add(
            Membership(
                workspace_id=workspace.id, user_id=user.id, role="SUPER_ADMIN", joined_at=now
            )
        )
        for i in range(count):
            db.add(
                Project(
                    workspace_id=workspace.id,
                    name=f"Project {i:04d}",
                    location=f"{i} Main Street",
                    stage="Execution",
                    created_at=now,
                    updated_at=now,
                )
            )
        await db.commit()
    await database.dispose()
    return {
        "cookie": crypto.signed(token, "session"),
        "workspaceId": workspace.id,
        "userId": user.id,
    }


async def seed_issues(count: int, *, dispose: bool = True) -> dict[str, str]:
    """One project, an API key of it with the issue scopes, ``count`` varied issues."""
    now = clock.now()
    raw = f"psk_{crypto.random_token(30)}"
    async with database.sessionmaker() as db:
        user = User(
            name="Bench",
            email="bench@example.com",
            email_verified=True,
            created_at=now,
            updated_at=now,
        )
        db.add(user)
        workspace = Workspace(name="Bench Co", slug="bench", created_at=now, updated_at=now)
        db.add(workspace)
        await db.flush()
        db.add(Membership(workspace_id=workspace.id, user_id=user.id, role="ADMIN", joined_at=now))
        project = Project(workspace_id=workspace.id, name="Tower", created_at=now, updated_at=now)
        db.add(project)
        await db.flush()
        db.add(
            ApiKey(
                project_id=project.id,
                workspace_id=workspace.id,
                name="bench",
                prefix=raw[:12],
                key_hash=crypto.sha256_hex(raw),
                scopes=["issues:read", "issues:write"],
                created_at=now,
            )
        )
        kinds = ("CONSTRUCTION", "WORK_ORDER")
        rows = [
            {
                "id": new_id(),
                "project_id": project.id,
                "workspace_id": workspace.id,
                "number": i + 1,
                "title": f"Issue {i + 1}: sealant missing at curtain wall joint",
                "description": "Observed during the walk-through; see drawing A-201." * 2,
                "status": ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")[i % 4],
                "priority": ("LOW", "MEDIUM", "HIGH", "URGENT")[i % 4],
                "issue_kind": kinds[i % 2],
                "assignee_id": user.id if i % 3 == 0 else None,
                "due_date": (now + timedelta(days=i % 30)).date() if i % 2 else None,
                "location": f"Level {i % 12}",
                "page_number": 1 + i % 5,
                "pin": {"x": 0.25, "y": 0.75} if i % 2 else None,
                "work_order_type": "CORRECTIVE" if i % 2 else None,
                "checklist": [{"id": "c1", "label": "Photograph", "done": bool(i % 2)}],
                "created_by": user.id,
                "created_at": now,
                "updated_at": now,
                "status_changed_at": now,
                "resolved_at": now if i % 4 >= 2 else None,
                "closed_at": now if i % 4 == 3 else None,
            }
            for i in range(count)
        ]
        await db.execute(insert(Issue), rows)
        await db.execute(
            insert(ProjectCounter).values(project_id=project.id, kind="issue", value=count)
        )
        await db.commit()
    if dispose:
        await database.dispose()
    return {"key": raw, "projectId": project.id, "workspaceId": workspace.id}


async def seed_soak(count: int) -> dict[str, str]:
    """``seed_issues``, its project in operations mode, and its user signed in (a session
    cookie) as the workspace's owner: the soak's uploads, viewer, proposals and O&M."""
    seeded = await seed_issues(count, dispose=False)
    now = clock.now()
    token = crypto.random_token()
    async with database.sessionmaker() as db:
        user = (
            await db.execute(select(User).where(User.email == "bench@example.com"))
        ).scalar_one()
        membership = (
            await db.execute(select(Membership).where(Membership.user_id == user.id))
        ).scalar_one()
        membership.role = "SUPER_ADMIN"
        project = await db.get(Project, seeded["projectId"])
        assert project is not None
        project.operations_mode = True
        db.add(
            AuthSession(
                user_id=user.id,
                token_hash=crypto.sha256_hex(token),
                expires_at=now + timedelta(days=2),
                created_at=now,
                updated_at=now,
            )
        )
        await db.commit()
    await database.dispose()
    return seeded | {"cookie": crypto.signed(token, "session"), "userId": user.id}


async def seed_webhooks(count: int) -> dict[str, dict[str, str]]:
    """Two projects of one workspace, each with a key for issues and webhooks (``count`` is
    unused): the webhook benchmark gives one of them a webhook."""
    now = clock.now()
    seeded: dict[str, dict[str, str]] = {}
    async with database.sessionmaker() as db:
        workspace = Workspace(name="Hooks Co", slug="hooks", created_at=now, updated_at=now)
        db.add(workspace)
        await db.flush()
        for name in ("plain", "hooked"):
            project = Project(workspace_id=workspace.id, name=name, created_at=now, updated_at=now)
            db.add(project)
            await db.flush()
            raw = f"psk_{crypto.random_token(30)}"
            db.add(
                ApiKey(
                    project_id=project.id,
                    workspace_id=workspace.id,
                    name="bench",
                    prefix=raw[:12],
                    key_hash=crypto.sha256_hex(raw),
                    scopes=["issues:read", "issues:write", "webhooks:write"],
                    created_at=now,
                )
            )
            seeded[name] = {"key": raw, "projectId": project.id}
        await db.commit()
    await database.dispose()
    return seeded


async def seed_changes(count: int) -> dict[str, str]:
    """``seed_issues``, then one ``issue.updated`` event per issue written by the event log's
    own writer (data read back as the API reads it), and a key that reads the change feed."""
    seeded = await seed_issues(count)
    raw = f"psk_{crypto.random_token(30)}"
    project_id, workspace_id = seeded["projectId"], seeded["workspaceId"]
    async with database.sessionmaker() as db:
        ids = (await db.execute(select(Issue.id).where(Issue.project_id == project_id))).scalars()
        for issue_id in ids:
            audit.entry(
                db,
                action="issue.updated",
                entity_type="issue",
                entity_id=issue_id,
                actor="system",
                workspace_id=workspace_id,
                project_id=project_id,
            )
        await prepare_commit(db)
        db.add(
            ApiKey(
                project_id=project_id,
                workspace_id=workspace_id,
                name="bench changes",
                prefix=raw[:12],
                key_hash=crypto.sha256_hex(raw),
                scopes=["project:read", "issues:read"],
                created_at=clock.now(),
            )
        )
        await db.commit()
    await database.dispose()
    return {**seeded, "key": raw}


async def seed_lists(count: int) -> dict[str, str]:
    """``seed_issues``, then ``count`` proposals and ``count`` inspection runs in the same
    project (in operations mode), each with the fields its list answers filled as a real one
    has them (items, amounts, results), and a key reading the three lists."""
    seeded = await seed_issues(count)
    raw = f"psk_{crypto.random_token(30)}"
    project_id, workspace_id = seeded["projectId"], seeded["workspaceId"]
    now = clock.now()
    item = {
        "id": "i1",
        "name": "Curtain wall sealant",
        "description": "Per linear metre",
        "quantity": "12.50",
        "unit": "m",
        "rate": "18.40",
        "lineTotal": "230.00",
        "materialId": None,
    }
    checks = [
        {"id": f"c{n}", "label": f"Check {n}", "type": "PASS_FAIL", "required": True}
        for n in range(1, 4)
    ]
    results = [
        {"itemId": "c1", "outcome": "PASS", "value": None, "note": None, "photoUploadId": None}
    ]
    statuses = ("DRAFT", "SENT", "VIEWED", "ACCEPTED", "DECLINED", "CHANGES_REQUESTED")
    async with database.sessionmaker() as db:
        await db.execute(
            update(Project)
            .where(Project.id == project_id)
            .values(operations_mode=True, modules={"om": True})
        )
        template = InspectionTemplate(
            project_id=project_id,
            workspace_id=workspace_id,
            name="Monthly fire doors",
            frequency="MONTHLY",
            anchor_day=1,
            next_due_at=now,
            items=checks,
            created_at=now,
            updated_at=now,
        )
        db.add(template)
        await db.flush()
        proposals = [
            {
                "id": new_id(),
                "project_id": project_id,
                "workspace_id": workspace_id,
                "reference": f"PROP-2026-{i + 1:03}",
                "title": f"Proposal {i + 1}: facade repairs",
                "status": statuses[i % len(statuses)],
                "client_name": "Dana Client",
                "client_email": "dana@client.example",
                "client_company": "Client Co",
                "valid_until": now + timedelta(days=30 - i % 60),
                "currency": "USD",
                "cover_letter": "Dear {{client_name}}, please find our offer.",
                "items": [item, {**item, "id": "i2"}],
                "subtotal": Decimal("460.00"),
                "work_price_percent": Decimal("10.0000"),
                "work_amount": Decimal("46.00"),
                "tax_percent": Decimal("8.2500"),
                "tax_amount": Decimal("41.75"),
                "discount": Decimal("0.00"),
                "total": Decimal("547.75"),
                "sent_at": now if i % 6 else None,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(count)
        ]
        await db.execute(insert(Proposal), proposals)
        runs = [
            {
                "id": new_id(),
                "project_id": project_id,
                "workspace_id": workspace_id,
                "template_id": template.id,
                "template_name": template.name,
                "status": "COMPLETED" if i % 2 else "DRAFT",
                "items": checks,
                "results": results,
                "signed_by": "Sam Inspector" if i % 2 else None,
                "completed_at": now if i % 2 else None,
                "failed_count": 0,
                "follow_ups": [],
                "created_at": now,
                "updated_at": now,
            }
            for i in range(count)
        ]
        await db.execute(insert(InspectionRun), runs)
        db.add(
            ApiKey(
                project_id=project_id,
                workspace_id=workspace_id,
                name="bench lists",
                prefix=raw[:12],
                key_hash=crypto.sha256_hex(raw),
                scopes=["issues:read", "proposals:read", "om:read"],
                created_at=now,
            )
        )
        await db.commit()
    await database.dispose()
    return {**seeded, "key": raw}


SEEDS = {
    "lists": seed_lists,
    "projects": seed_projects,
    "issues": seed_issues,
    "changes": seed_changes,
    "webhooks": seed_webhooks,
    "soak": seed_soak,
}

if __name__ == "__main__":
    kind, count = sys.argv[1], int(sys.argv[2])
    seeded = asyncio.run(SEEDS[kind](count))
    sys.stdout.write(orjson.dumps(seeded).decode())
