"""PATCH /projects/{p}/rfi/{id}: the enforced workflow, ball in court, notifications, audit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.factories import (
    Actor,
    World,
    add_member,
    audit_entries,
    create_api_key,
    create_user,
    external,
    key_headers,
    mail_text,
    read_mails,
)
from tests.rfi.helpers import create_rfi, notifications_of, patch_rfi, post_message, rfi_url


async def _responder(world: World, name: str = "Rita Responder") -> Actor:
    actor = await create_user(name=name)
    await add_member(world.workspace, actor, "MEMBER")
    return actor


def _refused(response: httpx.Response, current: str, target: str) -> None:
    assert response.status_code == 409, response.text
    body = response.json()
    assert body["code"] == "INVALID_TRANSITION"
    assert body["from"] == current and body["to"] == target
    assert current in body["error"] and target in body["error"]


async def test_full_workflow_ball_in_court_and_notifications(
    client: httpx.AsyncClient, world: World, outbox: Path
) -> None:
    manager = world.member  # the creator manages the RFI; a plain MEMBER
    responder = await _responder(world)
    contractor = await external(world, "CONTRACTOR")
    rfi = await create_rfi(client, world.project.id, manager.headers, title="Door hardware")
    href = f"/projects/{world.project.id}/rfi/{rfi['id']}"
    assert rfi["status"] == "OPEN" and rfi["ballInCourt"] == [manager.id]

    # Send for review without responders.
    _refused(await patch_rfi(client, rfi, manager, status="IN_REVIEW"), "OPEN", "IN_REVIEW")

    added = await patch_rfi(client, rfi, manager, assigneeIds=[responder.id, contractor.id])
    assert added.status_code == 200, added.text
    assert added.json()["status"] == "OPEN" and added.json()["ballInCourt"] == [manager.id]
    assert await notifications_of(client, responder) == [("RFI_ASSIGNED", href)]
    assert await notifications_of(client, contractor) == [("RFI_ASSIGNED", href)]
    for person in (responder, contractor):  # and an e-mail each, as for issues
        [mail] = read_mails(outbox, person.user.email)
        assert (
            mail["Subject"]
            == f"You were added as a responder on RFI #{rfi['rfiNumber']}: Door hardware"
        )
        assert f"RFI #{rfi['rfiNumber']} as a responder" in mail_text(mail)
        assert href in mail_text(mail)
    assert read_mails(outbox, manager.user.email) == []

    # Only the manager (or MANAGER+) sends it for review.
    refused = await patch_rfi(client, rfi, responder, status="IN_REVIEW")
    assert refused.status_code == 403 and refused.json()["code"] == "FORBIDDEN"

    sent = await patch_rfi(client, rfi, manager, status="IN_REVIEW")
    assert sent.status_code == 200, sent.text
    assert sent.json()["status"] == "IN_REVIEW"
    assert sent.json()["ballInCourt"] == [responder.id, contractor.id]
    assert (await notifications_of(client, responder))[-1] == ("RFI_REVIEW", href)
    assert (await notifications_of(client, contractor))[-1] == ("RFI_REVIEW", href)

    answer = await post_message(client, rfi, responder, "<p>Use <b>type 3</b> hinges.</p>")
    other_rfi = await create_rfi(client, world.project.id, manager.headers)
    foreign = await post_message(client, other_rfi, manager)

    _refused(await patch_rfi(client, rfi, responder, status="ANSWERED"), "IN_REVIEW", "ANSWERED")
    _refused(
        await patch_rfi(client, rfi, responder, status="ANSWERED", answerMessageId=foreign["id"]),
        "IN_REVIEW",
        "ANSWERED",
    )
    _refused(
        await patch_rfi(client, rfi, responder, status="ANSWERED", answerMessageId="missing"),
        "IN_REVIEW",
        "ANSWERED",
    )
    # Someone who is neither a responder nor the manager cannot answer.
    bystander = await _responder(world, "Bea Bystander")
    response = await patch_rfi(
        client, rfi, bystander, status="ANSWERED", answerMessageId=answer["id"]
    )
    assert response.status_code == 403

    # An external responder answers.
    answered = await patch_rfi(
        client, rfi, contractor, status="ANSWERED", answerMessageId=answer["id"]
    )
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert body["status"] == "ANSWERED" and body["ballInCourt"] == [manager.id]
    assert body["officialResponse"] == {
        "messageId": answer["id"],
        "body": "<p>Use <b>type 3</b> hinges.</p>",
        "createdBy": responder.id,
    }
    assert body["answeredBy"] == contractor.id and body["answeredAt"]
    assert await notifications_of(client, manager) == [("RFI_ANSWERED", href)]
    messages = await client.get(
        rfi_url(world.project.id, rfi["id"], "messages"), headers=manager.headers
    )
    assert [m["isOfficialResponse"] for m in messages.json()] == [True]

    # A responder who is not the manager cannot close (403: the step exists, the actor may not).
    refused = await patch_rfi(client, rfi, responder, status="CLOSED")
    assert refused.status_code == 403

    # No way back to review from an answer (PRODUCT §5's chain): the manager closes it.
    _refused(await patch_rfi(client, rfi, manager, status="IN_REVIEW"), "ANSWERED", "IN_REVIEW")

    closed = await patch_rfi(client, rfi, manager, status="CLOSED")
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "CLOSED" and closed.json()["closedAt"]
    assert closed.json()["ballInCourt"] == []
    assert closed.json()["officialResponse"]["messageId"] == answer["id"]

    # Closed is read-only.
    edit = await patch_rfi(client, rfi, manager, title="New title")
    assert edit.status_code == 409 and edit.json()["code"] == "CONFLICT"
    response = await client.post(
        rfi_url(world.project.id, rfi["id"], "messages"),
        json={"body": "hi"},
        headers=manager.headers,
    )
    assert response.status_code == 409
    assert (await patch_rfi(client, rfi, responder, status="IN_REVIEW")).status_code == 403
    read = await client.get(rfi_url(world.project.id, rfi["id"]), headers=manager.headers)
    assert read.json()["title"] == "Door hardware" and read.json()["status"] == "CLOSED"

    reopened = await patch_rfi(client, rfi, manager, status="IN_REVIEW")
    assert reopened.status_code == 200, reopened.text
    assert reopened.json()["status"] == "IN_REVIEW" and reopened.json()["closedAt"] is None
    assert reopened.json()["ballInCourt"] == [responder.id, contractor.id]
    # The answer no longer stands (the audit log keeps it).
    assert reopened.json()["officialResponse"] is None and reopened.json()["answeredAt"] is None

    # An internal responder answers this time.
    again = await patch_rfi(client, rfi, responder, status="ANSWERED", answerMessageId=answer["id"])
    assert again.status_code == 200 and again.json()["answeredBy"] == responder.id

    # Exactly these notifications, and never to the actor of the change.
    assert await notifications_of(client, responder) == [
        ("RFI_ASSIGNED", href),
        ("RFI_REVIEW", href),
        ("RFI_CLOSED", href),
        ("RFI_REOPENED", href),
    ]
    assert await notifications_of(client, contractor) == [
        ("RFI_ASSIGNED", href),
        ("RFI_REVIEW", href),
        ("RFI_CLOSED", href),
        ("RFI_REOPENED", href),
    ]
    assert await notifications_of(client, manager) == [
        ("RFI_ANSWERED", href),
        ("RFI_ANSWERED", href),
    ]
    assert await notifications_of(client, bystander) == []

    actions = [e.action for e in await audit_entries(rfi["id"])]
    assert actions == [
        "rfi.created",
        "rfi.updated",
        "rfi.status_changed",
        "rfi.message_posted",
        "rfi.answered",
        "rfi.closed",
        "rfi.reopened",
        "rfi.answered",
    ]
    entries = {e.action: e for e in await audit_entries(rfi["id"])}
    assert entries["rfi.closed"].changes["status"] == ["ANSWERED", "CLOSED"]
    assert entries["rfi.reopened"].changes["status"] == ["CLOSED", "IN_REVIEW"]
    assert entries["rfi.answered"].changes["status"] == ["IN_REVIEW", "ANSWERED"]


async def _in_state(
    client: httpx.AsyncClient, world: World, status: str, responder: Actor
) -> dict[str, Any]:
    owner = world.owner
    rfi = await create_rfi(client, world.project.id, owner.headers, assigneeIds=[responder.id])
    if status == "OPEN":
        return rfi
    assert (await patch_rfi(client, rfi, owner, status="IN_REVIEW")).status_code == 200
    if status == "IN_REVIEW":
        return rfi
    message = await post_message(client, rfi, responder)
    response = await patch_rfi(client, rfi, owner, status="ANSWERED", answerMessageId=message["id"])
    assert response.status_code == 200, response.text
    if status == "ANSWERED":
        return rfi
    assert (await patch_rfi(client, rfi, owner, status="CLOSED")).status_code == 200
    return rfi


ALLOWED = {
    ("OPEN", "IN_REVIEW"),
    ("IN_REVIEW", "ANSWERED"),
    ("ANSWERED", "CLOSED"),
    ("CLOSED", "IN_REVIEW"),
}
STATES = ("OPEN", "IN_REVIEW", "ANSWERED", "CLOSED")


async def test_every_refused_transition_is_409(client: httpx.AsyncClient, world: World) -> None:
    responder = await _responder(world)
    for current in STATES:
        for target in STATES:
            if target == current or (current, target) in ALLOWED:
                continue
            rfi = await _in_state(client, world, current, responder)
            # Even the workspace owner cannot make a step the workflow does not have.
            response = await patch_rfi(client, rfi, world.owner, status=target)
            _refused(response, current, target)
            read = await client.get(
                rfi_url(world.project.id, rfi["id"]), headers=world.owner.headers
            )
            assert read.json()["status"] == current


async def test_every_allowed_transition_by_a_project_manager_or_a_key(
    client: httpx.AsyncClient, world: World
) -> None:
    """MANAGER+ acts for the RFI's manager; so does a key with rfi:write."""
    responder = await _responder(world)
    raw, _ = await create_api_key(world.project, ["rfi:read", "rfi:write"])
    for headers in (world.manager.headers, key_headers(raw)):
        for current, target in sorted(ALLOWED):
            rfi = await _in_state(client, world, current, responder)
            fields: dict[str, Any] = {"status": target}
            if target == "ANSWERED":
                fields["answerMessageId"] = (await post_message(client, rfi, responder))["id"]
            response = await client.patch(
                rfi_url(world.project.id, rfi["id"]), json=fields, headers=headers
            )
            assert response.status_code == 200, (current, target, response.text)
            assert response.json()["status"] == target


async def test_same_status_is_no_transition_and_answer_twice_is_refused(
    client: httpx.AsyncClient, world: World
) -> None:
    responder = await _responder(world)
    rfi = await _in_state(client, world, "ANSWERED", responder)
    same = await patch_rfi(client, rfi, world.owner, status="ANSWERED", priority="HIGH")
    assert same.status_code == 200 and same.json()["priority"] == "HIGH"
    message = await post_message(client, rfi, responder)
    _refused(
        await patch_rfi(client, rfi, world.owner, status="ANSWERED", answerMessageId=message["id"]),
        "ANSWERED",
        "ANSWERED",
    )
    closed = await _in_state(client, world, "CLOSED", responder)
    assert (await patch_rfi(client, closed, world.owner, status="CLOSED")).status_code == 200
    assert (await patch_rfi(client, closed, world.owner)).status_code == 200


async def test_send_for_review_and_add_responders_in_one_request(
    client: httpx.AsyncClient, world: World
) -> None:
    responder = await _responder(world)
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    response = await patch_rfi(
        client, rfi, world.member, status="IN_REVIEW", assigneeIds=[responder.id]
    )
    assert response.status_code == 200, response.text
    assert response.json()["ballInCourt"] == [responder.id]
    href = f"/projects/{world.project.id}/rfi/{rfi['id']}"
    # Told once, that the RFI waits for them.
    assert await notifications_of(client, responder) == [("RFI_REVIEW", href)]
    # Later additions hear that they were assigned.
    newcomer = await _responder(world, "Nina Newcomer")
    response = await patch_rfi(
        client, rfi, world.member, assigneeIds=[responder.id, newcomer.id, world.member.id]
    )
    assert response.status_code == 200
    assert await notifications_of(client, newcomer) == [("RFI_ASSIGNED", href)]
    assert await notifications_of(client, world.member) == []  # the actor, never notified
    assert await notifications_of(client, responder) == [("RFI_REVIEW", href)]


async def test_field_edits_and_their_audit(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers, question="Old?")
    response = await patch_rfi(
        client,
        rfi,
        world.admin,
        title="Renamed",
        question=None,
        priority="LOW",
        dueDate="2027-01-15",
        pin={"x": 0.5, "y": 0.5},
        pageNumber=2,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["title"] == "Renamed" and body["question"] is None
    assert body["priority"] == "LOW" and body["dueDate"] == "2027-01-15"
    assert body["pin"] == {"x": 0.5, "y": 0.5} and body["pageNumber"] == 2
    assert body["updatedAt"] >= rfi["updatedAt"]
    [entry] = [e for e in await audit_entries(rfi["id"]) if e.action == "rfi.updated"]
    assert entry.changes["title"] == ["Beam size at grid C4", "Renamed"]
    assert entry.changes["question"] == ["Old?", None]
    assert entry.changes["dueDate"] == [None, "2027-01-15"]
    assert "status" not in entry.changes and "managerId" not in entry.changes
    cleared = await patch_rfi(client, rfi, world.admin, pin=None, dueDate=None)
    assert cleared.json()["pin"] is None and cleared.json()["dueDate"] is None


async def test_patch_refusals(client: httpx.AsyncClient, world: World) -> None:
    responder = await _responder(world)
    rfi = await create_rfi(
        client, world.project.id, world.member.headers, assigneeIds=[responder.id]
    )
    for fields, field in (
        ({"title": None}, "title"),
        ({"priority": None}, "priority"),
        ({"assigneeIds": None}, "assigneeIds"),
        ({"answerMessageId": "x"}, "answerMessageId"),
        ({"status": "IN_REVIEW", "answerMessageId": "x"}, "answerMessageId"),
        ({"assigneeIds": ["stranger"]}, "assigneeIds"),
    ):
        response = await patch_rfi(client, rfi, world.member, **fields)
        assert response.status_code == 400, (fields, response.text)
        assert response.json()["details"][0]["field"] == field
    bad_status = await patch_rfi(client, rfi, world.member, status="DONE")
    assert bad_status.status_code == 400
    # Handing the RFI to another manager is the manager's call.
    other = await _responder(world, "Other Member")
    refused = await patch_rfi(client, rfi, other, managerId=other.id)
    assert refused.status_code == 403
    handed = await patch_rfi(client, rfi, world.member, managerId=world.manager.id)
    assert handed.status_code == 200 and handed.json()["ballInCourt"] == [world.manager.id]
    # In review, the RFI keeps at least one responder.
    assert (await patch_rfi(client, rfi, world.manager, status="IN_REVIEW")).status_code == 200
    emptied = await patch_rfi(client, rfi, world.manager, assigneeIds=[])
    assert emptied.status_code == 400
    read = await client.get(rfi_url(world.project.id, rfi["id"]), headers=world.member.headers)
    assert read.json()["assigneeIds"] == [responder.id]


async def test_externals_may_only_answer(client: httpx.AsyncClient, world: World) -> None:
    contractor = await external(world, "SUBCONTRACTOR")
    client_user = await external(world, "CLIENT")
    rfi = await create_rfi(
        client, world.project.id, world.member.headers, assigneeIds=[contractor.id]
    )
    assert (await patch_rfi(client, rfi, contractor, title="Mine now")).status_code == 403
    assert (await patch_rfi(client, rfi, contractor, status="IN_REVIEW")).status_code == 403
    assert (await patch_rfi(client, rfi, client_user, title="x")).status_code == 403
    await patch_rfi(client, rfi, world.member, status="IN_REVIEW")
    message = await post_message(client, rfi, contractor)
    answered = await patch_rfi(
        client, rfi, contractor, status="ANSWERED", answerMessageId=message["id"]
    )
    assert answered.status_code == 200, answered.text
    assert (await patch_rfi(client, rfi, contractor, status="CLOSED")).status_code == 403
