"""`plumbline serve | worker | db upgrade | db revision | demo | openapi | users ...`."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from sqlalchemy import select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock, crypto

if TYPE_CHECKING:
    from plumbline.demo.seed import DemoAccount

app = typer.Typer(no_args_is_help=True, help="Plumbline: construction and facilities coordination.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
users_app = typer.Typer(no_args_is_help=True, help="User accounts.")
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
digests_app = typer.Typer(no_args_is_help=True, help="Daily digests and reminders.")
app.add_typer(digests_app, name="digests")
console = Console(soft_wrap=True)


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
        # A worker has this long to import the app before uvicorn restarts it: a busy machine
        # needs more than uvicorn's 5 s, or the workers restart forever.
        timeout_worker_healthcheck=60,
        access_log=False,  # the app writes its own access lines, with the request id
        # uvicorn would otherwise take X-Forwarded-For from any local peer as the client; the
        # app believes only PLUMBLINE_TRUSTED_PROXIES (kit/client_address.py).
        proxy_headers=False,
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


@app.command()
def demo(
    if_empty: bool = typer.Option(False, "--if-empty", help="Only when there are no users"),
    new_key: bool = typer.Option(False, "--new-key", help="Mint a new key for the demo project"),
) -> None:
    """Seed a demo workspace and project with records in every module; print how to use them."""
    from plumbline.demo import seed

    async def run() -> tuple[seed.DemoProject | None, seed.DemoAccount | None]:
        try:
            if new_key:
                return await seed.new_key(), await seed.demo_account()
            if if_empty and await seed.has_users():
                return None, await seed.demo_account()
            return await seed.seed(), await seed.demo_account()
        finally:
            await database.dispose()

    settings.var_dir.mkdir(parents=True, exist_ok=True)
    project, account = asyncio.run(run())
    url = settings.public_url.rstrip("/")
    if project is None and new_key:
        console.print("No demo project here: seed one with `plumbline demo`.")
        raise typer.Exit(1)
    if project is None:
        _print_existing_demo(account)
        return
    console.print(f"[bold]Plumbline[/] demo {'key minted' if new_key else 'seeded'} at {url}")
    _print_login(account)
    console.print(f"  API key:     {project.api_key}")
    console.print(f"  workspace:   {project.workspace_id}    project: {project.project_id}")
    console.print(f"  docs:        {url}/api/v1/docs")
    console.print(
        f"  try:         curl -H 'x-api-key: {project.api_key}' "
        f"{url}/api/v1/projects/{project.project_id}/issues"
    )
    for label, link in project.links:
        console.print(f"  {label}: {link}")


def _print_login(account: DemoAccount | None) -> None:
    if account is not None:
        password = account.password or "(changed since the demo was seeded)"
        console.print(f"  sign in:     {account.email} / {password}")


def _print_existing_demo(account: DemoAccount | None) -> None:
    if account is None:
        console.print("Database already has users and no demo account; `plumbline demo` adds one.")
        return
    console.print("Database already has users; the demo was seeded before.")
    _print_login(account)
    # Keys are stored hashed: the one printed at seeding cannot be shown again.
    console.print("  API key:     shown once when made; mint another with")
    console.print("               .venv/bin/plumbline demo --new-key")


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


@digests_app.command("run")
def digests_run(
    kind: str = typer.Argument(None, help="One daily job (default: all of them)"),
) -> None:
    """Run today's digests now (each is sent at most once per workspace and UTC day)."""
    from rich.progress import Progress
    from rich.table import Table

    from plumbline.jobs import daily_tasks, run_now

    daily = daily_tasks()  # the daily tasks the scheduler runs, by the name each is known by
    kinds = [kind] if kind else list(daily)
    unknown = [k for k in kinds if k not in daily]
    if unknown:
        console.print(f"[red]Unknown digest {unknown[0]}; known: {', '.join(daily)}[/red]")
        raise typer.Exit(2)

    async def run() -> list[tuple[str, dict[str, object]]]:
        results = []
        try:
            with Progress(console=console) as progress:
                task = progress.add_task("Digests", total=len(kinds))
                for name in kinds:
                    progress.update(task, description=name)
                    results.append((name, await run_now(daily[name])))
                    progress.advance(task)
        finally:
            await database.dispose()
        return results

    keys = ("day", "workspacesNotified", "membersEmailed", "membersNotified", "workspacesSkipped")
    table = Table("digest", "day", "workspaces", "e-mailed", "notified", "skipped")
    for name, counts in asyncio.run(run()):
        table.add_row(name, *(str(counts.get(key, "")) for key in keys))
    console.print(table)


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
