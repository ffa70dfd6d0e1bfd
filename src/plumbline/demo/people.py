"""The demo's people: the demo user's team (a superintendent, a project engineer, an assistant
project manager, an operations director) and an electrical contractor on Harbor View Tower.

They are written directly, as the demo account is (no e-mail to accept, no password: only the
demo user signs in), and they join through the members service, audited as the system. Each gets
a session for the seeding, so the records and their history name who did what.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import select

from plumbline.auth.session import COOKIE_NAME, SESSION_DAYS
from plumbline.db import database
from plumbline.demo.api import Api
from plumbline.errors import found
from plumbline.kit import clock, crypto
from plumbline.member.service import member as member_service
from plumbline.models import AuthSession, User, Workspace

# key: name, e-mail, workspace role
TEAM = {
    "tomas": ("Tomás Herrera", "tomas.herrera@example.com", "MANAGER"),
    "grace": ("Grace Liu", "grace.liu@example.com", "MEMBER"),
    "ben": ("Ben Carter", "ben.carter@example.com", "MEMBER"),
    "aisha": ("Aisha Mensah", "aisha.mensah@example.com", "ADMIN"),
}
CONTRACTOR = ("Luis Ortega", "luis.ortega@example.com")


@dataclass
class Team:
    """Who is who in the demo (``dana`` is the demo user), each as a client of the app."""

    me: Api
    people: dict[str, Api] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Api:
        return self.me if key == "dana" else self.people[key]

    def id(self, key: str) -> str:
        return self[key].user_id


async def session_cookie(user_id: str, agent: str = "plumbline demo") -> str:
    """A session for ``user_id`` as a sign-in creates, as the ``Cookie`` header's value."""
    token = crypto.random_token()
    now = clock.now()
    async with database.sessionmaker() as db:
        db.add(
            AuthSession(
                user_id=user_id,
                token_hash=crypto.sha256_hex(token),
                expires_at=now + timedelta(days=SESSION_DAYS),
                remember=True,
                user_agent=agent,
                created_at=now,
                updated_at=now,
            )
        )
        await db.commit()
    return f"{COOKIE_NAME}={crypto.signed(token, 'session')}"


async def _user(name: str, email: str) -> str:
    async with database.sessionmaker() as db:
        user = (await db.execute(select(User).where(User.email == email))).scalar_one_or_none()
        if user is None:
            now = clock.now()
            user = User(name=name, email=email, email_verified=True, created_at=now, updated_at=now)
            db.add(user)
            await db.commit()
        return user.id


async def _join(
    workspace_id: str, user_id: str, role: str, kind: str, project_ids: list[str]
) -> None:
    async with database.sessionmaker() as db:
        workspace = found(await db.get(Workspace, workspace_id), "Workspace not found")
        await member_service.join(
            db,
            workspace,
            user_id,
            role=role,
            principal="system",
            action="member.joined",
            kind=kind,
            project_ids=project_ids,
        )
        await db.commit()


async def add_team(api: Api, workspace_id: str) -> Team:
    """The team joins the workspace (internal members who see every project)."""
    team = Team(api)
    for key, (name, email, role) in TEAM.items():
        user_id = await _user(name, email)
        await _join(workspace_id, user_id, role, "INTERNAL", [])
        team.people[key] = api.acting_as(user_id, await session_cookie(user_id))
    return team


async def add_contractor(team: Team, workspace_id: str, project_id: str) -> None:
    """The electrical contractor, named on one project only."""
    user_id = await _user(*CONTRACTOR)
    await _join(workspace_id, user_id, "MEMBER", "CONTRACTOR", [project_id])
    team.people["luis"] = team.me.acting_as(user_id, await session_cookie(user_id))


async def sign_out(team: Team) -> None:
    for api in team.people.values():
        await api.client.post("/api/auth/sign-out", headers={"Cookie": api.cookie or ""})
