"""The CLI, run as a real process against the test database."""

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import crypto
from plumbline.kit.ids import new_id
from plumbline.migrate import alembic_config
from plumbline.models import User


def plumbline(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plumbline.cli", *args],
        env={**os.environ, "COLUMNS": "300", "NO_COLOR": "1", **(env or {})},
        capture_output=True,
        text=True,
        check=False,
    )


async def _user(email: str) -> User | None:
    async with database.sessionmaker() as db:
        return (await db.execute(select(User).where(User.email == email))).scalar_one_or_none()


async def test_users_create_and_verify() -> None:
    email = f"cli-{new_id()}@example.com"
    created = plumbline("users", "create", email, "Casey Cli", "Sturdy-Pass-99", "--no-verified")
    assert created.returncode == 0, created.stderr
    user = await _user(email)
    assert user is not None and user.email_verified is False
    assert crypto.verify_password(user.password_hash, "Sturdy-Pass-99")
    verified = plumbline("users", "verify", email)
    assert verified.returncode == 0, verified.stderr
    user = await _user(email)
    assert user is not None and user.email_verified is True


async def test_users_verify_unknown_email_fails() -> None:
    result = plumbline("users", "verify", f"nobody-{new_id()}@example.com")
    assert result.returncode == 1
    assert "No user" in result.stdout


def _users(database_file: Path) -> list[tuple[str, str, bool, str]]:
    with closing(sqlite3.connect(database_file)) as db:
        rows = db.execute("SELECT email, name, email_verified, password_hash FROM users")
        return [(email, name, bool(verified), hashed) for email, name, verified, hashed in rows]


def test_users_first_makes_the_first_user_from_the_environment_once(tmp_path: Path) -> None:
    fresh = {
        "PLUMBLINE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/fresh.db",
        "PLUMBLINE_VAR_DIR": str(tmp_path),
    }
    assert plumbline("db", "upgrade", env=fresh).returncode == 0
    # Not asked for (compose without the settings): nothing made, how to say it, success.
    unset = plumbline("users", "first", env=fresh)
    assert unset.returncode == 0, unset.stdout + unset.stderr
    assert "PLUMBLINE_FIRST_USER_EMAIL" in unset.stdout and _users(tmp_path / "fresh.db") == []
    # A password the sign-up would refuse is refused here too.
    first = {**fresh, "PLUMBLINE_FIRST_USER_EMAIL": "Ops@Example.com"}
    weak = plumbline("users", "first", env={**first, "PLUMBLINE_FIRST_USER_PASSWORD": "short"})
    assert weak.returncode == 1 and "10 to 128 characters" in weak.stdout, weak.stdout + weak.stderr
    assert _users(tmp_path / "fresh.db") == []
    # The first user: verified (ready to sign in), with that password.
    first["PLUMBLINE_FIRST_USER_PASSWORD"] = "Sturdy-Pass-99"
    made = plumbline("users", "first", env=first)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "ops@example.com" in made.stdout and "/account/sign-in" in made.stdout
    [(email, name, verified, hashed)] = _users(tmp_path / "fresh.db")
    assert (email, name, verified) == ("ops@example.com", "Administrator", True)
    assert crypto.verify_password(hashed, "Sturdy-Pass-99")
    # Every later start: the database has users, nothing made.
    again = plumbline("users", "first", env={**first, "PLUMBLINE_FIRST_USER_EMAIL": "b@x.com"})
    assert again.returncode == 0 and "already has users" in again.stdout
    assert [row[0] for row in _users(tmp_path / "fresh.db")] == ["ops@example.com"]


def test_db_upgrade_says_what_it_applied(tmp_path: Path) -> None:
    script = ScriptDirectory.from_config(alembic_config())
    head, count = script.get_current_head(), len(list(script.walk_revisions()))
    fresh = {"PLUMBLINE_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/fresh.db"}
    applied = plumbline("db", "upgrade", env=fresh)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == f"Applied {count} migrations: 0001_foundation \u2192 {head}.\n"
    again = plumbline("db", "upgrade", env=fresh)
    assert again.stdout == f"Database is up to date (at {head}).\n"


def test_db_upgrade_is_idempotent() -> None:
    result = plumbline("db", "upgrade")
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout


def test_openapi_prints_the_description() -> None:
    result = plumbline("openapi")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    assert schema["openapi"] == "3.1.0" and schema["info"]["version"] == "1.0.0"


def test_demo_if_empty_leaves_a_populated_database_alone() -> None:
    plumbline("users", "create", f"cli-{new_id()}@example.com", "Someone", "Sturdy-Pass-99")
    result = plumbline("demo", "--if-empty")
    assert result.returncode == 0, result.stderr
    assert "already has users" in result.stdout
