"""The workspace home and the project home through HTTP: their figures with known data, creating
a project, the external's reduced homes, another workspace, and a fixed number of statements."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Project
from tests.factories import (
    PAGE_CSRF,
    Actor,
    QueryCounter,
    World,
    create_project,
    external,
    make_world,
    set_workspace,
)


def day(offset: int) -> str:
    return (clock.today() + timedelta(days=offset)).isoformat()


async def post(client: httpx.AsyncClient, actor: Actor, path: str, **body: Any) -> Any:
    answer = await client.post(f"/api/v1{path}", json=body, headers=actor.headers)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


async def patch(client: httpx.AsyncClient, actor: Actor, path: str, **body: Any) -> Any:
    answer = await client.patch(f"/api/v1{path}", json=body, headers=actor.headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def records(client: httpx.AsyncClient, world: World, project: Project) -> None:
    """Open: 3 issues (2 overdue; one a work order), an RFI (overdue), a punch item (due later);
    not open: a closed overdue issue, an answered RFI. 5 open items, 3 overdue."""
    base, m = f"/projects/{project.id}", world.manager
    await post(client, m, f"{base}/issues", title="Leak at grid C-3", dueDate=day(-2))
    await post(
        client,
        m,
        f"{base}/issues",
        title="Replace fan belt",
        issueKind="WORK_ORDER",
        dueDate=day(-1),
        assigneeId=m.id,
    )
    await post(client, m, f"{base}/issues", title="Touch-up paint", dueDate=day(3))
    closed = await post(client, m, f"{base}/issues", title="Old one", dueDate=day(-9))
    await patch(client, m, f"{base}/issues/{closed['id']}", status="CLOSED")
    await post(
        client, m, f"{base}/rfi", title="Slab edge", question="Which governs?", dueDate=day(-1)
    )
    await post(client, m, f"{base}/punch", title="Outlet cover", dueDate=day(4), assigneeIds=[m.id])


def card(html: str, project_id: str) -> str:
    found = re.search(
        rf'<a class="card-link project-card" href="/app/projects/{project_id}">(.*?)</a>',
        html,
        re.S,
    )
    assert found, html
    return found.group(1)


def tiles(html: str) -> dict[str, tuple[str, str | None]]:
    """Each tile's label: (its value, the list it opens)."""
    found = re.findall(
        r'<(?:a|div) class="tile[^"]*"(?: href="([^"]*)")?>\s*'
        r'<span class="tile-value">([^<]*)</span><span class="tile-label">([^<]*)</span>',
        html,
    )
    return {label: (value, href.replace("&amp;", "&") or None) for href, value, label in found}


async def test_the_workspace_home_shows_each_project_with_its_open_and_overdue_items(
    client: httpx.AsyncClient, world: World
) -> None:
    await records(client, world, world.project)
    quiet = await create_project(world.workspace, name="<b>Quiet</b> Depot", stage="Completed")
    page = await client.get(f"/app/workspaces/{world.workspace.id}", headers=world.member.headers)
    assert page.status_code == 200
    html = page.text
    busy = card(html, world.project.id)
    assert "<strong>5</strong> open items" in busy and "<strong>3</strong> overdue" in busy
    # The completed project apart, after the active ones, its name as text.
    done = card(html, quiet.id)
    assert "&lt;b&gt;Quiet&lt;/b&gt; Depot" in done and "<b>Quiet</b>" not in html
    assert "<strong>0</strong> open items" in done
    assert html.index("Completed and on hold") < html.index(f"/app/projects/{quiet.id}")
    assert html.index(f"/app/projects/{world.project.id}") < html.index("Completed and on hold")
    # The figures over the active projects, the dashboard with its 14 days.
    figures = tiles(html)
    assert figures["Active projects"][0] == "1"
    assert figures["Open items"][0] == "5" and figures["Overdue items"][0] == "3"
    assert figures["People"][0] == "4"
    assert html.count('<rect class="bar"') == 14
    today = re.findall(r"<title>([^<]*): (\d+)</title>", html)[-1]
    assert today[1] == "7"  # today: the 6 records made through the API and one closed
    assert "Storage used" in html


async def test_only_managers_and_above_are_offered_a_new_project(
    client: httpx.AsyncClient, world: World
) -> None:
    new = f"/app/workspaces/{world.workspace.id}/projects/new"
    member = await client.get(f"/app/workspaces/{world.workspace.id}", headers=world.member.headers)
    assert new not in member.text
    refused = await client.post(
        new, data={"csrf": PAGE_CSRF, "name": "Not mine"}, headers=world.member.page_headers
    )
    assert refused.status_code == 403 and "<h1" in refused.text
    manager = await client.get(
        f"/app/workspaces/{world.workspace.id}", headers=world.manager.headers
    )
    assert f'href="{new}"' in manager.text


async def test_creating_a_project_from_the_home(client: httpx.AsyncClient, world: World) -> None:
    url = f"/app/workspaces/{world.workspace.id}/projects/new"
    form = {
        "csrf": PAGE_CSRF,
        "name": "Pier 9 Terminal",
        "stage": "Execution",
        "currency": "USD",
        "timezone": "UTC",
        "startDate": day(10),
        "endDate": day(2),
    }
    # A finish before the start: kept, with the error beside the field.
    bad = await client.post(
        url, data=form | {"submission": "p-1"}, headers=world.manager.page_headers
    )
    assert bad.status_code == 400 and 'id="f-endDate-error"' in bad.text
    assert 'value="Pier 9 Terminal"' in bad.text
    form["endDate"] = day(300)
    first = await client.post(
        url, data=form | {"submission": "p-2"}, headers=world.manager.page_headers
    )
    again = await client.post(
        url, data=form | {"submission": "p-2"}, headers=world.manager.page_headers
    )
    assert first.status_code == again.status_code == 303
    assert first.headers["location"] == again.headers["location"]
    async with database.sessionmaker() as db:
        made = await db.scalar(
            select(func.count()).where(
                Project.workspace_id == world.workspace.id, Project.name == "Pier 9 Terminal"
            )
        )
    assert made == 1
    home = await client.get(first.headers["location"], headers=world.manager.headers)
    assert home.status_code == 200 and "<h1>Pier 9 Terminal</h1>" in home.text
    listed = await client.get(
        f"/app/workspaces/{world.workspace.id}", headers=world.manager.headers
    )
    assert "Pier 9 Terminal" in listed.text


async def test_the_project_home_has_its_numbers_its_changes_and_what_is_mine(
    client: httpx.AsyncClient, world: World
) -> None:
    await records(client, world, world.project)
    base = f"/projects/{world.project.id}/proposals"
    proposal = await post(
        client,
        world.member,
        base,
        title="Fit-out",
        validUntil=f"{day(30)}T17:00:00Z",
        clientName="Ann Client",
        clientEmail="ann.client@example.com",
        items=[{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
    )
    await post(client, world.member, f"{base}/{proposal['id']}/send")
    await post(client, world.member, base, title="Draft only", validUntil=f"{day(30)}T17:00:00Z")
    path = f"/app/projects/{world.project.id}"
    page = await client.get(path, headers=world.manager.headers)
    assert page.status_code == 200
    html = page.text
    figures = tiles(html)
    assert figures["Open issues"] == ("3", f"{path}/issues?status=OPEN,IN_PROGRESS")
    assert figures["Overdue items"][0] == "3"
    # RFIs and proposals have no pages yet: their figures are shown, not linked to a 404.
    assert figures["Open RFIs"] == ("1", None)
    assert figures["Open punch items"][0] == "1"
    assert figures["Open work orders"] == (
        "1",
        f"{path}/issues?issueKind=WORK_ORDER&status=OPEN,IN_PROGRESS",
    )
    assert figures["Proposals pending"] == ("1", None)
    # What changed, in words; the latest first.
    recent = html[html.index("Recent changes") :]
    assert "Mel Member</strong> sent" in recent and "proposal" in recent
    assert re.search(
        r"Max Manager</strong> moved <a [^>]*>issue #\d+ “Old one”</a> to Closed", recent
    )
    assert recent.index("sent") < recent.index("Old one")
    # Mine: the manager's work order (overdue) and punch item, the soonest first.
    mine = html[html.index("Assigned to me") : html.index("Recent changes")]
    assert "Replace fan belt" in mine and "Outlet cover" in mine and "Leak at grid" not in mine
    assert mine.index("Replace fan belt") < mine.index("Outlet cover")
    assert "overdue since" in mine
    # Quick actions and the modules on.
    assert f'href="{path}/issues/new"' in html
    assert "<li>Proposals</li>" in html and "<li>Issues</li>" in html
    # The member has nothing assigned.
    theirs = await client.get(path, headers=world.member.headers)
    assert "Nothing open is assigned to you here." in theirs.text
    # The JSON dashboard has the same figure, as the OpenAPI describes it.
    board = await client.get(
        f"/api/v1/projects/{world.project.id}/dashboard", headers=world.member.headers
    )
    assert board.json()["proposals"] == {"pending": 1}


async def test_externals_get_reduced_homes(client: httpx.AsyncClient, world: World) -> None:
    await records(client, world, world.project)
    contractor = await external(world, "CONTRACTOR", name="Cory Contractor")
    issue = await post(
        client,
        world.manager,
        f"/projects/{world.project.id}/issues",
        title="Wire the wet bar GFCIs",
        dueDate=day(2),
        assigneeId=contractor.id,
    )
    other = await create_project(world.workspace, name="Not Theirs")
    home = await client.get(f"/app/workspaces/{world.workspace.id}", headers=contractor.headers)
    assert home.status_code == 200
    assert world.project.name in home.text and "Not Theirs" not in home.text
    assert "open item" not in home.text and "Activity, last 14 days" not in home.text
    assert "/projects/new" not in home.text
    page = await client.get(f"/app/projects/{world.project.id}", headers=contractor.headers)
    assert page.status_code == 200
    html = page.text
    assert "Wire the wet bar GFCIs" in html and f"/issues/{issue['id']}" in html
    assert "Leak at grid" not in html  # not theirs
    assert 'class="tile' not in html and "Recent changes" not in html
    refused = await client.get(f"/app/projects/{other.id}", headers=contractor.headers)
    assert refused.status_code == 404


async def test_another_workspace_gets_the_404_page(client: httpx.AsyncClient, world: World) -> None:
    stranger = await make_world()
    for path in (f"/app/workspaces/{world.workspace.id}", f"/app/projects/{world.project.id}"):
        answer = await client.get(path, headers=stranger.owner.headers)
        assert answer.status_code == 404 and "<h1" in answer.text
        assert world.project.name not in answer.text


async def _statements(client: httpx.AsyncClient, actor: Actor, path: str) -> int:
    with QueryCounter() as counter:
        answer = await client.get(path, headers=actor.headers)
    assert answer.status_code == 200, answer.text
    return counter.count


async def test_the_homes_run_a_fixed_number_of_statements(client: httpx.AsyncClient) -> None:
    world = await make_world()
    home = f"/app/workspaces/{world.workspace.id}"
    project_home = f"/app/projects/{world.project.id}"
    await records(client, world, world.project)
    one = await _statements(client, world.manager, home)
    one_project = await _statements(client, world.manager, project_home)
    for n in range(5):
        more = await create_project(world.workspace, name=f"Block {n}", stage="Execution")
        await records(client, world, more)
    await records(client, world, world.project)
    await post(client, world.member, f"/projects/{world.project.id}/rfi", title="Another")
    assert await _statements(client, world.manager, home) == one
    assert await _statements(client, world.manager, project_home) == one_project


async def test_storage_is_shown_against_the_plans_limit_when_there_is_one(
    client: httpx.AsyncClient, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await set_workspace(world.workspace.id, storage_used_bytes=3_000_000_000)
    home = f"/app/workspaces/{world.workspace.id}"
    unlimited = await client.get(home, headers=world.owner.headers)
    assert "3.0 GB" in unlimited.text and "<meter" not in unlimited.text
    monkeypatch.setattr(settings, "billing", "local")  # the trial's 10 GiB
    limited = await client.get(home, headers=world.owner.headers)
    assert "3.0 GB of 10.7 GB" in limited.text
    assert re.search(
        r'<meter class="meter" min="0" max="10737418240"[^>]* value="3000000000"', limited.text
    )
