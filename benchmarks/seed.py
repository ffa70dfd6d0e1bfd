"""Seeds benchmark data through the ORM models; prints the ids and credentials as JSON.

Run with the benchmark database in PLUMBLINE_DATABASE_URL: ``python -m benchmarks.seed projects 100``.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

import orjson

from plumbline.db import database
from plumbline.kit import clock, crypto
from plumbline.models import AuthSession, Membership, Project, User, Workspace


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


if __name__ == "__main__":
    kind, count = sys.argv[1], int(sys.argv[2])
    seeded = asyncio.run({"projects": seed_projects}[kind](count))
    sys.stdout.write(orjson.dumps(seeded).decode())
