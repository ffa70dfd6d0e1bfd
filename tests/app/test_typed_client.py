"""A Python client generated from the served OpenAPI with openapi-python-client: it generates
without one warning, type-checks (mypy --strict) and imports without a hand edit, and an
integration's sync journey runs through its functions alone (issue 27, item 8)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from plumbline.config import settings
from plumbline.kit import clock
from tests.conftest import ORIGIN
from tests.factories import World, create_api_key

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "clients" / "openapi-python-client.yaml"
PACKAGE = "plumbline_client"
BIN = Path(sys.executable).parent
# A safety bound on the generator and mypy (each takes 10-40 s), never a timed assertion.
PATIENCE = 600  # seconds
MYPY_CONFIG = """\
[mypy]
strict = True
[mypy-plumbline_client.client]
# The generator's own template forwards `*args: object` to httpx's typed __exit__: nothing that
# our OpenAPI decides.
ignore_errors = True
"""


@dataclass
class Generated:
    root: Path  # the directory holding the package
    returncode: int
    output: list[str]  # what the generator printed, line by line


@pytest.fixture(scope="module")
async def generated(app, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Generated]:  # type: ignore[no-untyped-def]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=ORIGIN) as c:
        served = await c.get("/api/v1/openapi.json")
    assert served.status_code == 200
    root = tmp_path_factory.mktemp("typed-client")
    (root / "openapi.json").write_bytes(served.content)
    run = subprocess.run(
        [
            str(BIN / "openapi-python-client"), "generate",
            "--path", str(root / "openapi.json"),
            "--output-path", str(root / PACKAGE),
            "--config", str(CONFIG),
            "--meta", "none",
        ],
        capture_output=True,
        text=True,
        # Its post hooks run ruff, found on the PATH.
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        timeout=PATIENCE,
        check=False,
    )  # fmt: skip
    sys.path.insert(0, str(root))
    yield Generated(root, run.returncode, (run.stdout + run.stderr).splitlines())
    sys.path.remove(str(root))
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]


def test_the_generator_reads_every_schema_and_response_without_a_warning(
    generated: Generated,
) -> None:
    printed = [line for line in generated.output if line.strip()]
    assert generated.returncode == 0, "\n".join(printed)
    assert printed == [f"Generating {generated.root / PACKAGE}"]


def test_the_generated_client_type_checks_and_every_module_imports(generated: Generated) -> None:
    (generated.root / "mypy.ini").write_text(MYPY_CONFIG)
    mypy = subprocess.run(
        [
            sys.executable, "-m", "mypy", "--config-file", "mypy.ini",
            "--cache-dir", str(generated.root / ".mypy_cache"), PACKAGE,
        ],
        cwd=generated.root,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )  # fmt: skip
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    package = importlib.import_module(PACKAGE)
    modules = [m.name for m in pkgutil.walk_packages(package.__path__, f"{PACKAGE}.")]
    for name in modules:
        importlib.import_module(name)
    assert f"{PACKAGE}.api.issues.list_issues_api_v_1_projects_project_id_issues_get" in modules


def next_cursor(headers: httpx.Headers | dict[str, str]) -> str | None:
    """The cursor of the ``Link: <...>; rel="next"`` header, if any."""
    found = re.search(r'<([^>]+)>;\s*rel="next"', dict(headers).get("link", ""))
    return httpx.URL(found.group(1)).params["cursor"] if found else None


@pytest.fixture
def ticking() -> Iterator[Any]:
    """A clock moved on by a second before each write, so that every write has its own time."""
    start = datetime(2031, 5, 6, 7, 0, tzinfo=UTC)
    moments = iter(start + timedelta(seconds=n) for n in range(1000))

    def tick() -> datetime:
        moment = next(moments)
        clock.set_now(moment)
        return moment

    yield tick
    clock.set_now(None)


async def test_a_sync_journey_through_the_generated_client(
    generated: Generated,
    app: Any,
    world: World,
    ticking: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from plumbline_client import AuthenticatedClient  # type: ignore[import-not-found]

    # The test's clock is frozen between writes: no settle window for updatedSince lists
    # (tests/app/test_sync_paging.py shows what the window is for).
    monkeypatch.setattr(settings, "sync_settle_seconds", 0)
    from plumbline_client.api.changes import (  # type: ignore[import-not-found]
        project_changes_api_v_1_projects_project_id_changes_get as project_changes,
    )
    from plumbline_client.api.issues import (  # type: ignore[import-not-found]
        create_issue_api_v_1_projects_project_id_issues_post as create_issue,
    )
    from plumbline_client.api.issues import (
        delete_issue_api_v_1_projects_project_id_issues_issue_id_delete as delete_issue,
    )
    from plumbline_client.api.issues import (
        get_issue_api_v_1_projects_project_id_issues_issue_id_get as get_issue,
    )
    from plumbline_client.api.issues import (
        list_issues_api_v_1_projects_project_id_issues_get as list_issues,
    )
    from plumbline_client.api.issues import (
        update_issue_api_v_1_projects_project_id_issues_issue_id_patch as update_issue,
    )
    from plumbline_client.models import (  # type: ignore[import-not-found]
        ChangesPage,
        ErrorBody,
        IssueCreate,
        IssueRead,
        IssueUpdate,
        IssueUpdatePriorityType0,
        Ok,
    )

    raw, _ = await create_api_key(world.project, ["project:read", "issues:read", "issues:write"])
    project = world.project.id
    async with AuthenticatedClient(
        base_url=ORIGIN,
        token=raw,
        prefix="",
        auth_header_name="x-api-key",
        httpx_args={"transport": httpx.ASGITransport(app=app)},
        raise_on_unexpected_status=True,
    ) as api:

        async def create(title: str) -> Any:
            ticking()
            made = await create_issue.asyncio(project, client=api, body=IssueCreate(title=title))
            assert isinstance(made, IssueRead), made
            return made

        async def follow(issues: dict[str, Any], since: str | None) -> str:
            """Apply the change feed to ``issues`` from ``since``, 2 changes a page; the cursor
            to go on from."""
            while True:
                page = await project_changes.asyncio(
                    project, client=api, since=since, types="issue", limit=2
                )
                assert isinstance(page, ChangesPage), page
                for change in page.changes:
                    assert change.type_ == "issue"
                    if isinstance(change.deleted_at, datetime):
                        issues.pop(change.id, None)
                    else:
                        # The feed's data is the issue as the API answered it: read it as one.
                        read = IssueRead.from_dict(change.data.to_dict())
                        issues[change.id] = read.to_dict()
                since = page.cursor
                if not page.has_more:
                    return since

        async def listed(**query: Any) -> dict[str, Any]:
            """Every page of the list, followed by its cursor (2 a page)."""
            rows: dict[str, Any] = {}
            cursor = None
            while True:
                page = await list_issues.asyncio_detailed(
                    project, client=api, limit=2, cursor=cursor, **query
                )
                assert page.status_code == 200 and isinstance(page.parsed, list), page.content
                assert not rows.keys() & {row.id for row in page.parsed}, "a row came twice"
                rows |= {row.id: row.to_dict() for row in page.parsed}
                cursor = next_cursor(page.headers)
                if cursor is None:
                    return rows

        early = [await create("Leaking valve"), await create("Cracked tile")]
        since = ticking()
        later = [await create(f"Loose handrail {n}") for n in range(4)]
        ticking()
        edited = await update_issue.asyncio(
            project,
            early[0].id,
            client=api,
            body=IssueUpdate(
                title="Leaking valve, 2nd floor", priority=IssueUpdatePriorityType0.HIGH
            ),
        )
        assert isinstance(edited, IssueRead) and edited.title == "Leaking valve, 2nd floor"
        assert edited.updated_at > since
        ticking()
        deleted = await delete_issue.asyncio(project, later[3].id, client=api)
        assert isinstance(deleted, Ok) and deleted.ok is True
        gone = await get_issue.asyncio_detailed(project, later[3].id, client=api)
        assert gone.status_code == 404 and isinstance(gone.parsed, ErrorBody)
        assert gone.parsed.code == "NOT_FOUND"

        changed = await listed(updated_since=since)
        assert set(changed) == {edited.id, *(issue.id for issue in later[:3])}
        everything = await listed()
        assert set(everything) == {early[1].id, *changed}
        for issue_id, row in everything.items():
            assert (await get_issue.asyncio(project, issue_id, client=api)).to_dict() == row
        assert everything[edited.id] == edited.to_dict()

        rebuilt: dict[str, Any] = {}
        cursor = await follow(rebuilt, None)
        assert rebuilt == everything
        ticking()
        await update_issue.asyncio(project, early[1].id, client=api, body=IssueUpdate(title="Tile"))
        ticking()
        await delete_issue.asyncio(project, later[0].id, client=api)
        cursor = await follow(rebuilt, cursor)
        assert rebuilt == await listed()
        assert early[1].id in rebuilt and later[0].id not in rebuilt
        assert await follow(rebuilt, cursor) == cursor

    async with AuthenticatedClient(
        base_url=ORIGIN,
        token="psk_" + "0" * 40,
        prefix="",
        auth_header_name="x-api-key",
        httpx_args={"transport": httpx.ASGITransport(app=app)},
    ) as stranger:
        refused = await create_issue.asyncio_detailed(
            project, client=stranger, body=IssueCreate(title="Not written")
        )
    assert refused.status_code == 401 and isinstance(refused.parsed, ErrorBody)
    assert refused.parsed.code == "UNAUTHORIZED"
