"""``/api/v1/ready``: each part a server needs, checked; 503 names the failing ones. The
failures through real servers configured with a part missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
from alembic.script import ScriptDirectory

from plumbline.migrate import alembic_config
from tests.deploy.processes import serving
from tests.live import free_port


async def test_a_server_with_everything_reachable_is_ready(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/ready")
    assert response.status_code == 200, response.text
    assert response.json() == {
        "ok": True,
        "checks": {
            "database": "ok",
            "migrations": "ok",
            "redis": "not configured",
            "storage": "ok",
        },
    }
    # The liveness route of PRODUCT §14 keeps its shape.
    health = (await client.get("/api/v1/health")).json()
    assert health["ok"] is True and health["database"] == "ok"


def test_not_ready_names_redis_storage_and_migrations(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'behind.db'}"
    upgrade = subprocess.run(
        [sys.executable, "-m", "plumbline.cli", "db", "upgrade", "--revision", "0022_webhooks"],
        env={**os.environ, "PLUMBLINE_DATABASE_URL": database},
        capture_output=True,
        text=True,
        check=False,
    )
    assert upgrade.returncode == 0, upgrade.stderr
    not_a_directory = tmp_path / "objects"
    not_a_directory.write_text("a file where the storage directory should be")
    env = {
        "PLUMBLINE_DATABASE_URL": database,
        "PLUMBLINE_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens
        "PLUMBLINE_STORAGE": "local",
        "PLUMBLINE_STORAGE_DIR": str(not_a_directory),
    }
    with serving(env) as url:
        response = httpx.get(f"{url}/api/v1/ready", timeout=30)
        health = httpx.get(f"{url}/api/v1/health", timeout=30)
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["code"] == "NOT_READY"
    assert body["error"] == "Not ready: migrations, redis, storage"
    checks = body["checks"]
    assert checks["database"] == "ok"
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert checks["migrations"].startswith(f"behind: at 0022_webhooks, head {head} ")
    assert checks["redis"].startswith("unreachable: ")
    assert "is not a directory" in checks["storage"]
    assert health.status_code == 200  # alive: a process manager must not restart it


def test_not_ready_when_the_database_is_unreachable() -> None:
    closed = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/plumbline"
    with serving({"PLUMBLINE_DATABASE_URL": closed}) as url:
        response = httpx.get(f"{url}/api/v1/ready", timeout=30)
    assert response.status_code == 503, response.text
    body = response.json()
    assert body["error"] == "Not ready: database"
    assert body["checks"]["database"].startswith("unreachable: ")
    assert body["checks"]["migrations"] == "not checked: the database is unreachable"
    assert body["checks"]["storage"] == "ok"
