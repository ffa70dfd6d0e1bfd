"""Events are written with the change that makes them, carrying the resource as the API reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from plumbline.db import database
from plumbline.events import catalogue, readers
from plumbline.models import EventLog
from tests.factories import World
from tests.proposal.flow import sent_with_link


async def stream_events(stream: str) -> list[EventLog]:
    async with database.sessionmaker() as db:
        query = select(EventLog).where(EventLog.stream == stream).order_by(EventLog.seq)
        return list((await db.execute(query)).scalars())


async def _issue(client: httpx.AsyncClient, world: World, **body: Any) -> dict[str, Any]:
    url = f"/api/v1/projects/{world.project.id}/issues"
    answer = await client.post(url, json={"title": "Leak", **body}, headers=world.member.headers)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_a_create_update_and_delete_write_numbered_events_with_the_read_resource(
    client: httpx.AsyncClient, world: World
) -> None:
    issue = await _issue(client, world)
    url = f"/api/v1/projects/{world.project.id}/issues/{issue['id']}"
    assert (
        await client.patch(url, json={"status": "IN_PROGRESS"}, headers=world.member.headers)
    ).status_code == 200
    read = (await client.get(url, headers=world.member.headers)).json()
    comment = await client.post(
        f"{url}/comments", json={"body": "On it"}, headers=world.member.headers
    )
    assert (await client.delete(url, headers=world.member.headers)).status_code == 200

    events = await stream_events(world.project.id)
    assert [e.type for e in events] == [
        "issue.created",
        "issue.updated",
        "comment.created",
        "issue.deleted",
    ]
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert events[0].data == issue
    assert events[1].data == read
    assert events[2].data == comment.json()
    assert events[3].data == {
        "type": "issue",
        "id": issue["id"],
        "deletedAt": events[3].data["deletedAt"],
    }
    assert events[0].actor == {"type": "user", "id": world.member.id}
    assert {e.workspace_id for e in events} == {world.workspace.id}


async def test_a_refused_write_writes_no_event(client: httpx.AsyncClient, world: World) -> None:
    issue = await _issue(client, world)
    url = f"/api/v1/projects/{world.project.id}/issues/{issue['id']}"
    answer = await client.patch(url, json={"assigneeId": "nobody"}, headers=world.member.headers)
    assert answer.status_code == 400
    assert [e.type for e in await stream_events(world.project.id)] == ["issue.created"]


def test_every_resource_of_the_catalogue_has_a_reader() -> None:
    readers.load()
    assert set(readers.READERS) == set(catalogue.RESOURCES)


async def test_the_clients_answer_through_the_portal_is_an_event_of_the_public(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    proposal, path = await sent_with_link(client, world, outbox)
    accepted = await client.post(f"{path}/accept", json={"signerName": "Dana"})
    assert accepted.status_code == 200, accepted.text
    url = f"/api/v1/projects/{world.project.id}/proposals/{proposal['id']}"
    read = (await client.get(url, headers=world.member.headers)).json()

    events = [e for e in await stream_events(world.project.id) if e.resource == "proposal"]
    assert [e.type for e in events][-1] == "proposal.accepted"
    assert events[-1].actor == {"type": "public", "id": None}
    assert events[-1].data == read
    assert "proposal.sent" in [e.type for e in events]


def test_an_audit_action_named_like_an_event_type_writes_that_event() -> None:
    """A rename (``proposal.resent`` writes ``proposal.sent``) never hides the type itself."""
    for type_ in catalogue.TYPES:
        assert catalogue.ACTIONS[type_].type == type_
    assert set(catalogue.TYPES) == {source.type for source in catalogue.ACTIONS.values()}
