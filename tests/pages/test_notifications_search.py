"""The notifications page, the bell, global search and the palette's answers through HTTP, and
the live stream that tells a tab a notification arrived (a real socket: SSE)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import select

from plumbline.db import database
from plumbline.models import Notification
from plumbline.pages.kit.nav import page_for
from tests.factories import PAGE_CSRF, World, external, make_world
from tests.viewer.helpers import EventStream, in_process_server, live_client

pytestmark = pytest.mark.usefixtures("world")


async def assign(client: httpx.AsyncClient, world: World, title: str, to: str) -> dict:
    answer = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": title, "assigneeId": to},
        headers=world.manager.headers,
    )
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


async def unread(user_id: str) -> list[str]:
    async with database.sessionmaker() as db:
        query = select(Notification.id).where(
            Notification.user_id == user_id, Notification.read_at.is_(None)
        )
        return list((await db.execute(query)).scalars())


async def test_the_list_opens_a_notification_at_its_page_and_marks_it_read(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await assign(client, world, "<b>Leak</b> at grid C4", world.member.id)
    await assign(client, world, "Someone else's", world.admin.id)
    page = await client.get("/app/notifications", headers=world.member.page_headers)
    assert page.status_code == 200
    assert "&lt;b&gt;Leak&lt;/b&gt; at grid C4" in page.text and "<b>Leak" not in page.text
    assert "Someone else" not in page.text
    assert 'aria-label="Notifications: 1 unread"' in page.text
    [mine] = await unread(world.member.id)
    opened = await client.post(
        f"/app/notifications/{mine}/open",
        data={"csrf": PAGE_CSRF},
        headers=world.member.page_headers,
    )
    assert opened.status_code == 303
    assert opened.headers["location"] == f"/app/projects/{world.project.id}/issues/{issue['id']}"
    assert await unread(world.member.id) == []
    unread_tab = await client.get(
        "/app/notifications?show=unread", headers=world.member.page_headers
    )
    assert "You are all caught up" in unread_tab.text


async def test_another_persons_notification_and_a_stale_form_change_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    await assign(client, world, "For the admin", world.admin.id)
    [theirs] = await unread(world.admin.id)
    refused = await client.post(
        f"/app/notifications/{theirs}/open",
        data={"csrf": PAGE_CSRF},
        headers=world.member.page_headers,
    )
    assert refused.status_code == 404 and "<html" in refused.text
    stale = await client.post(
        "/app/notifications/read-all", data={"csrf": "stale"}, headers=world.admin.page_headers
    )
    assert stale.status_code == 403
    assert await unread(world.admin.id) == [theirs]


async def test_mark_all_read_says_how_many_and_the_bell_follows(
    client: httpx.AsyncClient, world: World
) -> None:
    for n in range(3):
        await assign(client, world, f"Task {n}", world.member.id)
    bell = await client.get("/app/notifications/bell", headers=world.member.headers)
    assert bell.status_code == 200 and "<html" not in bell.text
    assert 'id="bell"' in bell.text and ">3<" in bell.text
    done = await client.post(
        "/app/notifications/read-all", data={"csrf": PAGE_CSRF}, headers=world.member.page_headers
    )
    assert done.status_code == 303
    flash = done.cookies["plumbline_flash"]
    cookie = f"{world.member.page_headers['Cookie']}; plumbline_flash={flash}"
    after = await client.get("/app/notifications", headers={"Cookie": cookie})
    assert "3 notifications marked read." in after.text
    assert await unread(world.member.id) == []
    bell = await client.get("/app/notifications/bell", headers=world.member.headers)
    assert 'class="count"' not in bell.text


def test_a_notification_links_to_the_page_of_its_area_or_the_project() -> None:
    assert page_for("/projects/p1/issues/i1") == "/app/projects/p1/issues/i1"
    # An area without pages yet: the project's home rather than a 404.
    assert page_for("/projects/p1/rfi/r1") == "/app/projects/p1"
    assert page_for(None) == "/app/" and page_for("https://evil.example/x") == "/app/"


async def test_search_finds_issues_by_number_or_title_and_projects_by_name(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await assign(client, world, "Cracked slab on level 3", world.member.id)
    base = f"/app/search?workspace={world.workspace.id}&project={world.project.id}"
    by_title = await client.get(base + "&q=slab", headers=world.member.headers)
    assert by_title.status_code == 200
    assert f"/app/projects/{world.project.id}/issues/{issue['id']}" in by_title.text
    by_number = await client.get(base + f"&q=%23{issue['number']}", headers=world.member.headers)
    assert f"#{issue['number']} Cracked slab" in by_number.text
    project = await client.get(base + "&q=tower", headers=world.member.headers)
    assert f'href="/app/projects/{world.project.id}"' in project.text
    commands = await client.get(base + "&q=new", headers=world.member.headers)
    assert "New issue" in commands.text and "New project" not in commands.text  # a MEMBER
    manager = await client.get(base + "&q=new", headers=world.manager.headers)
    assert "New project" in manager.text


async def test_the_palette_gets_its_results_alone(client: httpx.AsyncClient, world: World) -> None:
    await assign(client, world, "Fire door sticks", world.member.id)
    answer = await client.get(
        f"/app/search?q=fire&project={world.project.id}",
        headers={**world.member.headers, "HX-Request": "true", "HX-Target": "palette-results"},
    )
    assert answer.text.lstrip().startswith('<div id="palette-results"')
    assert "Fire door sticks" in answer.text and "<html" not in answer.text


async def test_search_sees_only_what_the_person_may_open(
    client: httpx.AsyncClient, world: World
) -> None:
    await assign(client, world, "Internal punch walk", world.member.id)
    contractor = await external(world, "CONTRACTOR")
    theirs = await client.get(
        f"/app/search?q=punch&project={world.project.id}", headers=contractor.headers
    )
    assert theirs.status_code == 200 and "Internal punch walk" not in theirs.text
    other = await make_world()
    await client.post(
        f"/api/v1/projects/{other.project.id}/issues",
        json={"title": "Secret rooftop plant"},
        headers=other.manager.headers,
    )
    crossing = await client.get(
        f"/app/search?q=rooftop&workspace={other.workspace.id}&project={other.project.id}",
        headers=world.member.headers,
    )
    assert crossing.status_code == 200 and "Secret rooftop" not in crossing.text
    assert other.project.name not in crossing.text or other.project.name == world.project.name


@pytest.fixture
async def live(app) -> AsyncIterator[httpx.AsyncClient]:  # type: ignore[no-untyped-def]
    async with in_process_server(app) as url, live_client(url) as client:
        yield client


async def test_a_tab_hears_of_a_new_notification_and_of_the_projects_changes(
    live: httpx.AsyncClient, world: World
) -> None:
    path = f"/app/projects/{world.project.id}/live"
    async with (
        EventStream(live, path, world.member.headers) as tab,
        EventStream(live, "/app/live", world.member.headers) as outside,
    ):
        assert tab.response is not None and tab.response.status_code == 200
        issue = await assign(live, world, "Water in the lift pit", world.member.id)
        names: set[str] = set()
        while not {"change", "notification"} <= names:  # in either order
            event = await tab.next()
            assert event is not None
            names.add(event[0])
        [change] = [m for name, m in tab.seen if name == "change" and m["id"] == issue["id"]]
        assert change["resource"] == "issue" and change["by"] == world.manager.id
        assert ("notification", {"type": "notification"}) in tab.seen
        assert await outside.expect("notification") == {"type": "notification"}
        # Nothing of the record travels: the tab asks for the bell, through the access checks.
        assert "Water" not in str(tab.seen)
