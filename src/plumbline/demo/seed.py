"""`plumbline demo`: a demo account and a realistic project, built through the API itself.

The account is written directly (a verified user, as `plumbline users create` does); everything
else goes through the app in-process, signed in as that user, so the demo data passes the same
rules, audit and numbering as real data.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import SCOPES
from plumbline.config import settings
from plumbline.db import database
from plumbline.demo import people, portfolio
from plumbline.demo.api import Api, back, day
from plumbline.demo.billing import subscribe
from plumbline.demo.links import keep, recall
from plumbline.demo.people import session_cookie
from plumbline.demo.records import populate
from plumbline.demo.sso import add_identity_provider
from plumbline.demo.webhooks import add_webhook
from plumbline.kit import clock, crypto
from plumbline.models import Project, User, Workspace

DEMO_EMAIL = "demo@plumbline.local"
DEMO_PASSWORD = "Plumbline-Demo-2026!"  # noqa: S105 - the printed demo login
WORKSPACE_NAME = "Demo Construction Co."
PROJECT_NAME = "Harbor View Tower"


@dataclass(frozen=True)
class DemoProject:
    workspace_id: str
    project_id: str
    api_key: str | None  # shown once, when made: None for a demo seeded before
    links: tuple[tuple[str, str], ...] = ()  # (label, URL) worth printing


@dataclass(frozen=True)
class DemoAccount:
    email: str
    password: str | None  # None once the user changed it


async def has_users() -> bool:
    async with database.sessionmaker() as db:
        return bool((await db.execute(select(func.count()).select_from(User))).scalar_one())


async def demo_account() -> DemoAccount | None:
    async with database.sessionmaker() as db:
        user = await _demo_user(db)
    if user is None:
        return None
    unchanged = user.password_hash and crypto.verify_password(user.password_hash, DEMO_PASSWORD)
    return DemoAccount(DEMO_EMAIL, DEMO_PASSWORD if unchanged else None)


async def _demo_user(db: AsyncSession) -> User | None:
    query = select(User).where(User.email == DEMO_EMAIL)
    return (await db.execute(query)).scalar_one_or_none()


async def _ensure_user() -> str:
    async with database.sessionmaker() as db:
        now = clock.now()
        user = await _demo_user(db)
        if user is None:
            user = User(
                name="Dana Reyes",
                email=DEMO_EMAIL,
                email_verified=True,
                created_at=now,
                updated_at=now,
            )
            db.add(user)
        user.password_hash = crypto.hash_password(DEMO_PASSWORD)
        await db.commit()
        return user.id


@asynccontextmanager
async def signed_in(user_id: str) -> AsyncIterator[Api]:
    """A session for the demo user (as a sign-in creates), used in-process and signed out after."""
    from plumbline.app import create_app

    cookie = await session_cookie(user_id)
    app = create_app()
    # The demo's own requests are not traffic worth logging line by line (and the server that
    # seeds it before serving logs its own traffic again after).
    access = logging.getLogger("plumbline.access")
    level = access.level
    access.setLevel(logging.WARNING)
    headers = {
        "Origin": settings.origins[0],
        "Cookie": cookie,
    }
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url=settings.public_url, headers=headers
    ) as client:
        try:
            yield Api(client, user_id)
        finally:
            await client.post("/api/auth/sign-out")
            access.setLevel(level)


async def _mint_key(api: Api, project_id: str, name: str) -> str:
    created = await api(
        "POST", f"/api/v1/projects/{project_id}/api-keys", json={"name": name, "scopes": SCOPES}
    )
    return str(created["apiKey"])


async def seed() -> DemoProject:
    """A new demo workspace and project full of records, and an API key for it."""
    user_id = await _ensure_user()
    async with signed_in(user_id) as api:
        with back(13):  # the company set up its workspace, team and projects two weeks ago
            workspace = await api("POST", "/api/v1/workspaces", json={"name": WORKSPACE_NAME})
            team = await people.add_team(api, workspace["id"])
            # The flagship last: the workspace lists its newest project first.
            others = await portfolio.create_projects(team, workspace["id"])
            project = await api(
                "POST",
                f"/api/v1/workspaces/{workspace['id']}/projects",
                json={
                    "name": PROJECT_NAME,
                    "location": "1 Harbor Way, Seattle, WA",
                    "stage": "Execution",
                    "projectNumber": "HVT-2026",
                    "startDate": day(-120),
                    "endDate": day(240),
                },
            )
            await people.add_contractor(team, workspace["id"], project["id"])
        links = await populate(team, project["id"])
        await portfolio.populate(team, others)
        await people.sign_out(team)
        await add_webhook(api, project["id"])  # after the records: nothing queued for it
        await add_identity_provider(api, workspace["id"])
        await subscribe(api, workspace["id"])
        key = await _mint_key(api, project["id"], "Demo integration")
    async with database.sessionmaker() as db:
        keep(db, workspace["id"], project["id"], links)  # for later runs to print again
        await db.commit()
    printed = tuple((link.label, link.url) for link in links)
    return DemoProject(workspace["id"], project["id"], key, printed)


async def _latest(db: AsyncSession) -> tuple[str, DemoProject] | None:
    """The demo user's id and their latest demo project, its links as seeded, no key."""
    user = await _demo_user(db)
    if user is None:
        return None
    query = (
        select(Project.id, Project.workspace_id)
        .join(Workspace, Workspace.id == Project.workspace_id)
        .where(
            Workspace.created_by == user.id,
            Project.name == PROJECT_NAME,
            Project.deleted_at.is_(None),
            Workspace.deleted_at.is_(None),
        )
        .order_by(Project.created_at.desc(), Project.id.desc())
        .limit(1)
    )
    row = (await db.execute(query)).first()
    if row is None:
        return None
    return user.id, DemoProject(row.workspace_id, row.id, None, await recall(db, row.id))


async def latest() -> DemoProject | None:
    """The latest demo project with the links printed when it was seeded (on the public URL
    now); None when there is none."""
    async with database.sessionmaker() as db:
        found = await _latest(db)
    return found[1] if found else None


async def new_key() -> DemoProject | None:
    """A new API key for the latest demo project (with its links); None when there is none."""
    async with database.sessionmaker() as db:
        found = await _latest(db)
    if found is None:
        return None
    user_id, project = found
    async with signed_in(user_id) as api:
        key = await _mint_key(api, project.project_id, f"Demo key {clock.iso(clock.now())}")
    return replace(project, api_key=key)
