"""`plumbline serve | worker | db upgrade | db revision | demo | openapi | users ...`.

Each command imports what it uses when it runs: `plumbline --help`, `plumbline demo --help`
and the commands that do not serve never import the app, its routes or the database layer
until they need them (tests/cli/test_imports.py; issue 40, item 7)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable
from typing import TYPE_CHECKING, TypeVar

import typer
from rich.console import Console

if TYPE_CHECKING:
    from plumbline.demo.seed import DemoAccount, DemoProject
    from plumbline.migrate import Upgraded

T = TypeVar("T")
# The demo project (None: none here), its account, and what was made now (None: nothing).
Demo = tuple["DemoProject | None", "DemoAccount | None", str | None]
SEEDED_BEFORE = "seeded on an earlier run: the database already has users"

app = typer.Typer(no_args_is_help=True, help="Plumbline: construction and facilities coordination.")
db_app = typer.Typer(no_args_is_help=True, help="Database schema.")
users_app = typer.Typer(no_args_is_help=True, help="User accounts.")
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
digests_app = typer.Typer(no_args_is_help=True, help="Daily digests and reminders.")
app.add_typer(digests_app, name="digests")
console = Console(soft_wrap=True)


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    demo: bool = typer.Option(
        False, "--demo", help="Seed a demo workspace when there are no users; print how to use it"
    ),
) -> None:
    """Start the HTTP server (port 0: any free port); prints its URL once it has answered a
    request and, with --demo, the demo's login, key and links (last, after the startup logs)."""
    import uvicorn

    from plumbline.config import settings
    from plumbline.kit.logging import server_log_config
    from plumbline.server import Server, Supervisor

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
    # Listening before the app loads: a request sent meanwhile waits instead of failing.
    sock.listen(config.backlog)
    url = settings.serve_on(host, sock.getsockname()[1])
    banner: list[str] = []

    async def seed_demo() -> None:
        banner.extend(_demo_lines(*await _demo(if_empty=True, new_key=False)))

    def serving() -> None:
        # Once the server has answered a request; one write, after the startup log lines:
        # nothing the server logs lands inside it.
        lines = [f"Plumbline listening on [bold]{url}[/] (the app: /app/, API docs: /api/v1/docs)"]
        if demo:
            lines += ["", *banner, f"Plumbline is ready at {url} (Ctrl+C stops it)"]
        console.print("\n".join(lines))

    if workers > 1:
        if demo:
            asyncio.run(_disposing(seed_demo()))
        Supervisor(config, [sock], url=url, started=serving).run()
    else:
        prepare = seed_demo if demo else None
        Server(config, url=url, prepare=prepare, started=serving).run([sock])


@db_app.command("upgrade")
def db_upgrade(
    revision: str = "heads",
    wait: float = typer.Option(
        0, min=0, help="Seconds to wait for the database to accept connections (containers)"
    ),
) -> None:
    """Apply the migrations shipped in the package; say which."""
    from plumbline.config import settings
    from plumbline.migrate import upgrade, wait_for_database

    settings.var_dir.mkdir(parents=True, exist_ok=True)

    async def run() -> Upgraded:
        await wait_for_database(wait)
        return await upgrade(revision)

    done = asyncio.run(_disposing(run()))
    if not done.applied:
        console.print(f"Database is up to date (at {', '.join(done.heads) or 'no revision'}).")
        return
    first, last, count = done.applied[0], done.applied[-1], len(done.applied)
    steps = first if count == 1 else f"{first} → {last}"
    console.print(f"Applied {count} migration{'' if count == 1 else 's'}: {steps}.")


@db_app.command("revision")
def db_revision(message: str) -> None:
    """Autogenerate a migration from the models (run `db upgrade` first)."""
    from plumbline.migrate import autogenerate

    asyncio.run(_disposing(autogenerate(message)))


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
    from plumbline.config import settings

    settings.var_dir.mkdir(parents=True, exist_ok=True)
    project, account, made = asyncio.run(_disposing(_demo(if_empty=if_empty, new_key=new_key)))
    if project is None and new_key:
        console.print("No demo project here: seed one with `plumbline demo`.")
        raise typer.Exit(1)
    console.print("\n".join(_demo_lines(project, account, made)))


async def _disposing(work: Awaitable[T]) -> T:
    """``work``, then the database's connections closed (a command's event loop ends with it)."""
    from plumbline.db import database

    try:
        return await work
    finally:
        await database.dispose()


async def _demo(*, if_empty: bool, new_key: bool) -> Demo:
    from plumbline.demo import seed

    if new_key:
        return await seed.new_key(), await seed.demo_account(), "key minted"
    if if_empty and await seed.has_users():
        return await seed.latest(), await seed.demo_account(), None
    return await seed.seed(), await seed.demo_account(), "seeded"


def _demo_lines(
    project: DemoProject | None, account: DemoAccount | None, made: str | None
) -> list[str]:
    """What to print about the demo, ``made`` now ("seeded", "key minted") or before (None):
    the login and where to use it, ids, key and links, on the public URL (the port served,
    unless set); the same every run but for the key, which is shown once."""
    from plumbline.config import settings

    url = settings.public_url.rstrip("/")
    if made is None and account is None:
        return ["Database already has users and no demo account; `plumbline demo` adds one."]
    head = f"[bold]Plumbline[/] demo {made} at {url}"
    if made is None:
        head = f"[bold]Plumbline[/] demo at {url} ({SEEDED_BEFORE})"
    # The app first: it is what a person opens; the API's docs, key and links follow.
    app = f"{url}/app/workspaces/{project.workspace_id}" if project else f"{url}/app/"
    lines = [head, f"  open the app: {app}", *_login_lines(account, url)]
    if project is None:
        return [*lines, "  No demo project here: seed one with `plumbline demo`."]
    if project.api_key is None:
        # Keys are stored hashed: the one printed at seeding cannot be shown again.
        lines += [
            "  API key:     shown once when made; mint another with",
            "               .venv/bin/plumbline demo --new-key",
        ]
    else:
        lines.append(f"  API key:     {project.api_key}")
    lines += [
        f"  workspace:   {project.workspace_id}    project: {project.project_id}",
        f"  docs:        {url}/api/v1/docs",
    ]
    if project.api_key is not None:
        lines.append(
            f"  try:         curl -H 'x-api-key: {project.api_key}' "
            f"{url}/api/v1/projects/{project.project_id}/issues"
        )
    if not project.links:
        lines.append("  links:       not kept by the version that seeded this demo")
    return [*lines, *(f"  {label}: {link}" for label, link in project.links)]


def _login_lines(account: DemoAccount | None, url: str) -> list[str]:
    if account is None:
        return []
    password = account.password or "(changed since the demo was seeded)"
    return [
        f"  sign in:     {account.email} / {password}",
        f"               at {url}/account/sign-in",
    ]


def _set_user(email: str, **values: object) -> None:
    from sqlalchemy import select

    from plumbline.db import database
    from plumbline.models import User

    async def run() -> bool:
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

    if not asyncio.run(_disposing(run())):
        console.print(f"No user with e-mail {email}")
        raise typer.Exit(1)


@users_app.command("create")
def users_create(email: str, name: str, password: str, verified: bool = True) -> None:
    """Create a user (verified by default)."""
    from plumbline.db import database
    from plumbline.kit import clock, crypto
    from plumbline.models import User

    async def run() -> None:
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

    asyncio.run(_disposing(run()))
    console.print(f"Created {email}")


@users_app.command("first")
def users_first() -> None:
    """Create the first user, verified, from PLUMBLINE_FIRST_USER_EMAIL and
    PLUMBLINE_FIRST_USER_PASSWORD (and _NAME) when there are no users; else nothing (a
    one-shot service runs it at every start: compose.yaml)."""
    from pydantic import TypeAdapter, ValidationError
    from sqlalchemy import func, select

    from plumbline.config import settings
    from plumbline.db import database
    from plumbline.errors import AppError
    from plumbline.identity.service import check_password
    from plumbline.kit.schema import EmailAddress
    from plumbline.models import User

    email, password = settings.first_user_email, settings.first_user_password
    if not email or password is None:
        console.print(
            "No first user made: set PLUMBLINE_FIRST_USER_EMAIL and PLUMBLINE_FIRST_USER_PASSWORD"
            " (or sign up at /account/sign-up, or `plumbline users create`)."
        )
        return
    try:
        address = TypeAdapter(EmailAddress).validate_python(email)
        check_password(password.get_secret_value(), "PLUMBLINE_FIRST_USER_PASSWORD")
    except AppError as refused:
        console.print(f"No first user made: {refused.message}")
        raise typer.Exit(1) from None
    except ValidationError as refused:
        console.print(
            f"No first user made: PLUMBLINE_FIRST_USER_EMAIL {refused.errors()[0]['msg']}"
        )
        raise typer.Exit(1) from None

    async def users() -> int:
        async with database.sessionmaker() as db:
            return int((await db.execute(select(func.count()).select_from(User))).scalar_one())

    if asyncio.run(_disposing(users())):
        console.print("The database already has users: no first user made.")
        return
    users_create(address, settings.first_user_name, password.get_secret_value())
    console.print(f"Sign in at {settings.public_url.rstrip('/')}/account/sign-in")


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
        with Progress(console=console) as progress:
            task = progress.add_task("Digests", total=len(kinds))
            for name in kinds:
                progress.update(task, description=name)
                results.append((name, await run_now(daily[name])))
                progress.advance(task)
        return results

    keys = ("day", "workspacesNotified", "membersEmailed", "membersNotified", "workspacesSkipped")
    table = Table("digest", "day", "workspaces", "e-mailed", "notified", "skipped")
    for name, counts in asyncio.run(_disposing(run())):
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
        await _disposing(work(stop, concurrency=concurrency))

    typer.echo(f"Plumbline worker running jobs ({concurrency} at a time)")
    sys.stdout.flush()  # a supervisor (or a test) may wait for this line
    asyncio.run(run())


if __name__ == "__main__":
    app()
