"""`plumbline serve | worker | db upgrade | db revision | demo | openapi | users ...`."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import timedelta

import typer
from rich.console import Console
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock, crypto

app = typer.Typer(no_args_is_help=True, help="Plumbline: construction and facilities coordination.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
users_app = typer.Typer(no_args_is_help=True, help="User accounts.")
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
console = Console(soft_wrap=True)

DEMO_EMAIL = "demo@plumbline.local"
DEMO_PASSWORD = "Plumbline-Demo-2026!"  # noqa: S105 - the printed demo login


@app.command()
def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Start the HTTP server (port 0: any free port); prints its URL once the port is bound."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from plumbline.kit.logging import server_log_config

    config = uvicorn.Config(
        "plumbline.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        access_log=False,  # the app writes its own access lines, with the request id
        log_config=server_log_config(settings.log_level),
    )
    sock = config.bind_socket()
    # Listening before the app loads: a request sent once the URL shows waits instead of failing.
    sock.listen(config.backlog)
    url = settings.serve_on(host, sock.getsockname()[1])
    console.print(f"Plumbline listening on [bold]{url}[/] (docs: /api/v1/docs)")
    server = uvicorn.Server(config)
    if workers > 1:
        Multiprocess(config, sockets=[sock]).run()
    else:
        server.run(sockets=[sock])


@db_app.command("upgrade")
def db_upgrade(revision: str = "heads") -> None:
    """Apply the migrations shipped in the package."""
    from plumbline.migrate import upgrade

    async def run() -> None:
        await upgrade(revision)
        await database.dispose()

    settings.var_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(run())
    console.print("Database is up to date.")


@db_app.command("revision")
def db_revision(message: str) -> None:
    """Autogenerate a migration from the models (run `db upgrade` first)."""
    from plumbline.migrate import autogenerate

    async def run() -> None:
        await autogenerate(message)
        await database.dispose()

    asyncio.run(run())


@app.command()
def openapi() -> None:
    """Print the OpenAPI description."""
    from plumbline.app import create_app

    typer.echo(json.dumps(create_app().openapi(), indent=2))


async def _seed_demo(if_empty: bool) -> tuple[str, str, str] | None:
    from plumbline.authz.permissions import SCOPES
    from plumbline.models import ApiKey, Membership, Project, User, Workspace

    async with database.sessionmaker() as db:
        if if_empty and (await db.execute(select(func.count()).select_from(User))).scalar_one() > 0:
            return None
        now = clock.now()
        user = (await db.execute(select(User).where(User.email == DEMO_EMAIL))).scalar_one_or_none()
        if user is None:
            user = User(
                name="Demo Manager",
                email=DEMO_EMAIL,
                email_verified=True,
                created_at=now,
                updated_at=now,
            )
            db.add(user)
        user.password_hash = crypto.hash_password(DEMO_PASSWORD)
        await db.flush()
        workspace = Workspace(
            name="Demo Construction Co.",
            slug=f"demo-{crypto.random_token(4).lower()}",
            trial_ends_at=now + timedelta(days=14),
            created_by=user.id,
            created_at=now,
            updated_at=now,
        )
        db.add(workspace)
        await db.flush()
        db.add(
            Membership(
                workspace_id=workspace.id, user_id=user.id, role="SUPER_ADMIN", joined_at=now
            )
        )
        project = Project(
            workspace_id=workspace.id,
            name="Harbor View Tower",
            location="1 Harbor Way",
            stage="Execution",
            created_by=user.id,
            created_at=now,
            updated_at=now,
        )
        db.add(project)
        await db.flush()
        raw = f"psk_{crypto.random_token(30)}"
        db.add(
            ApiKey(
                project_id=project.id,
                workspace_id=workspace.id,
                name="Demo integration",
                prefix=raw[:12],
                key_hash=crypto.sha256_hex(raw),
                scopes=list(SCOPES),
                created_by=user.id,
                created_at=now,
            )
        )
        await db.commit()
        return project.id, raw, workspace.id


@app.command()
def demo(
    if_empty: bool = typer.Option(False, "--if-empty", help="Only when there are no users"),
) -> None:
    """Seed a demo workspace, project, verified user and API key; print how to use them."""

    async def run() -> tuple[str, str, str] | None:
        try:
            return await _seed_demo(if_empty)
        finally:
            await database.dispose()

    seeded = asyncio.run(run())
    url = settings.public_url.rstrip("/")
    if seeded is None:
        console.print(f"Database already has users; demo login (if seeded before): {DEMO_EMAIL}")
        return
    project_id, raw, workspace_id = seeded
    console.print(f"[bold]Plumbline[/] demo seeded at {url}")
    console.print(f"  sign in:     {DEMO_EMAIL} / {DEMO_PASSWORD}")
    console.print(f"  API key:     {raw}")
    console.print(f"  workspace:   {workspace_id}    project: {project_id}")
    console.print(
        f"  try:         curl -H 'x-api-key: {raw}' {url}/api/v1/projects/{project_id}/issues"
    )


def _set_user(email: str, **values: object) -> None:
    from plumbline.models import User

    async def run() -> bool:
        try:
            async with database.sessionmaker() as db:
                user = (
                    await db.execute(select(User).where(User.email == email.lower()))
                ).scalar_one_or_none()
                if user is None:
                    return False
                for key, value in values.items():
                    setattr(user, key, value)
                await db.commit()
                return True
        finally:
            await database.dispose()

    if not asyncio.run(run()):
        console.print(f"No user with e-mail {email}")
        raise typer.Exit(1)


@users_app.command("create")
def users_create(email: str, name: str, password: str, verified: bool = True) -> None:
    """Create a user (verified by default)."""
    from plumbline.models import User

    async def run() -> None:
        try:
            async with database.sessionmaker() as db:
                now = clock.now()
                db.add(
                    User(
                        name=name,
                        email=email.lower(),
                        email_verified=verified,
                        password_hash=crypto.hash_password(password),
                        created_at=now,
                        updated_at=now,
                    )
                )
                await db.commit()
        finally:
            await database.dispose()

    asyncio.run(run())
    console.print(f"Created {email}")


@users_app.command("verify")
def users_verify(email: str) -> None:
    """Mark a user's e-mail as verified."""
    _set_user(email, email_verified=True)
    console.print(f"Verified {email}")


@app.command()
def worker(
    concurrency: int = typer.Option(1, min=1, max=100, help="Jobs run at once by this process"),
    include: list[str] = typer.Option([], help="Another module that registers jobs (repeatable)"),
) -> None:
    """Run queued background jobs until stopped (use with PLUMBLINE_JOBS=worker)."""
    import signal

    from plumbline.jobs.registry import load_tasks
    from plumbline.jobs.runner import work

    load_tasks(*include)

    async def run() -> None:
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set)
        try:
            await work(stop, concurrency=concurrency)
        finally:
            await database.dispose()

    typer.echo(f"Plumbline worker running jobs ({concurrency} at a time)")
    sys.stdout.flush()  # a supervisor (or a test) may wait for this line
    asyncio.run(run())


if __name__ == "__main__":
    app()
