from tests.factories import (
    add_member,
    create_user,
    external,
    mail_text,
    read_mails,
    set_client_visibility,
)
from tests.punch.helpers import notifications_for, url


async def test_contractor_sees_and_updates_only_assigned_items(client, world):
    contractor = await external(world, "CONTRACTOR")
    theirs = (
        await client.post(
            url(world.project),
            json={"title": "Theirs", "assigneeIds": [contractor.id]},
            headers=world.manager.headers,
        )
    ).json()
    others = (
        await client.post(
            url(world.project),
            json={"title": "Others", "assigneeIds": [world.member.id]},
            headers=world.manager.headers,
        )
    ).json()
    h = contractor.headers

    listed = (await client.get(url(world.project), headers=h)).json()
    assert [i["id"] for i in listed] == [theirs["id"]]
    assert (await client.get(url(world.project, f"/{others['id']}"), headers=h)).status_code == 404
    response = await client.patch(
        url(world.project, f"/{others['id']}"), json={"status": "IN_PROGRESS"}, headers=h
    )
    assert response.status_code == 404

    for step in ("IN_PROGRESS", "READY_FOR_REVIEW"):
        response = await client.patch(
            url(world.project, f"/{theirs['id']}"), json={"status": step}, headers=h
        )
        assert response.status_code == 200
    response = await client.patch(
        url(world.project, f"/{theirs['id']}"), json={"status": "CLOSED"}, headers=h
    )
    assert response.status_code == 403
    response = await client.patch(
        url(world.project, f"/{theirs['id']}"), json={"assigneeIds": [world.member.id]}, headers=h
    )
    assert response.status_code == 403
    assert (
        await client.delete(url(world.project, f"/{theirs['id']}"), headers=h)
    ).status_code == 403

    bulk = await client.patch(
        url(world.project, "/bulk"),
        json={"ids": [theirs["id"], others["id"]], "status": "IN_PROGRESS"},
        headers=h,
    )
    assert [(r["ok"], r.get("code")) for r in bulk.json()["results"]] == [
        (True, None),
        (False, "NOT_FOUND"),
    ]


async def test_contractor_creates_items_that_stay_theirs(client, world):
    sub = await external(world, "SUBCONTRACTOR")
    response = await client.post(
        url(world.project), json={"title": "Found it"}, headers=sub.headers
    )
    assert response.status_code == 200
    assert response.json()["assigneeIds"] == [sub.id]
    listed = (await client.get(url(world.project), headers=sub.headers)).json()
    assert [i["title"] for i in listed] == ["Found it"]


async def test_contractor_on_another_project_sees_nothing(client, world):
    from tests.factories import create_project

    elsewhere = await create_project(world.workspace, name="Other site")
    contractor = await create_user()
    await add_member(
        world.workspace,
        contractor,
        "MEMBER",
        external_role="CONTRACTOR",
        project_ids=[elsewhere.id],
    )
    response = await client.get(url(world.project), headers=contractor.headers)
    assert response.status_code == 404


async def test_client_reads_only_when_the_project_shares_punch(client, world):
    customer = await external(world, "CLIENT")
    made = await client.post(
        url(world.project), json={"title": "Visible"}, headers=world.member.headers
    )
    hidden_item = await client.get(
        url(world.project, f"/{made.json()['id']}"), headers=customer.headers
    )
    assert hidden_item.status_code == 404  # like any item the caller cannot see
    refused = await client.get(url(world.project), headers=customer.headers)
    assert refused.status_code == 403
    assert refused.json()["error"] == "Punch items are not shared with clients on this project"
    assert (
        await client.get(url(world.project, "/export.csv"), headers=customer.headers)
    ).status_code == 403

    await set_client_visibility(world.project, showPunch=True)
    listed = await client.get(url(world.project), headers=customer.headers)
    assert listed.status_code == 200
    assert [i["title"] for i in listed.json()] == ["Visible"]
    item_id = listed.json()[0]["id"]
    assert (
        await client.get(url(world.project, f"/{item_id}"), headers=customer.headers)
    ).status_code == 200
    assert (
        await client.post(url(world.project), json={"title": "x"}, headers=customer.headers)
    ).status_code == 403
    assert (
        await client.patch(
            url(world.project, f"/{item_id}"), json={"title": "y"}, headers=customer.headers
        )
    ).status_code == 403


async def test_clients_cannot_be_assigned_but_contractors_can(client, world):
    customer = await external(world, "CLIENT")
    contractor = await external(world, "CONTRACTOR")
    refused = await client.post(
        url(world.project),
        json={"title": "x", "assigneeIds": [customer.id]},
        headers=world.manager.headers,
    )
    assert refused.status_code == 400
    ok = await client.post(
        url(world.project),
        json={"title": "x", "assigneeIds": [contractor.id]},
        headers=world.manager.headers,
    )
    assert ok.status_code == 200


async def test_restricted_member_must_be_on_the_project_to_be_assigned(client, world):
    restricted = await create_user()
    await add_member(world.workspace, restricted, "MEMBER", project_ids=[])
    response = await client.post(
        url(world.project),
        json={"title": "x", "assigneeIds": [restricted.id]},
        headers=world.manager.headers,
    )
    assert response.status_code == 400


async def test_new_assignees_are_notified_never_the_actor(client, world, outbox):
    item = (
        await client.post(
            url(world.project),
            json={"title": "Patch drywall", "assigneeIds": [world.member.id, world.manager.id]},
            headers=world.manager.headers,
        )
    ).json()
    member_notes = await notifications_for(world.member.id, world.project)
    assert [(n.kind, n.title) for n in member_notes] == [
        ("PUNCH_ASSIGNED", f"Punch #{item['punchNumber']} assigned to you: Patch drywall")
    ]
    assert member_notes[0].href == f"/projects/{world.project.id}/punch/{item['id']}"
    assert await notifications_for(world.manager.id, world.project) == []
    # And an e-mail, as for issues (never to the actor).
    [mail] = read_mails(outbox, world.member.user.email)
    assert mail["Subject"] == f"Punch #{item['punchNumber']} assigned to you: Patch drywall"
    text = mail_text(mail)
    assert f"assigned you punch item #{item['punchNumber']} on" in text
    assert f"/projects/{world.project.id}/punch/{item['id']}" in text
    assert read_mails(outbox, world.manager.user.email) == []

    await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"assigneeIds": [world.member.id, world.admin.id]},
        headers=world.manager.headers,
    )
    assert len(await notifications_for(world.member.id, world.project)) == 1
    assert len(await notifications_for(world.admin.id, world.project)) == 1
    assert await notifications_for(world.owner.id, world.project) == []
    assert len(read_mails(outbox, world.member.user.email)) == 1  # already assigned: no more
    assert len(read_mails(outbox, world.admin.user.email)) == 1

    # A status change alone notifies nobody.
    await client.patch(
        url(world.project, f"/{item['id']}"),
        json={"status": "IN_PROGRESS"},
        headers=world.manager.headers,
    )
    assert len(await notifications_for(world.admin.id, world.project)) == 1
    assert len(read_mails(outbox, world.admin.user.email)) == 1

    # The bulk update tells its new assignees too.
    bulk = await client.patch(
        url(world.project, "/bulk"),
        json={"ids": [item["id"]], "assigneeIds": [world.owner.id]},
        headers=world.manager.headers,
    )
    assert bulk.status_code == 200 and bulk.json()["results"][0]["ok"] is True, bulk.text
    assert len(await notifications_for(world.owner.id, world.project)) == 1
    assert len(read_mails(outbox, world.owner.user.email)) == 1
