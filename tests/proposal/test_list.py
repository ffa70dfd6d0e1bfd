"""GET /projects/{p}/proposals: filters (status, q, clientEmail, updatedSince) and paging."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Proposal
from tests.factories import QueryCounter, make_world
from tests.proposal.test_endpoints import create, insert_proposals, set_status, url

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


async def titles(client, world, query):  # type: ignore[no-untyped-def]
    response = await client.get(url(world.project, query), headers=world.member.headers)
    assert response.status_code == 200, response.text
    return [row["title"] for row in response.json()]


@pytest.fixture
async def three(client, world):  # type: ignore[no-untyped-def]
    clock.set_now(T0)
    a = await create(
        client, world, title="Roof repair", clientName="Zoë Müller", clientEmail="Zoe@Example.com"
    )
    clock.set_now(T0 + timedelta(days=1))
    b = await create(
        client,
        world,
        title="Lobby 50% refit",
        clientCompany="Harbour Estates",
        clientEmail="h@x.io",
    )
    clock.set_now(T0 + timedelta(days=2))
    c = await create(client, world, title="Car park lighting", clientName="Dana")
    await set_status(b["id"], "SENT")
    await set_status(c["id"], "ACCEPTED")
    return a, b, c


async def test_status_filter(client, world, three):
    assert await titles(client, world, "?status=SENT") == ["Lobby 50% refit"]
    assert await titles(client, world, "?status=DRAFT,ACCEPTED") == [
        "Car park lighting",
        "Roof repair",
    ]
    # A SENT proposal past its validUntil is shown, and filtered, as EXPIRED.
    async with database.sessionmaker() as db:
        lapse = update(Proposal).where(Proposal.id == three[1]["id"]).values(valid_until=T0)
        await db.execute(lapse)
        await db.commit()
    assert await titles(client, world, "?status=SENT") == []
    assert await titles(client, world, "?status=EXPIRED") == ["Lobby 50% refit"]
    response = await client.get(url(world.project, "?status=OPEN"), headers=world.member.headers)
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "status"


async def test_text_search(client, world, three):
    _, b, _ = three
    assert await titles(client, world, "?q=roof") == ["Roof repair"]
    assert await titles(client, world, "?q=müller") == ["Roof repair"]
    assert await titles(client, world, "?q=harbour") == ["Lobby 50% refit"]
    assert await titles(client, world, f"?q={b['reference']}") == ["Lobby 50% refit"]
    # LIKE wildcards are searched as text.
    assert await titles(client, world, "?q=50%25") == ["Lobby 50% refit"]
    assert await titles(client, world, "?q=_") == []
    assert await titles(client, world, "?q=nothing-like-it") == []


async def test_client_email_is_exact_and_case_insensitive(client, world, three):
    assert await titles(client, world, "?clientEmail=zoe@example.com") == ["Roof repair"]
    assert await titles(client, world, "?clientEmail=ZOE@EXAMPLE.COM") == ["Roof repair"]
    assert await titles(client, world, "?clientEmail=example.com") == []


async def test_updated_since(client, world, three):
    since = "2026-11-21T09:00:00Z"
    clock.set_now(T0 + timedelta(days=2, minutes=1))  # past the sync settle window
    assert await titles(client, world, f"?updatedSince={since}") == [  # oldest change first
        "Lobby 50% refit",
        "Car park lighting",
    ]
    response = await client.get(
        url(world.project, "?updatedSince=yesterday"), headers=world.member.headers
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "updatedSince"


async def test_filters_combine(client, world, three):
    assert await titles(client, world, "?status=DRAFT&q=lighting") == []
    assert await titles(client, world, "?status=ACCEPTED&q=lighting") == ["Car park lighting"]


async def test_paging_follows_the_link(client, world, three):
    first = await client.get(url(world.project, "?limit=2"), headers=world.member.headers)
    assert [row["title"] for row in first.json()] == ["Car park lighting", "Lobby 50% refit"]
    link = first.headers["link"]
    next_url = link[link.index("<") + 1 : link.index(">")]
    second = await client.get(next_url, headers=world.member.headers)
    assert [row["title"] for row in second.json()] == ["Roof repair"]
    assert "link" not in second.headers


async def test_filtered_list_runs_the_same_queries_for_1_and_500(client):
    counts = []
    for size in (1, 500):
        world = await make_world()
        await insert_proposals(world.project, size)
        with QueryCounter() as counter:
            response = await client.get(
                url(world.project, "?limit=1000&status=DRAFT&q=proposal"),
                headers=world.member.headers,
            )
        assert response.status_code == 200, response.text
        assert len(response.json()) == size
        counts.append(counter.count)
    assert counts[0] == counts[1]
