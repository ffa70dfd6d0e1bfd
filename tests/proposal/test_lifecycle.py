"""The proposal lifecycle through HTTP: send, resend, duplicate, revisions, comments, the
contractor's side of the thread, and the client's whole journey through the e-mailed link."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader
from sqlalchemy import func, select

from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import Proposal, ProposalComment, ProposalMessage, ProposalRevision
from tests.factories import (
    QueryCounter,
    audit_entries,
    create_api_key,
    external,
    key_headers,
    mail_text,
    make_world,
    read_mails,
    set_project,
    set_workspace,
)
from tests.proposal.flow import (
    BASE,
    data_url,
    notifications,
    png,
    portal_path,
    send,
    sendable,
    sent_with_link,
    url,
)


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


NOW = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _now() -> None:
    clock.set_now(NOW)


async def set_status(proposal_id: str, status: str) -> None:
    async with database.sessionmaker() as db:
        row = await db.get(Proposal, proposal_id)
        assert row is not None
        row.status = status
        await db.commit()


async def revision_count(proposal_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(ProposalRevision.proposal_id == proposal_id)
        return int((await db.execute(query)).scalar_one())


async def test_the_client_journey_from_the_email(client, world, outbox):
    proposal = await sendable(client, world, coverLetter="<b>Thanks</b> & welcome")
    email = proposal["clientEmail"]
    sent = await send(client, world, proposal)
    assert sent["status"] == "SENT"
    assert sent["sentAt"] == "2026-11-23T09:00:00.000Z"
    [mail] = read_mails(outbox, to=email)
    assert proposal["reference"] in mail["Subject"]
    [attachment] = list(mail.iter_attachments())
    assert attachment.get_content_type() == "application/pdf"
    attached = pdf_text(attachment.get_content())
    assert proposal["reference"] in attached and "Drywall" in attached
    path = portal_path(outbox, email)
    assert sent["portalUrl"] == f"{BASE}/portal/proposals/{path.rsplit('/', 1)[1]}"

    seen = await client.get(path)
    assert seen.status_code == 200, seen.text
    view = seen.json()
    assert view["reference"] == proposal["reference"]
    assert view["status"] == "SENT"
    assert view["total"] == "125.00"
    assert view["coverLetter"] == "<b>Thanks</b> & welcome"
    assert view["companyName"] == world.workspace.name
    for internal in ("id", "projectId", "createdBy", "createdAt", "updatedAt", "tokenHash"):
        assert internal not in view
    assert set(view["items"][0]) == {"name", "description", "quantity", "unit", "rate", "lineTotal"}

    viewed = await client.post(f"{path}/view")
    assert viewed.json()["status"] == "VIEWED"
    assert viewed.json()["viewedAt"] == "2026-11-23T09:00:00.000Z"
    assert len(await notifications(world.member.user.id, "PROPOSAL_VIEWED")) == 1
    again = await client.post(f"{path}/view")
    assert again.json()["status"] == "VIEWED"
    assert len(await notifications(world.member.user.id, "PROPOSAL_VIEWED")) == 1

    asked = await client.post(f"{path}/messages", json={"body": "Does this include paint?"})
    assert asked.status_code == 200, asked.text
    assert asked.json()["author"] == "CLIENT"
    answer = await client.post(
        url(world.project, f"/{proposal['id']}/messages"),
        json={"body": "No, paint is separate."},
        headers=world.manager.headers,
    )
    assert answer.status_code == 200, answer.text
    thread = (await client.get(f"{path}/messages")).json()
    assert [(m["author"], m["body"]) for m in thread] == [
        ("CONTRACTOR", "No, paint is separate."),
        ("CLIENT", "Does this include paint?"),
    ]
    assert thread[0]["authorName"] == "Max Manager"
    assert len(await notifications(world.member.user.id, "PROPOSAL_MESSAGE")) == 1
    told = read_mails(outbox, to=email)[-1]
    assert proposal["reference"] in told["Subject"]
    assert "Max Manager" in mail_text(told) and "No, paint is separate." in mail_text(told)
    assert "/public/proposals/" not in mail_text(told)  # the link is not kept, only its hash

    changes = await client.post(f"{path}/request-changes", json={"comment": "Add paint please"})
    assert changes.status_code == 200, changes.text
    assert changes.json()["status"] == "CHANGES_REQUESTED"
    refused = await client.post(f"{path}/accept", json={"signerName": "Dana Client"})
    assert refused.status_code == 409
    assert refused.json()["code"] == "INVALID_TRANSITION"

    edited = await client.patch(
        url(world.project, f"/{proposal['id']}"),
        json={"items": [
            {"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"},
            {"name": "Paint", "quantity": "10", "unit": "m2", "rate": "4"},
        ]},
        headers=world.member.headers,
    )  # fmt: skip
    assert edited.status_code == 200, edited.text
    resent = await send(client, world, proposal)
    assert resent["status"] == "SENT"
    assert resent["changeRequestComment"] == "Add paint please"
    assert len(read_mails(outbox, to=email)) == 3  # the proposal, the answer, the proposal again
    new_path = portal_path(outbox, email)
    assert new_path != path
    assert (await client.get(path)).status_code == 404  # the first link was replaced

    revisions = (
        await client.get(
            url(world.project, f"/{proposal['id']}/revisions"), headers=world.member.headers
        )
    ).json()
    assert [r["number"] for r in revisions] == [2, 1]
    assert revisions[0]["snapshot"]["total"] == "165.00"
    assert revisions[1]["snapshot"]["total"] == "125.00"
    assert [len(r["snapshot"]["items"]) for r in revisions] == [2, 1]

    accepted = await client.post(
        f"{new_path}/accept", json={"signerName": "Dana Client", "signature": data_url(png())}
    )
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["status"] == "ACCEPTED"
    assert accepted.json()["signerName"] == "Dana Client"
    assert accepted.json()["acceptedAt"] == "2026-11-23T09:00:00.000Z"
    assert len(await notifications(world.member.user.id, "PROPOSAL_ACCEPTED")) == 1
    async with database.sessionmaker() as db:
        stored = (
            await db.execute(select(Proposal.signature_png).where(Proposal.id == proposal["id"]))
        ).scalar_one()
    assert stored == png()
    # Answered: read-only for the client, still readable.
    assert (await client.post(f"{new_path}/messages", json={"body": "hi"})).status_code == 409
    assert (await client.post(f"{new_path}/decline", json={"reason": "TIMING"})).status_code == 409
    assert (await client.get(new_path)).json()["status"] == "ACCEPTED"

    document = await client.get(
        url(world.project, f"/{proposal['id']}/pdf"), headers=world.member.headers
    )
    assert document.status_code == 200
    assert "Accepted online by Dana Client" in pdf_text(document.content)
    signed_page = PdfReader(io.BytesIO(document.content)).pages[-1]
    assert len(signed_page.images) == 1  # the signature, drawn in the acceptance block
    contractor = (
        await client.get(url(world.project, f"/{proposal['id']}"), headers=world.member.headers)
    ).json()
    assert contractor["status"] == "ACCEPTED"
    assert contractor["signerName"] == "Dana Client"
    public = [e for e in await audit_entries(proposal["id"]) if e.actor == "public"]
    assert [e.action for e in public] == [
        "proposal.viewed",
        "proposal.message_posted",
        "proposal.changes_requested",
        "proposal.accepted",
    ]
    assert all(e.actor_user_id is None for e in public)


async def test_send_needs_items_a_client_email_and_a_future_date(client, world, outbox):
    bare = await sendable(
        client, world, items=[], clientEmail=None, validUntil="2026-11-24T00:00:00Z"
    )
    clock.set_now(datetime(2026, 11, 25, tzinfo=UTC))
    response = await client.post(
        url(world.project, f"/{bare['id']}/send"), headers=world.member.headers
    )
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "VALIDATION_FAILED"
    fields = {d["field"] for d in response.json()["details"]}
    assert fields == {"items", "clientEmail", "validUntil"}
    fetched = await client.get(url(world.project, f"/{bare['id']}"), headers=world.member.headers)
    assert fetched.json()["status"] == "DRAFT"
    assert fetched.json()["sentAt"] is None
    assert await revision_count(bare["id"]) == 0


@pytest.mark.parametrize("status", ["SENT", "VIEWED", "ACCEPTED", "DECLINED", "EXPIRED"])
async def test_send_refused_outside_draft_and_changes_requested(client, world, status):
    proposal = await sendable(client, world)
    await set_status(proposal["id"], status)
    response = await client.post(
        url(world.project, f"/{proposal['id']}/send"), headers=world.member.headers
    )
    assert response.status_code == 409
    assert response.json()["code"] == "INVALID_TRANSITION"
    assert await revision_count(proposal["id"]) == 0


@pytest.mark.parametrize(
    "status", ["DRAFT", "CHANGES_REQUESTED", "ACCEPTED", "DECLINED", "EXPIRED"]
)
async def test_resend_refused_unless_sent_or_viewed(client, world, outbox, status):
    proposal = await sendable(client, world)
    await set_status(proposal["id"], status)
    response = await client.post(
        url(world.project, f"/{proposal['id']}/resend"), headers=world.member.headers
    )
    assert response.status_code == 409
    assert response.json()["code"] == "INVALID_TRANSITION"
    assert read_mails(outbox, to=proposal["clientEmail"]) == []


async def test_resend_refused_once_valid_until_passed(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox, validUntil="2026-11-24T00:00:00Z")
    clock.set_now(datetime(2026, 11, 24, 0, 0, 1, tzinfo=UTC))
    read = await client.get(url(world.project, f"/{proposal['id']}"), headers=world.member.headers)
    assert read.json()["status"] == "EXPIRED"
    listed = await client.get(url(world.project), headers=world.member.headers)
    assert {p["id"]: p["status"] for p in listed.json()}[proposal["id"]] == "EXPIRED"
    response = await client.post(
        url(world.project, f"/{proposal['id']}/resend"), headers=world.member.headers
    )
    assert response.status_code == 409
    assert len(read_mails(outbox, to=proposal["clientEmail"])) == 1
    assert (await client.get(path)).status_code == 410


async def test_resend_mails_a_new_link_and_ends_the_old_one(client, world, outbox):
    proposal, first = await sent_with_link(client, world, outbox)
    await client.post(f"{first}/view")
    resent = await send(client, world, proposal, "resend")
    assert resent["status"] == "VIEWED"
    mails = read_mails(outbox, to=proposal["clientEmail"])
    assert len(mails) == 2
    assert mails[1]["Subject"].startswith("Reminder: ")
    second = portal_path(outbox, proposal["clientEmail"])
    assert resent["portalUrl"].endswith(second.rsplit("/", 1)[1])
    assert (await client.get(first)).status_code == 404
    assert (await client.get(second)).status_code == 200
    assert await revision_count(proposal["id"]) == 1


async def test_the_email_escapes_what_users_typed(client, world, outbox):
    proposal = await sendable(
        client, world, title="<script>alert(1)</script>", clientName="<i>Dana</i>"
    )
    await send(client, world, proposal)
    [mail] = read_mails(outbox, to=proposal["clientEmail"])
    html = str(mail.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;i&gt;Dana&lt;/i&gt;" in html
    answer = await client.post(
        url(world.project, f"/{proposal['id']}/messages"),
        json={"body": "<img src=x onerror=alert(1)>"},
        headers=world.member.headers,
    )
    assert answer.status_code == 200, answer.text
    told = read_mails(outbox, to=proposal["clientEmail"])[-1]
    html = str(told.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;" in html  # the title, escaped here too


async def test_duplicate_makes_a_new_draft_copy(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    await client.post(f"{path}/decline", json={"reason": "PRICE_TOO_HIGH"})
    response = await client.post(
        url(world.project, f"/{proposal['id']}/duplicate"), headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    copy = response.json()
    assert copy["status"] == "DRAFT"
    assert copy["title"] == "Level 3 fit-out (copy)"
    assert copy["id"] != proposal["id"]
    assert copy["reference"] != proposal["reference"]
    assert [i["name"] for i in copy["items"]] == [i["name"] for i in proposal["items"]]
    assert {i["id"] for i in copy["items"]}.isdisjoint({i["id"] for i in proposal["items"]})
    assert copy["total"] == proposal["total"]
    assert copy["sentAt"] is None and copy["declineReason"] is None
    # The copy can be sent on its own.
    assert (await send(client, world, copy))["status"] == "SENT"


async def test_comments_are_internal(client, world, outbox):
    proposal, path = await sent_with_link(client, world, outbox)
    for body in ("First <b>note</b>", "Second note"):
        response = await client.post(
            url(world.project, f"/{proposal['id']}/comments"),
            json={"body": body},
            headers=world.member.headers,
        )
        assert response.status_code == 200, response.text
        assert response.json()["createdBy"] == world.member.user.id
    listed = await client.get(
        url(world.project, f"/{proposal['id']}/comments"), headers=world.manager.headers
    )
    assert [c["body"] for c in listed.json()] == ["Second note", "First <b>note</b>"]
    view = (await client.get(path)).text
    assert "note" not in view
    assert "note" not in (await client.get(f"{path}/messages")).text
    client_user = await external(world, "CLIENT")
    refused = await client.get(
        url(world.project, f"/{proposal['id']}/comments"), headers=client_user.headers
    )
    assert refused.status_code == 404


@pytest.mark.parametrize(
    ("suffix", "body", "field"),
    [
        ("/comments", {"body": ""}, "body"),
        ("/comments", {"body": "x" * 10001}, "body"),
        ("/comments", {}, "body"),
        ("/messages", {"body": "   "}, "body"),
    ],
)
async def test_bad_comment_or_message_is_refused(client, world, outbox, suffix, body, field):
    proposal, _ = await sent_with_link(client, world, outbox)
    response = await client.post(
        url(world.project, f"/{proposal['id']}{suffix}"), json=body, headers=world.member.headers
    )
    assert response.status_code == 400, response.text
    assert field in [d["field"] for d in response.json()["details"]]
    listed = await client.get(
        url(world.project, f"/{proposal['id']}{suffix}"), headers=world.member.headers
    )
    assert listed.json() == []


async def test_contractor_messages_only_while_the_client_can_answer(client, world):
    draft = await sendable(client, world)
    response = await client.post(
        url(world.project, f"/{draft['id']}/messages"),
        json={"body": "Hello"},
        headers=world.member.headers,
    )
    assert response.status_code == 409
    assert response.json()["code"] == "INVALID_TRANSITION"


ROUTES = [
    ("POST", "/send", "proposals:write"),
    ("POST", "/resend", "proposals:write"),
    ("POST", "/duplicate", "proposals:write"),
    ("GET", "/revisions", "proposals:read"),
    ("GET", "/comments", "proposals:read"),
    ("POST", "/comments", "proposals:write"),
    ("GET", "/messages", "proposals:read"),
    ("POST", "/messages", "proposals:write"),
]


@pytest.mark.parametrize(("method", "suffix", "scope"), ROUTES)
async def test_routes_need_scope_module_and_workspace(client, world, method, suffix, scope):
    proposal = await sendable(client, world)
    path = url(world.project, f"/{proposal['id']}{suffix}")
    body = {"body": "Hello"} if method == "POST" else None
    wrong = "proposals:read" if scope == "proposals:write" else "issues:read"
    key, _ = await create_api_key(world.project, [wrong])
    refused = await client.request(method, path, json=body, headers=key_headers(key))
    assert refused.status_code == 403
    assert refused.json()["code"] == "API_KEY_SCOPE"
    assert scope in refused.json()["error"]
    other = await make_world()
    hidden = await client.request(method, path, json=body, headers=other.owner.headers)
    assert hidden.status_code == 404
    hidden = await client.request(
        method,
        url(other.project, f"/{proposal['id']}{suffix}"),
        json=body,
        headers=other.owner.headers,
    )
    assert hidden.status_code == 404
    await set_project(world.project.id, modules={"proposals": False})
    off = await client.request(method, path, json=body, headers=world.manager.headers)
    assert off.status_code == 403
    assert off.json()["code"] == "MODULE_DISABLED"
    await set_project(world.project.id, modules={"proposals": True})
    assert await revision_count(proposal["id"]) == 0


async def test_a_key_can_send(client, world, outbox):
    key, _ = await create_api_key(world.project, ["proposals:read", "proposals:write"])
    proposal = await sendable(client, world)
    response = await client.post(
        url(world.project, f"/{proposal['id']}/send"), headers=key_headers(key)
    )
    assert response.status_code == 200, response.text
    assert len(read_mails(outbox, to=proposal["clientEmail"])) == 1


async def test_team_plan_needs_pro(client, world, monkeypatch):
    proposal = await sendable(client, world)
    monkeypatch.setattr(settings, "billing", "local")
    await set_workspace(world.workspace.id, plan="team", subscription_status="active")
    for method, suffix, _ in ROUTES:
        path = url(world.project, f"/{proposal['id']}{suffix}")
        body = {"body": "Hello"} if method == "POST" else None
        response = await client.request(method, path, json=body, headers=world.manager.headers)
        assert response.status_code == 402, (suffix, response.text)
        assert response.json()["requiredPlan"] == "pro"


async def add_history(proposal_id: str, count: int) -> None:
    """``count`` more revisions, comments and messages, written directly."""
    async with database.sessionmaker() as db:
        for n in range(count):
            now = clock.now()
            db.add(
                ProposalRevision(
                    proposal_id=proposal_id, number=n + 2, snapshot={"n": n}, created_at=now
                )
            )
            db.add(ProposalComment(proposal_id=proposal_id, body=f"note {n}", created_at=now))
            db.add(
                ProposalMessage(
                    proposal_id=proposal_id, author="CLIENT", body=f"hi {n}", created_at=now
                )
            )
        await db.commit()


async def test_lists_run_the_same_queries_for_1_and_many(client, outbox):
    counts: dict[str, list[int]] = {}
    for size in (1, 60):
        world = await make_world()
        proposal, path = await sent_with_link(client, world, outbox)
        await add_history(proposal["id"], size)
        lists = {
            suffix: (url(world.project, f"/{proposal['id']}{suffix}"), world.member.headers)
            for suffix in ("/revisions", "/comments", "/messages")
        } | {"portal": (f"{path}/messages", {})}
        for name, (path_, headers) in lists.items():
            with QueryCounter() as counter:
                response = await client.get(path_, headers=headers)
            assert response.status_code == 200, response.text
            expected = size + 1 if name == "/revisions" else size
            assert len(response.json()) == expected
            counts.setdefault(name, []).append(counter.count)
    assert all(first == second for first, second in counts.values()), counts


async def test_lists_are_paged_newest_first(client, world, outbox):
    proposal, _ = await sent_with_link(client, world, outbox)
    await add_history(proposal["id"], 3)
    first = await client.get(
        url(world.project, f"/{proposal['id']}/comments?limit=2"), headers=world.member.headers
    )
    assert [c["body"] for c in first.json()] == ["note 2", "note 1"]
    next_url = first.headers["Link"].split(">")[0].lstrip("<")
    rest = await client.get(next_url, headers=world.member.headers)
    assert [c["body"] for c in rest.json()] == ["note 0"]
