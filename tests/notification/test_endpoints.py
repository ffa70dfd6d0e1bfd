"""GET /me/notifications, PATCH /me/notifications/read, POST /me/notifications/read-all."""

from sqlalchemy import insert, select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Notification
from plumbline.notification.service import notification
from tests.factories import QueryCounter, create_user

FIELDS = {"id", "kind", "title", "body", "href", "workspaceId", "projectId", "readAt", "createdAt"}


async def _notify(user_id: str, count: int = 1, **values) -> None:
    async with database.sessionmaker() as db:
        for n in range(count):
            await notification.notify(
                db,
                [user_id],
                kind=values.get("kind", "ISSUE_ASSIGNED"),
                title=values.get("title", f"Issue {n} assigned"),
                body=values.get("body"),
                href=values.get("href", f"/projects/p/issues/{n}"),
                workspace_id=values.get("workspace_id"),
                project_id=values.get("project_id"),
            )
        await db.commit()


async def _unread(user_id: str) -> int:
    async with database.sessionmaker() as db:
        rows = await db.execute(
            select(Notification.id).where(
                Notification.user_id == user_id, Notification.read_at.is_(None)
            )
        )
        return len(rows.all())


async def test_list_shows_only_the_callers_notifications_newest_first(client, world):
    me, other = await create_user(), await create_user()
    await _notify(
        me.id,
        kind="RFI_ANSWERED",
        title="RFI 7 answered",
        body="See the answer",
        href="/projects/x/rfi/7",
        workspace_id=world.workspace.id,
        project_id=world.project.id,
    )
    await _notify(me.id, title="Second")
    await _notify(other.id, title="Not yours")

    response = await client.get("/api/v1/me/notifications", headers=me.headers)
    assert response.status_code == 200
    rows = response.json()
    assert [r["title"] for r in rows] == ["Second", "RFI 7 answered"]
    assert set(rows[1]) == FIELDS
    assert rows[1] | {"id": None, "createdAt": None} == {
        "id": None,
        "kind": "RFI_ANSWERED",
        "title": "RFI 7 answered",
        "body": "See the answer",
        "href": "/projects/x/rfi/7",
        "workspaceId": world.workspace.id,
        "projectId": world.project.id,
        "readAt": None,
        "createdAt": None,
    }
    assert rows[1]["createdAt"].endswith("Z")


async def test_pagination_and_unread_filter(client):
    me = await create_user()
    await _notify(me.id, count=5)
    first = await client.get("/api/v1/me/notifications?limit=2", headers=me.headers)
    assert len(first.json()) == 2
    next_url = first.headers["link"].split(";")[0].strip("<>")
    second = await client.get(next_url, headers=me.headers)
    third_url = second.headers["link"].split(";")[0].strip("<>")
    third = await client.get(third_url, headers=me.headers)
    ids = [r["id"] for r in first.json() + second.json() + third.json()]
    assert len(ids) == 5 and ids == sorted(ids, reverse=True)
    assert "link" not in third.headers

    read = await client.patch(
        "/api/v1/me/notifications/read", json={"ids": ids[:2]}, headers=me.headers
    )
    assert read.json() == {"updated": 2}
    unread = await client.get("/api/v1/me/notifications?unreadOnly=true", headers=me.headers)
    assert [r["id"] for r in unread.json()] == ids[2:]
    everything = (await client.get("/api/v1/me/notifications", headers=me.headers)).json()
    assert all(r["readAt"] for r in everything[:2]) and not everything[2]["readAt"]

    bad = await client.get("/api/v1/me/notifications?limit=0", headers=me.headers)
    assert bad.status_code == 400
    bad_cursor = await client.get("/api/v1/me/notifications?cursor=_w", headers=me.headers)
    assert bad_cursor.status_code == 400


async def test_mark_read_only_touches_the_callers_notifications(client):
    me, other = await create_user(), await create_user()
    await _notify(me.id, count=2)
    await _notify(other.id, count=2)
    mine = [
        r["id"] for r in (await client.get("/api/v1/me/notifications", headers=me.headers)).json()
    ]
    theirs = [
        r["id"]
        for r in (await client.get("/api/v1/me/notifications", headers=other.headers)).json()
    ]
    response = await client.patch(
        "/api/v1/me/notifications/read", json={"ids": [mine[0], *theirs]}, headers=me.headers
    )
    assert response.status_code == 200 and response.json() == {"updated": 1}
    assert await _unread(me.id) == 1 and await _unread(other.id) == 2
    again = await client.patch(
        "/api/v1/me/notifications/read", json={"ids": [mine[0]]}, headers=me.headers
    )
    assert again.json() == {"updated": 0}
    empty = await client.patch(
        "/api/v1/me/notifications/read", json={"ids": []}, headers=me.headers
    )
    assert empty.json() == {"updated": 0}


async def test_read_all_only_touches_the_callers_notifications(client):
    me, other = await create_user(), await create_user()
    await _notify(me.id, count=3)
    await _notify(other.id, count=2)
    response = await client.post("/api/v1/me/notifications/read-all", headers=me.headers)
    assert response.status_code == 200 and response.json() == {"updated": 3}
    assert await _unread(me.id) == 0 and await _unread(other.id) == 2
    again = await client.post("/api/v1/me/notifications/read-all", headers=me.headers)
    assert again.json() == {"updated": 0}


async def test_read_marks_keep_the_time_they_were_read(client):
    me = await create_user()
    await _notify(me.id)
    [row] = (await client.get("/api/v1/me/notifications", headers=me.headers)).json()
    moment = clock.now().replace(microsecond=0)
    clock.set_now(moment)
    await client.post("/api/v1/me/notifications/read-all", headers=me.headers)
    [row] = (await client.get("/api/v1/me/notifications", headers=me.headers)).json()
    assert row["readAt"] == clock.iso(moment)


async def test_bad_input_is_400(client):
    me = await create_user()
    for bad in ({}, {"ids": "abc"}, {"ids": [""]}, {"ids": ["x"] * 1001}, {"ids": ["a b"]}):
        response = await client.patch("/api/v1/me/notifications/read", json=bad, headers=me.headers)
        assert response.status_code == 400, bad
        assert response.json()["code"] == "VALIDATION_FAILED"


async def test_routes_need_a_verified_session(client):
    unverified = await create_user(verified=False)
    calls = (
        ("GET", "/api/v1/me/notifications", None),
        ("PATCH", "/api/v1/me/notifications/read", {"ids": ["a"]}),
        ("POST", "/api/v1/me/notifications/read-all", None),
    )
    for method, path, body in calls:
        anonymous = await client.request(method, path, json=body)
        assert anonymous.status_code == 401
        assert anonymous.json() == {"error": "Unauthorized", "code": "UNAUTHORIZED"}
        refused = await client.request(method, path, json=body, headers=unverified.headers)
        assert refused.status_code == 403
        assert refused.json() == {
            "error": "Email verification required",
            "code": "EMAIL_NOT_VERIFIED",
        }


async def _insert_notifications(user_id: str, count: int) -> None:
    """``count`` notifications straight into the table, in one statement."""
    now = clock.now()
    rows = [
        {
            "id": new_id(),
            "user_id": user_id,
            "workspace_id": None,
            "project_id": None,
            "kind": "ISSUE_ASSIGNED",
            "title": f"Issue {n} assigned",
            "body": None,
            "href": f"/projects/p/issues/{n}",
            "read_at": None,
            "created_at": now,
        }
        for n in range(count)
    ]
    async with database.sessionmaker() as db:
        await db.execute(insert(Notification), rows)
        await db.commit()


async def test_list_runs_the_same_queries_for_1_and_500_notifications(client):
    counts = []
    for size in (1, 500):
        me = await create_user()
        await _insert_notifications(me.id, size)
        with QueryCounter() as q:
            response = await client.get(
                "/api/v1/me/notifications", params={"limit": 1000}, headers=me.headers
            )
        assert response.status_code == 200 and "link" not in response.headers
        assert len(response.json()) == size
        counts.append(q.count)
    assert counts[0] == counts[1] <= 2, counts
