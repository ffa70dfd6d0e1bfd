import csv
import io
from datetime import UTC, datetime

from plumbline.kit import clock
from tests.factories import QueryCounter, add_member, create_project, create_user, external
from tests.punch.helpers import insert_items, url


async def create(client, world, **body):
    response = await client.post(url(world.project), json=body, headers=world.manager.headers)
    assert response.status_code == 200, response.text
    return response.json()


async def titles(client, world, params=None, headers=None):
    response = await client.get(
        url(world.project), params=params or {}, headers=headers or world.manager.headers
    )
    assert response.status_code == 200, response.text
    return [i["title"] for i in response.json()]


async def test_filters(client, world):
    clock.set_now(datetime(2026, 3, 1, tzinfo=UTC))
    await create(client, world, title="Door hinge", trade="Carpentry", priority="P1")
    clock.set_now(datetime(2026, 3, 5, tzinfo=UTC))
    b = await create(
        client, world, title="Outlet cover", trade="Electrical", assigneeIds=[world.member.id]
    )
    await create(client, world, title="Paint 100% done?", notes="check the door frame")
    await client.patch(
        url(world.project, f"/{b['id']}"),
        json={"status": "IN_PROGRESS"},
        headers=world.manager.headers,
    )

    assert await titles(client, world) == ["Paint 100% done?", "Outlet cover", "Door hinge"]
    assert await titles(client, world, {"status": "IN_PROGRESS"}) == ["Outlet cover"]
    assert await titles(client, world, {"priority": "P1"}) == ["Door hinge"]
    assert await titles(client, world, {"assigneeId": world.member.id}) == ["Outlet cover"]
    assert await titles(client, world, {"trade": "Carpentry"}) == ["Door hinge"]
    assert await titles(client, world, {"q": "DOOR"}) == ["Paint 100% done?", "Door hinge"]
    assert await titles(client, world, {"q": "100%"}) == ["Paint 100% done?"]
    assert await titles(client, world, {"q": "0%"}) == ["Paint 100% done?"]
    assert await titles(client, world, {"q": "_"}) == []
    clock.set_now(datetime(2026, 3, 5, 0, 1, tzinfo=UTC))  # past the sync settle window
    # Oldest change first, by id within one instant.
    assert await titles(client, world, {"updatedSince": "2026-03-04T00:00:00Z"}) == [
        "Outlet cover",
        "Paint 100% done?",
    ]
    for bad in ({"status": "DONE"}, {"priority": "HIGH"}, {"updatedSince": "yesterday"}):
        response = await client.get(url(world.project), params=bad, headers=world.manager.headers)
        assert response.status_code == 400


async def test_pagination(client, world):
    for n in range(5):
        await create(client, world, title=f"Item {n}")
    seen: list[str] = []
    next_url = url(world.project) + "?limit=2"
    pages = 0
    while next_url:
        response = await client.get(next_url, headers=world.manager.headers)
        assert response.status_code == 200
        seen += [i["title"] for i in response.json()]
        pages += 1
        link = response.headers.get("link")
        next_url = link[1 : link.index(">")] if link else None
    assert pages == 3
    assert seen == [f"Item {n}" for n in reversed(range(5))]
    bad = await client.get(url(world.project), params={"limit": 0}, headers=world.manager.headers)
    assert bad.status_code == 400


async def count_list_queries(client, project, headers) -> tuple[int, int]:
    with QueryCounter() as counter:
        response = await client.get(url(project), params={"limit": 1000}, headers=headers)
    assert response.status_code == 200
    return counter.count, len(response.json())


async def test_list_runs_a_fixed_number_of_queries(client, world):
    small = await create_project(world.workspace, name="Small")
    large = await create_project(world.workspace, name="Large")
    await insert_items(small, 1, assignee_id=world.member.id)
    await insert_items(large, 500, assignee_id=world.member.id)
    one = await count_list_queries(client, small, world.member.headers)
    many = await count_list_queries(client, large, world.member.headers)
    assert one[1] == 1 and many[1] == 500
    assert one[0] == many[0]


async def test_contractor_list_runs_a_fixed_number_of_queries(client, world):
    contractor = await external(world, "CONTRACTOR")
    await insert_items(world.project, 300, assignee_id=contractor.id)
    count, rows = await count_list_queries(client, world.project, contractor.headers)
    assert rows == 300
    await create(client, world, title="Not theirs")
    assert (await count_list_queries(client, world.project, contractor.headers)) == (count, 300)
    other = await create_project(world.workspace, name="Other")
    solo = await create_user()
    await add_member(
        world.workspace, solo, "MEMBER", external_role="CONTRACTOR", project_ids=[other.id]
    )
    await insert_items(other, 1, assignee_id=solo.id)
    assert (await count_list_queries(client, other, solo.headers)) == (count, 1)


def parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


async def test_csv_export(client, world):
    clock.set_now(datetime(2026, 4, 2, 9, 30, tzinfo=UTC))
    a = await create(
        client,
        world,
        title="Caulk window",
        location="Unit 3",
        trade="Glazing",
        priority="P1",
        dueDate="2026-04-10",
        notes="line one\nline two, with comma",
        assigneeIds=[world.member.id, world.admin.id],
    )
    b = await create(client, world, title='=HYPERLINK("http://evil")')
    await create(client, world, title="Deleted one")
    listed = (await client.get(url(world.project), headers=world.manager.headers)).json()
    deleted = next(i for i in listed if i["title"] == "Deleted one")
    await client.delete(url(world.project, f"/{deleted['id']}"), headers=world.manager.headers)

    response = await client.get(url(world.project, "/export.csv"), headers=world.member.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = parse(response.text)
    assert [r["id"] for r in rows] == [b["id"], a["id"]]
    assert rows[1] == {
        "punchNumber": str(a["punchNumber"]),
        "title": "Caulk window",
        "status": "OPEN",
        "priority": "P1",
        "location": "Unit 3",
        "trade": "Glazing",
        "assignees": (
            f"Mel Member <{world.member.user.email}>; Ada Admin <{world.admin.user.email}>"
        ),
        "dueDate": "2026-04-10",
        "notes": "line one\nline two, with comma",
        "closedAt": "",
        "createdAt": "2026-04-02T09:30:00.000Z",
        "updatedAt": "2026-04-02T09:30:00.000Z",
        "id": a["id"],
    }
    assert rows[0]["title"] == '\'=HYPERLINK("http://evil")'

    filtered = await client.get(
        url(world.project, "/export.csv"), params={"priority": "P1"}, headers=world.member.headers
    )
    assert [r["id"] for r in parse(filtered.text)] == [a["id"]]


async def test_csv_export_reads_every_batch(client, world):
    project = await create_project(world.workspace, name="Big")
    await insert_items(project, 1203)
    response = await client.get(url(project, "/export.csv"), headers=world.member.headers)
    rows = parse(response.text)
    assert len(rows) == 1203
    assert sorted(int(r["punchNumber"]) for r in rows) == list(range(1, 1204))


async def test_csv_export_for_contractors_is_limited_to_their_items(client, world):
    contractor = await external(world, "CONTRACTOR")
    mine = await create(client, world, title="Mine", assigneeIds=[contractor.id])
    await create(client, world, title="Not mine")
    response = await client.get(url(world.project, "/export.csv"), headers=contractor.headers)
    assert [r["id"] for r in parse(response.text)] == [mine["id"]]
