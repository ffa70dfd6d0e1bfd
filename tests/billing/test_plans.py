"""Plans as PRODUCT §4 with billing on: the gates, lapsed subscriptions, what the workspace
shows; and billing off turning every gate off."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

import httpx
import pytest
from fastapi import Depends, FastAPI

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import GIB, Feature
from plumbline.authz.workspace import WorkspaceContext, workspace_access
from plumbline.config import settings
from plumbline.errors import install_error_handlers
from plumbline.kit import clock
from plumbline.routing import make_router
from tests.conftest import ORIGIN
from tests.factories import add_member, create_user, external, make_world, set_workspace

API = "/api/v1"


@pytest.mark.usefixtures("billing_local")
async def test_trial_over_keeps_reads_and_refuses_writes(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world()
    issues = f"{API}/projects/{world.project.id}/issues"
    created = await client.post(issues, json={"title": "Leak"}, headers=world.member.headers)
    assert created.status_code == 200
    await set_workspace(world.workspace.id, trial_ends_at=clock.now() - timedelta(minutes=1))
    assert (await client.get(issues, headers=world.member.headers)).status_code == 200
    issue = f"{issues}/{created.json()['id']}"
    assert (await client.get(issue, headers=world.member.headers)).status_code == 200
    for answer in (
        await client.post(issues, json={"title": "Another"}, headers=world.member.headers),
        await client.patch(issue, json={"title": "Renamed"}, headers=world.member.headers),
        await client.post(
            "/api/v1/files/presign-upload",
            json={
                "projectId": world.project.id,
                "fileName": "plan.pdf",
                "contentType": "application/pdf",
                "sizeBytes": 10,
            },
            headers=world.member.headers,
        ),
    ):
        assert answer.status_code == 402, answer.text
        assert answer.json()["code"] == "SUBSCRIPTION_INACTIVE"
    files = await client.get(
        f"{API}/projects/{world.project.id}/files", headers=world.member.headers
    )
    assert files.status_code == 200
    # buying a plan is still possible
    checkout = await client.post(
        "/api/payments/checkout",
        json={"workspaceId": world.workspace.id, "plan": "team"},
        headers=world.owner.headers,
    )
    assert checkout.status_code == 200


@pytest.mark.usefixtures("billing_local")
@pytest.mark.parametrize("status", ["past_due", "canceled", "unpaid"])
async def test_lapsed_statuses_refuse_writes(client, status) -> None:  # type: ignore[no-untyped-def]
    world = await make_world(plan="pro")
    await set_workspace(world.workspace.id, subscription_status=status)
    proposals = f"{API}/projects/{world.project.id}/proposals"
    assert (await client.get(proposals, headers=world.member.headers)).status_code == 200
    body = {"title": "Fit-out", "validUntil": "2030-01-01T00:00:00Z"}
    refused = await client.post(proposals, json=body, headers=world.member.headers)
    assert refused.status_code == 402 and refused.json()["code"] == "SUBSCRIPTION_INACTIVE"


@pytest.mark.usefixtures("billing_local")
async def test_plan_gate_answers_the_plan_needed_even_for_reads(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world(plan="team")
    proposals = f"{API}/projects/{world.project.id}/proposals"
    refused = await client.get(proposals, headers=world.member.headers)
    assert refused.status_code == 402
    assert refused.json() == {
        "error": "This feature needs the pro plan",
        "code": "PLAN_REQUIRED",
        "requiredPlan": "pro",
    }
    # team has the records and files
    assert (
        await client.get(f"{API}/projects/{world.project.id}/issues", headers=world.member.headers)
    ).status_code == 200
    assert (
        await client.get(f"{API}/projects/{world.project.id}/files", headers=world.member.headers)
    ).status_code == 200
    # another workspace's project is 404 before any plan talk
    other = await make_world(plan="team")
    hidden = await client.get(
        f"{API}/projects/{other.project.id}/proposals", headers=world.member.headers
    )
    assert hidden.status_code == 404


@pytest.mark.usefixtures("billing_local")
async def test_workspace_shows_plan_seats_and_storage(client) -> None:  # type: ignore[no-untyped-def]
    world = await make_world(plan="team")
    await external(world, "CLIENT")  # externals use no seat
    await set_workspace(world.workspace.id, storage_used_bytes=3 * GIB)
    body = (
        await client.get(f"{API}/workspaces/{world.workspace.id}", headers=world.member.headers)
    ).json()
    assert body["plan"] == "team" and body["subscriptionStatus"] == "active"
    assert (body["seatsUsed"], body["seatLimit"]) == (4, 5)
    assert (body["storageUsedBytes"], body["storageQuotaBytes"]) == (3 * GIB, 100 * GIB)
    await add_member(world.workspace, await create_user(), "MEMBER")
    body = (
        await client.get(f"{API}/workspaces/{world.workspace.id}", headers=world.owner.headers)
    ).json()
    assert body["seatsUsed"] == 5
    await set_workspace(world.workspace.id, plan="enterprise")
    body = (
        await client.get(f"{API}/workspaces/{world.workspace.id}", headers=world.owner.headers)
    ).json()
    assert body["seatLimit"] is None and body["storageQuotaBytes"] == 2048 * GIB


async def test_billing_off_turns_every_gate_off(client) -> None:  # type: ignore[no-untyped-def]
    assert settings.billing == "off"
    world = await make_world(plan="team")
    await set_workspace(world.workspace.id, subscription_status="canceled")
    proposals = f"{API}/projects/{world.project.id}/proposals"
    body = {"title": "Fit-out", "validUntil": "2030-01-01T00:00:00Z"}
    assert (
        await client.post(proposals, json=body, headers=world.member.headers)
    ).status_code == 200
    shown = (
        await client.get(f"{API}/workspaces/{world.workspace.id}", headers=world.owner.headers)
    ).json()
    assert shown["seatLimit"] is None and shown["storageQuotaBytes"] is None


# A workspace-level module as the materials one will be: reads on team, writes on pro.
CanReadThings = Annotated[
    WorkspaceContext, Depends(workspace_access(None, feature=Feature.MATERIALS_READ))
]
CanWriteThings = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.WORKSPACE_UPDATE, feature=Feature.MATERIALS_WRITE)),
]


def _workspace_app() -> FastAPI:
    router = make_router()

    @router.get("/workspaces/{workspaceId}/things")
    async def things(ctx: CanReadThings) -> dict[str, bool]:
        return {"ok": True}

    @router.post("/workspaces/{workspaceId}/things")
    async def add_thing(ctx: CanWriteThings) -> dict[str, bool]:
        return {"ok": True}

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    return app


@pytest.mark.usefixtures("billing_local")
async def test_workspace_routes_take_a_feature() -> None:
    world = await make_world(plan="team")
    transport = httpx.ASGITransport(app=_workspace_app())
    async with httpx.AsyncClient(
        transport=transport, base_url=ORIGIN, headers={"Origin": ORIGIN}
    ) as plain:
        path = f"/workspaces/{world.workspace.id}/things"
        assert (await plain.get(path, headers=world.member.headers)).status_code == 200
        refused = await plain.post(path, headers=world.admin.headers)
        assert refused.status_code == 402 and refused.json()["requiredPlan"] == "pro"
        other = await make_world(plan="team")
        assert (await plain.post(path, headers=other.owner.headers)).status_code == 404
        await set_workspace(world.workspace.id, plan="pro")
        assert (await plain.post(path, headers=world.admin.headers)).status_code == 200
        assert (await plain.post(path, headers=world.member.headers)).status_code == 403
        await set_workspace(world.workspace.id, subscription_status="canceled")
        assert (await plain.get(path, headers=world.member.headers)).status_code == 200
        lapsed = await plain.post(path, headers=world.admin.headers)
        assert lapsed.status_code == 402 and lapsed.json()["code"] == "SUBSCRIPTION_INACTIVE"
