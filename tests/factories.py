"""Small typed async factories that write straight to the database (no routes involved)."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType
from typing import Any

from aiosmtpd.controller import Controller
from sqlalchemy import event, insert, select, update

from plumbline.db import database
from plumbline.kit import clock, crypto
from plumbline.kit.ids import new_id
from plumbline.models import (
    ApiKey,
    AuditLog,
    AuthSession,
    Issue,
    Job,
    Membership,
    Project,
    ProjectMember,
    User,
    Workspace,
)
from tests.live import free_port

PASSWORD = "Correct-Horse-9"
_PASSWORD_HASH = crypto.hash_password(PASSWORD)  # Argon2 is slow on purpose: hash once


@dataclass
class Actor:
    """A user with a live session; ``headers`` authenticate requests as them."""

    user: User
    token: str

    @property
    def id(self) -> str:
        return self.user.id

    @property
    def cookie(self) -> str:
        return crypto.signed(self.token, "session")

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": f"auth.session_token={self.cookie}"}

    @property
    def page_headers(self) -> dict[str, str]:
        """The session and the pages' CSRF cookie (``PAGE_CSRF``, the forms' ``csrf`` field)."""
        return {"Cookie": f"auth.session_token={self.cookie}; plumbline_csrf={PAGE_CSRF}"}


# The CSRF token a test's page form carries with ``Actor.page_headers``.
PAGE_CSRF = "test-csrf-token-for-page-forms"


async def create_user(
    *, name: str = "Test User", email_address: str | None = None, verified: bool = True
) -> Actor:
    async with database.sessionmaker() as db:
        now = clock.now()
        user = User(
            name=name,
            email=email_address or f"user-{new_id()}@example.com",
            email_verified=verified,
            password_hash=_PASSWORD_HASH,
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
        await db.commit()
        return Actor(user, token)


async def create_workspace(
    owner: Actor, *, name: str = "Acme Builders", plan: str = "trial"
) -> Workspace:
    async with database.sessionmaker() as db:
        now = clock.now()
        workspace = Workspace(
            name=name,
            slug=f"ws-{new_id()}",
            plan=plan,
            subscription_status="trialing" if plan == "trial" else "active",
            trial_ends_at=now + timedelta(days=14),
            created_by=owner.id,
            created_at=now,
            updated_at=now,
        )
        db.add(workspace)
        await db.flush()
        db.add(
            Membership(
                workspace_id=workspace.id, user_id=owner.id, role="SUPER_ADMIN", joined_at=now
            )
        )
        await db.commit()
        return workspace


async def add_member(
    workspace: Workspace,
    actor: Actor,
    role: str = "MEMBER",
    *,
    external_role: str | None = None,
    project_ids: list[str] | None = None,
) -> None:
    """Adds a member; ``external_role`` makes them an external collaborator on ``project_ids``,
    and ``project_ids`` alone restricts an internal member to those projects."""
    async with database.sessionmaker() as db:
        now = clock.now()
        db.add(
            Membership(
                workspace_id=workspace.id,
                user_id=actor.id,
                role=role,
                is_external=external_role is not None,
                restricted=project_ids is not None and external_role is None,
                joined_at=now,
            )
        )
        for project_id in project_ids or []:
            db.add(
                ProjectMember(
                    project_id=project_id,
                    user_id=actor.id,
                    workspace_id=workspace.id,
                    project_role=external_role,
                    created_at=now,
                )
            )
        await db.commit()


async def create_project(workspace: Workspace, *, name: str = "Tower A", **values: Any) -> Project:
    async with database.sessionmaker() as db:
        now = clock.now()
        project = Project(
            workspace_id=workspace.id, name=name, created_at=now, updated_at=now, **values
        )
        db.add(project)
        await db.commit()
        return project


async def create_api_key(
    project: Project,
    scopes: list[str],
    *,
    expires_in: timedelta | None = None,
    revoked: bool = False,
) -> tuple[str, ApiKey]:
    raw = f"psk_{crypto.random_token(30)}"
    async with database.sessionmaker() as db:
        now = clock.now()
        key = ApiKey(
            project_id=project.id,
            workspace_id=project.workspace_id,
            name="test key",
            prefix=raw[:12],
            key_hash=crypto.sha256_hex(raw),
            scopes=scopes,
            created_at=now,
            expires_at=now + expires_in if expires_in else None,
            revoked_at=now if revoked else None,
        )
        db.add(key)
        await db.commit()
        return raw, key


def key_headers(raw: str) -> dict[str, str]:
    return {"x-api-key": raw}


@dataclass
class World:
    workspace: Workspace
    project: Project
    owner: Actor
    admin: Actor
    manager: Actor
    member: Actor
    extra: dict[str, Any] = field(default_factory=dict)


async def make_world(plan: str = "trial") -> World:
    owner = await create_user(name="Olivia Owner")
    workspace = await create_workspace(owner, plan=plan)
    admin, manager, member = (
        await create_user(name="Ada Admin"),
        await create_user(name="Max Manager"),
        await create_user(name="Mel Member"),
    )
    await add_member(workspace, admin, "ADMIN")
    await add_member(workspace, manager, "MANAGER")
    await add_member(workspace, member, "MEMBER")
    project = await create_project(workspace)
    return World(workspace, project, owner, admin, manager, member)


async def external(world: World, role: str, name: str = "Ext Ernal") -> Actor:
    """An external collaborator with project role ``role`` on the world's project."""
    actor = await create_user(name=name)
    await add_member(
        world.workspace, actor, "MEMBER", external_role=role, project_ids=[world.project.id]
    )
    return actor


async def set_workspace(workspace_id: str, **values: Any) -> None:
    async with database.sessionmaker() as db:
        await db.execute(update(Workspace).where(Workspace.id == workspace_id).values(**values))
        await db.commit()


async def set_project(project_id: str, **values: Any) -> None:
    async with database.sessionmaker() as db:
        await db.execute(update(Project).where(Project.id == project_id).values(**values))
        await db.commit()


async def set_client_visibility(project: Project, **flags: bool) -> None:
    await set_project(project.id, client_visibility=flags)


async def audit_entries(entity_id: str) -> list[AuditLog]:
    """The entity's audit rows in the order they were written (ids are UUIDv7)."""
    async with database.sessionmaker() as db:
        query = select(AuditLog).where(AuditLog.entity_id == entity_id).order_by(AuditLog.id)
        return list((await db.execute(query)).scalars())


class QueryCounter:
    """Counts SQL statements sent by the engine while active (``with QueryCounter() as q``)."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def _on_execute(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if (
            not statement.lstrip()
            .upper()
            .startswith(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"))
        ):
            self.statements.append(statement)

    def __enter__(self) -> QueryCounter:
        event.listen(database.engine.sync_engine, "before_cursor_execute", self._on_execute)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(database.engine.sync_engine, "before_cursor_execute", self._on_execute)

    @property
    def count(self) -> int:
        return len(self.statements)


def read_mails(outbox: Path, to: str | None = None) -> list[EmailMessage]:
    """E-mails written to the outbox directory, oldest first, optionally to one address."""
    messages = []
    for path in sorted(outbox.glob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        # The raw header: a test only needs to find its own address in it.
        raw_to = next((str(v) for k, v in message.raw_items() if k.lower() == "to"), "")
        if to is None or to in raw_to:
            messages.append(message)
    return messages


async def mail_jobs_to(address: str) -> list[Job]:
    """The ``mail.send`` jobs whose recipients include ``address``."""
    async with database.sessionmaker() as db:
        rows = (await db.execute(select(Job).where(Job.name == "mail.send"))).scalars()
        return [job for job in rows if address in job.payload.get("to", [])]


def mail_text(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain", "html"))
    assert body is not None
    return str(body.get_content())


def link_in(message: EmailMessage, pattern: str = r"https?://\S+") -> str:
    found = re.search(pattern, mail_text(message))
    assert found, f"no link in {mail_text(message)!r}"
    return found.group(0)


async def om_world(plan: str = "trial", timezone: str = "UTC") -> World:
    """A world whose project is in operations mode (the ``om`` module on)."""
    world = await make_world(plan)
    await set_project(world.project.id, operations_mode=True, timezone=timezone)
    return world


def om_url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/om{suffix}"


async def create_asset(client: Any, world: World, **body: Any) -> dict[str, Any]:
    """An asset of the world's project, created by its manager through the API."""
    payload = {"tag": f"AHU-{new_id()[-8:]}", "name": "Air handler"} | body
    response = await client.post(
        om_url(world.project, "/assets"), json=payload, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def create_schedule(client: Any, world: World, asset_id: str, **body: Any) -> dict[str, Any]:
    payload = {"assetId": asset_id, "title": "Filter change", "frequency": "MONTHLY"} | body
    response = await client.post(
        om_url(world.project, "/maintenance"), json=payload, headers=world.manager.headers
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


class SmtpSink:
    """A real SMTP server (aiosmtpd) on a free loopback port, keeping every message it
    receives: ``with SmtpSink() as sink:`` then point ``PLUMBLINE_SMTP_URL`` at ``sink.url``."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []
        self.port = free_port()
        self.url = f"smtp://127.0.0.1:{self.port}"
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content or b""))
        return "250 OK"

    def mails(self, to: str) -> list[EmailMessage]:
        """The messages to ``to``, oldest first."""
        found = []
        for recipients, raw in list(self.messages):
            if to in recipients:
                message = email.message_from_bytes(raw, policy=email.policy.default)
                assert isinstance(message, EmailMessage)
                found.append(message)
        return found

    def __enter__(self) -> SmtpSink:
        self._controller.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._controller.stop()


async def seed_issues(
    world: World, count: int, *, start: int = 1000, **values: Any
) -> list[dict[str, Any]]:
    """Issues straight into the table (the routes are proven elsewhere): repeated keys (ties),
    every fifth without a due date, the odd ones assigned to the member, varied statuses,
    priorities and update times; ``values`` over those."""
    now = clock.now()
    today = now.date()
    rows = [
        {
            "id": new_id(),
            "project_id": world.project.id,
            "workspace_id": world.workspace.id,
            "number": start + i,
            "title": f"Sorted {i}",
            "status": ("OPEN", "IN_PROGRESS", "RESOLVED")[i % 3],
            "priority": ("LOW", "MEDIUM", "HIGH", "URGENT")[i % 4],
            "issue_kind": "CONSTRUCTION",
            "checklist": [],
            "due_date": None if i % 5 == 0 else today + timedelta(days=(i % 7) - 3),
            "assignee_id": world.member.id if i % 2 else None,
            "created_by": world.manager.id,
            "created_at": now,
            "updated_at": now - timedelta(minutes=i % 6),
            "status_changed_at": now,
            **values,
        }
        for i in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Issue), rows)
        await db.commit()
    return rows
