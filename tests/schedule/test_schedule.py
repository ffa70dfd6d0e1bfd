import asyncio
import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import Project, ScheduleTask
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_api_key,
    external,
    key_headers,
    make_world,
    set_project,
    set_workspace,
)

START = datetime(2027, 3, 1, 8, 0, tzinfo=UTC)


def url(project: Project, suffix: str = "") -> str:
    return f"/api/v1/projects/{project.id}/schedule{suffix}"


def at(days: float) -> str:
    return (START + timedelta(days=days)).isoformat().replace("+00:00", "Z")


def task(task_id: str, start: float = 0, end: float = 1, **extra: Any) -> dict[str, Any]:
    base = {"id": task_id, "name": f"Task {task_id}", "startDate": at(start), "endDate": at(end)}
    return base | extra


def chain(count: int, prefix: str = "t", assignee: str | None = None) -> list[dict[str, Any]]:
    """``count`` tasks, each finishing before the next starts (FS)."""
    tasks = []
    for i in range(count):
        extra: dict[str, Any] = {"status": "IN_PROGRESS", "progressPercent": i % 101}
        if i:
            extra["dependencies"] = [{"taskId": f"{prefix}{i - 1}", "type": "FS", "lagDays": 1}]
        if assignee:
            extra["assigneeId"] = assignee
        tasks.append(task(f"{prefix}{i}", i, i + 1, **extra))
    return tasks


async def task_count(project: Project) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(ScheduleTask.project_id == project.id)
        return int((await db.execute(query)).scalar_one())


async def put(client, world, tasks, headers=None):  # type: ignore[no-untyped-def]
    return await client.put(
        url(world.project), json={"tasks": tasks}, headers=headers or world.manager.headers
    )


async def test_empty_schedule_then_replace_and_read_back(client, world):
    empty = await client.get(url(world.project), headers=world.member.headers)
    assert empty.status_code == 200
    assert empty.json() == {"tasks": [], "version": 0, "updatedAt": None}
    tasks = [
        task("site", 0, 10, status="COMPLETED", progressPercent=100),
        task("dig", 1, 3, parentId="site", assigneeId=world.member.id),
        task(
            "pour",
            3,
            4,
            parentId="site",
            dependencies=[{"taskId": "dig", "type": "FS", "lagDays": 2}],
        ),
        task("handover", 10, 10, isMilestone=True, dependencies=[{"taskId": "pour"}]),
    ]
    response = await put(client, world, tasks)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["version"] == 1
    assert [t["id"] for t in body["tasks"]] == ["site", "dig", "pour", "handover"]
    assert body["tasks"][0]["status"] == "COMPLETED"
    assert body["tasks"][1]["assigneeId"] == world.member.id
    assert body["tasks"][1]["status"] == "NOT_STARTED"
    assert body["tasks"][2]["startDate"] == "2027-03-04T08:00:00.000Z"
    assert body["tasks"][3] == {
        "id": "handover",
        "name": "Task handover",
        "startDate": "2027-03-11T08:00:00.000Z",
        "endDate": "2027-03-11T08:00:00.000Z",
        "status": "NOT_STARTED",
        "progressPercent": 0,
        "parentId": None,
        "isMilestone": True,
        "assigneeId": None,
        "dependencies": [{"taskId": "pour", "type": "FS", "lagDays": 0}],
    }
    read = await client.get(url(world.project), headers=world.member.headers)
    assert read.json() == body
    # The next PUT replaces the whole schedule.
    again = await put(client, world, [task("only")])
    assert again.json()["version"] == 2
    assert [t["id"] for t in again.json()["tasks"]] == ["only"]
    assert await task_count(world.project) == 1
    entries = await audit_entries(world.project.id)
    replaced = [e for e in entries if e.action == "schedule.replaced"]
    assert [e.changes["tasks"] for e in replaced] == [[0, 4], [4, 1]]


async def test_task_ids_are_per_project(client, world):
    other = await make_world()
    assert (await put(client, world, [task("a")])).status_code == 200
    assert (await put(client, other, [task("a")])).status_code == 200
    assert (await put(client, world, [])).json()["tasks"] == []
    kept = await client.get(url(other.project), headers=other.member.headers)
    assert [t["id"] for t in kept.json()["tasks"]] == ["a"]


def detail_fields(response) -> list[str]:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    return [d["field"] for d in response.json()["details"]]


async def test_refusals_name_the_task_and_write_nothing(client, world):
    await put(client, world, [task("keep")])
    cases = [
        ([task("a"), task("a")], "tasks.1.id", "'a'"),
        ([task("a", 3, 2)], "tasks.0.endDate", "'a'"),
        ([task("a", parentId="ghost")], "tasks.0.parentId", "ghost"),
        ([task("a", parentId="a")], "tasks.0.parentId", "'a'"),
        ([task("a", parentId="b"), task("b", parentId="c"), task("c", parentId="a")],
         "tasks.", "parents form a cycle"),
        ([task("a", dependencies=[{"taskId": "nope"}])], "tasks.0.dependencies.0.taskId", "nope"),
        ([task("a", dependencies=[{"taskId": "a"}])], "tasks.0.dependencies.0.taskId", "itself"),
        ([task("a"), task("b", dependencies=[{"taskId": "a"}, {"taskId": "a"}])],
         "tasks.1.dependencies.1.taskId", "twice"),
        ([task("a", dependencies=[{"taskId": "c"}]), task("b", dependencies=[{"taskId": "a"}]),
          task("c", dependencies=[{"taskId": "b", "type": "SS"}])],
         "tasks.", "dependencies form a cycle"),
        ([task("a", assigneeId=new_id())], "tasks.0.assigneeId", "not a project member"),
        ([task("a", status="DONE")], "tasks.0.status", ""),
        ([task("a", progressPercent=101)], "tasks.0.progressPercent", ""),
        ([task("a", dependencies=[{"taskId": "b", "type": "XX"}])],
         "tasks.0.dependencies.0.type", ""),
        ([task("x" * 65)], "tasks.0.id", ""),
        ([{"id": "a", "name": "No dates"}], "tasks.0.startDate", ""),
    ]  # fmt: skip
    for tasks, field, words in cases:
        response = await put(client, world, tasks)
        fields = detail_fields(response)
        assert any(f.startswith(field) for f in fields), (tasks, response.json())
        assert words in response.json()["error"] + str(response.json()["details"]), response.json()
    read = await client.get(url(world.project), headers=world.member.headers)
    assert [t["id"] for t in read.json()["tasks"]] == ["keep"]
    assert read.json()["version"] == 1


async def test_too_many_tasks_is_refused(client, world):
    response = await put(client, world, [task(f"t{i}") for i in range(5001)])
    assert detail_fields(response) == ["tasks"]
    assert await task_count(world.project) == 0


async def test_an_assignee_must_see_the_project(client, world):
    contractor = await external(world, "CONTRACTOR")
    client_user = await external(world, "CLIENT")
    stranger = await make_world()
    ok = await put(client, world, [task("a", assigneeId=contractor.id)])
    assert ok.status_code == 200, ok.text
    for user_id in (client_user.id, stranger.member.id):
        assert detail_fields(await put(client, world, [task("a", assigneeId=user_id)])) == [
            "tasks.0.assigneeId"
        ]


async def test_who_reads_and_who_writes(client, world):
    assert (await put(client, world, [task("a")], world.member.headers)).status_code == 403
    for actor in (world.manager, world.admin, world.owner):
        assert (await put(client, world, [task("a")], actor.headers)).status_code == 200
    contractor = await external(world, "CONTRACTOR")
    assert (await client.get(url(world.project), headers=contractor.headers)).status_code == 200
    assert (await put(client, world, [task("b")], contractor.headers)).status_code == 403
    stranger = await make_world()
    assert (await client.get(url(world.project), headers=stranger.owner.headers)).status_code == 404
    assert (await put(client, world, [], stranger.owner.headers)).status_code == 404
    assert await task_count(world.project) == 1


async def test_api_key_scopes(client, world):
    read_key, _ = await create_api_key(world.project, scopes=["schedule:read"])
    write_key, _ = await create_api_key(world.project, scopes=["schedule:write"])
    other_key, _ = await create_api_key(world.project, scopes=["issues:read"])
    assert (await client.get(url(world.project), headers=key_headers(read_key))).status_code == 200
    refused = await put(client, world, [task("a")], key_headers(read_key))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: schedule:write"
    assert (await put(client, world, [task("a")], key_headers(write_key))).status_code == 200
    assert (await client.get(url(world.project), headers=key_headers(other_key))).status_code == 403
    entries = [e for e in await audit_entries(world.project.id) if e.action == "schedule.replaced"]
    assert entries[-1].actor_key_id is not None


async def test_module_switch_and_plan(client, world, monkeypatch):
    await set_project(world.project.id, modules={"schedule": False})
    response = await client.get(url(world.project), headers=world.member.headers)
    assert response.status_code == 403
    assert response.json()["code"] == "MODULE_DISABLED"
    await set_project(world.project.id, modules={})
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="active")
    assert (await put(client, world, [task("a")])).status_code == 200
    await set_workspace(world.workspace.id, subscription_status="canceled")
    lapsed = await put(client, world, [task("b")])
    assert lapsed.status_code == 402
    assert lapsed.json()["code"] == "SUBSCRIPTION_INACTIVE"
    assert (await client.get(url(world.project), headers=world.member.headers)).status_code == 200


async def test_two_concurrent_replacements_leave_one_whole_schedule(client, world):
    await put(client, world, chain(50, "old"))
    first, second = chain(300, "a", world.member.id), chain(200, "b")
    responses = await asyncio.gather(
        put(client, world, first), put(client, world, second, world.admin.headers)
    )
    assert [r.status_code for r in responses] == [200, 200], [r.text for r in responses]
    assert sorted(r.json()["version"] for r in responses) == [2, 3]
    last = max(responses, key=lambda r: r.json()["version"]).json()
    read = (await client.get(url(world.project), headers=world.member.headers)).json()
    ids = [t["id"] for t in read["tasks"]]
    assert ids in ([t["id"] for t in first], [t["id"] for t in second])
    assert read == last
    assert await task_count(world.project) == len(ids)


async def test_replacement_runs_a_fixed_number_of_statements(client, world):
    counts = []
    for size in (10, 5000):
        tasks = chain(size, new_id()[:8], world.member.id)
        with QueryCounter() as counter:
            response = await put(client, world, tasks)
        assert response.status_code == 200, response.text[:500]
        counts.append(counter.count)
    assert counts[0] == counts[1], counts


async def test_a_5000_task_schedule_round_trips(client, world):
    tasks = chain(5000, "task-", world.member.id)
    for i, item in enumerate(tasks):
        item["name"] = f"Level {i // 100} zone {i % 100}: install ductwork and inspect"
        if i % 10:
            item["parentId"] = f"task-{i - i % 10}"
    response = await put(client, world, tasks)
    assert response.status_code == 200, response.text[:500]
    with QueryCounter() as counter:
        read = await client.get(url(world.project), headers=world.member.headers)
    body = read.json()
    assert len(body["tasks"]) == 5000
    assert body == response.json()
    assert body["tasks"][4999]["parentId"] == "task-4990"
    assert body["tasks"][4999]["dependencies"] == [
        {"taskId": "task-4998", "type": "FS", "lagDays": 1}
    ]
    assert counter.count <= 3  # the credential, the schedule


async def test_export_csv_neutralises_formulas(client, world):
    tasks = [
        task("a", name='=HYPERLINK("x")'),
        task("b", dependencies=[{"taskId": "a", "type": "SS", "lagDays": -2}], isMilestone=True),
    ]
    assert (await put(client, world, tasks)).status_code == 200
    response = await client.get(url(world.project, "/export.csv"), headers=world.member.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][:4] == ["id", "name", "startDate", "endDate"]
    assert rows[1][1] == '\'=HYPERLINK("x")'
    assert rows[2][0] == "b"
    assert rows[2][7] == "true"
    assert rows[2][9] == "a SS-2"
    stranger = await make_world()
    refused = await client.get(url(world.project, "/export.csv"), headers=stranger.owner.headers)
    assert refused.status_code == 404


async def test_a_body_over_4_mib_is_413(client, world):
    tasks = [task(f"t{i}", name="x" * 450) for i in range(9000)]
    response = await put(client, world, tasks)
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert await task_count(world.project) == 0
