"""The unit-of-work route: ``DB`` and ``UoW`` are ordinary FastAPI dependencies handing over the
route's own session, which commits once on success and rolls back on any answer >= 400; expected
constraint violations answer their named 409, any other error a 500 ``INTERNAL``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import event, func, select

from plumbline.constraints import EXPECTED
from plumbline.db import DB, UoW, database
from plumbline.errors import Conflict, install_error_handlers
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.kit.middleware import RequestContextMiddleware
from plumbline.kit.responses import ORJSONResponse
from plumbline.models import (
    Asset,
    AuthSession,
    BillingEvent,
    CloudConnection,
    ExternalIdentity,
    File,
    Folder,
    Issue,
    LabourRate,
    MaintenanceCompletion,
    Material,
    Membership,
    OccupantRequest,
    Part,
    ProjectMember,
    ProposalTemplate,
    PunchItemAssignee,
    RfiAssignee,
    ScimUser,
    SsoConfig,
    SsoDomain,
    User,
    WorkOrderCost,
    Workspace,
)
from plumbline.routing import make_router
from tests.factories import (
    World,
    add_member,
    create_asset,
    create_schedule,
    create_user,
    om_url,
    set_project,
)


def _user(email: str) -> User:
    now = clock.now()
    return User(name="Row", email=email, email_verified=True, created_at=now, updated_at=now)


def _duplicate(case: str, ids: dict[str, str]) -> Any:
    """A row that repeats one the world already holds, for each expected constraint."""
    now = clock.now()
    rows = {
        "uq_users_email": lambda: _user(ids["email"]),
        "uq_workspaces_slug": lambda: Workspace(
            name="Twin",
            slug=ids["slug"],
            plan="trial",
            subscription_status="trialing",
            trial_ends_at=now + timedelta(days=14),
            created_by=ids["userId"],
            created_at=now,
            updated_at=now,
        ),
        "uq_memberships_workspace_id_user_id": lambda: Membership(
            workspace_id=ids["workspaceId"], user_id=ids["userId"], role="MEMBER", joined_at=now
        ),
        "uq_project_members_project_id_user_id": lambda: ProjectMember(
            project_id=ids["projectId"],
            user_id=ids["restrictedId"],
            workspace_id=ids["workspaceId"],
            created_at=now,
        ),
        "pk_rfi_assignees": lambda: RfiAssignee(
            rfi_id=ids["rfiId"], user_id=ids["userId"], position=1
        ),
        "pk_punch_item_assignees": lambda: PunchItemAssignee(
            punch_item_id=ids["punchId"], user_id=ids["userId"], position=1
        ),
        "uq_materials_workspace_id_sku": lambda: Material(
            workspace_id=ids["workspaceId"],
            name="Twin",
            unit="m",
            unit_price=0,
            currency="USD",
            sku=ids["sku"],
        ),
        "pk_billing_events": lambda: BillingEvent(
            event_id=ids["eventId"], type="invoice.paid", outcome="received", received_at=now
        ),
        "fk_folders_parent_id_folders": lambda: Folder(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            parent_id=new_id(),
            name="Orphan",
        ),
        "fk_files_folder_id_folders": lambda: File(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            folder_id=new_id(),
            name="orphan.pdf",
            normalized_name="orphan.pdf",
            disciplines=[],
            current_version=0,
            version_seq=0,
        ),
        "uq_assets_project_tag_live": lambda: Asset(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            tag=ids["assetTag"],
            name="Twin",
            status="ACTIVE",
            meters=[],
            created_at=now,
            updated_at=now,
        ),
        "uq_maintenance_completions_work_order_id": lambda: MaintenanceCompletion(
            schedule_id=ids["scheduleId"],
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            work_order_id=ids["workOrderId"],
            due_at=now,
            completed_at=now,
            on_time=True,
            created_at=now,
        ),
        "uq_cloud_connections_user_id_provider": lambda: CloudConnection(
            user_id=ids["userId"], provider="google", access_token="sealed"
        ),
        "uq_sso_domains_domain": lambda: SsoDomain(
            workspace_id=ids["workspaceId"], domain=ids["ssoDomain"], created_at=now
        ),
        "uq_sso_configs_workspace_id": lambda: SsoConfig(
            workspace_id=ids["workspaceId"],
            issuer="https://idp.example",
            client_id="twin",
            client_secret="sealed",
            default_role="MEMBER",
            verification_token="twin",
            created_at=now,
            updated_at=now,
        ),
        "uq_external_identities_issuer_subject": lambda: ExternalIdentity(
            user_id=ids["userId"],
            workspace_id=ids["workspaceId"],
            issuer="https://idp.example",
            subject=ids["subject"],
            created_at=now,
        ),
        "uq_scim_users_workspace_id_user_id": lambda: ScimUser(
            workspace_id=ids["workspaceId"],
            user_id=ids["userId"],
            user_name="twin",
            user_name_key="twin",
            attributes={},
            created_at=now,
            updated_at=now,
        ),
        "uq_occupant_requests_tracking_token_hash": lambda: OccupantRequest(
            issue_id=ids["workOrderId"],
            link_id=ids["linkId"],
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            reporter_name="Twin",
            reporter_email="twin@example.com",
            tracking_token_hash=ids["trackingHash"],
            photo_token_hash=new_id(),
            photo_token_expires_at=now,
            created_at=now,
        ),
        "uq_issues_project_external_id_live": lambda: Issue(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            number=10_000,
            title="Twin",
            external_id=ids["externalId"],
            checklist=[],
            created_at=now,
            updated_at=now,
        ),
        "uq_assets_project_external_id_live": lambda: Asset(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            tag="TWIN-EXT",
            name="Twin",
            external_id=ids["externalId"],
            status="ACTIVE",
            meters=[],
            created_at=now,
            updated_at=now,
        ),
        "uq_materials_workspace_id_external_id": lambda: Material(
            workspace_id=ids["workspaceId"],
            name="Twin",
            unit="m",
            unit_price=0,
            currency="USD",
            external_id=ids["externalId"],
        ),
        "uq_proposal_templates_workspace_id_name": lambda: ProposalTemplate(
            workspace_id=ids["workspaceId"], name=ids["templateName"], body="Twin"
        ),
        "uq_om_parts_workspace_sku_live": lambda: Part(
            workspace_id=ids["workspaceId"],
            name="Twin",
            unit="each",
            sku=ids["sku"],
            unit_cost=0,
            created_at=now,
            updated_at=now,
        ),
        "uq_om_work_order_costs_running": lambda: WorkOrderCost(
            project_id=ids["projectId"],
            workspace_id=ids["workspaceId"],
            work_order_id=ids["workOrderId"],
            kind="LABOUR",
            user_id=ids["userId"],
            running=True,
            amount=0,
            incurred_at=now,
            created_at=now,
            updated_at=now,
        ),
        "pk_om_labour_rates": lambda: LabourRate(
            workspace_id=ids["workspaceId"], user_id=ids["userId"], hourly_rate=1, updated_at=now
        ),
    }
    return rows[case]()


def _app() -> FastAPI:
    router = make_router()

    @router.post("/users/{email}")
    async def add_user(email: str, db: DB, uow: UoW, status: int = 200) -> ORJSONResponse:
        assert db is uow.session  # both dependencies hand over the route's own session
        db.add(_user(email))
        await db.flush()
        if status == 409:
            raise Conflict("Refused after writing")
        return ORJSONResponse({"ok": True}, status_code=status)

    @router.post("/duplicates/{case}")
    async def duplicate(case: str, ids: dict[str, str], db: DB) -> dict[str, bool]:
        db.add(_duplicate(case, ids))
        await db.flush()
        return {"ok": True}

    @router.post("/sessions/{token_hash}")
    async def add_session(token_hash: str, ids: dict[str, str], db: DB) -> dict[str, bool]:
        now = clock.now()
        db.add(
            AuthSession(
                user_id=ids["userId"],
                token_hash=token_hash,
                expires_at=now + timedelta(days=1),
                created_at=now,
                updated_at=now,
            )
        )
        return {"ok": True}  # flushed by the route's commit, which fails

    @router.get("/broken")
    async def broken() -> None:
        raise RuntimeError("a bug")

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    app.add_middleware(RequestContextMiddleware)
    return app


@pytest.fixture
async def plain() -> Any:
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


class _Commits:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, *_: object) -> None:
        self.count += 1


@pytest.fixture
def commits() -> Iterator[_Commits]:
    counter = _Commits()
    event.listen(database.engine.sync_engine, "commit", counter)
    yield counter
    event.remove(database.engine.sync_engine, "commit", counter)


async def _users(email: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).select_from(User).where(User.email == email)
        return int((await db.execute(query)).scalar_one())


async def test_a_success_commits_once(plain: httpx.AsyncClient, commits: _Commits) -> None:
    email = f"{new_id()}@example.com"
    response = await plain.post(f"/users/{email}")
    assert response.status_code == 200
    assert commits.count == 1
    assert await _users(email) == 1


@pytest.mark.parametrize("status", [400, 404, 409])
async def test_an_answer_of_400_or_more_rolls_back(
    plain: httpx.AsyncClient, commits: _Commits, status: int
) -> None:
    email = f"{new_id()}@example.com"
    response = await plain.post(f"/users/{email}", params={"status": status})
    assert response.status_code == status
    assert commits.count == 0
    assert await _users(email) == 0


async def _ids(client: httpx.AsyncClient, world: World) -> dict[str, str]:
    headers = world.member.headers
    rfi = await client.post(
        f"/api/v1/projects/{world.project.id}/rfi",
        json={"title": "Twin", "question": "Which?", "assigneeIds": [world.member.id]},
        headers=headers,
    )
    punch = await client.post(
        f"/api/v1/projects/{world.project.id}/punch",
        json={"title": "Twin", "assigneeIds": [world.member.id]},
        headers=headers,
    )
    assert (rfi.status_code, punch.status_code) == (200, 200), (rfi.text, punch.text)
    material = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/materials",
        json={"name": "Twin", "unit": "m", "sku": "TWIN-1", "externalId": "ERP-1"},
        headers=world.manager.headers,
    )
    assert material.status_code == 200, material.text
    template = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/proposal-templates",
        json={"name": "Twin", "body": "Dear {{client.name}}"},
        headers=world.manager.headers,
    )
    assert template.status_code == 200, template.text
    part = await client.post(
        f"/api/v1/workspaces/{world.workspace.id}/om/parts",
        json={"name": "Twin", "unit": "each", "sku": "TWIN-1"},
        headers=world.manager.headers,
    )
    rate = await client.put(
        f"/api/v1/workspaces/{world.workspace.id}/om/labour-rates/{world.member.id}",
        json={"hourlyRate": 50},
        headers=world.manager.headers,
    )
    assert (part.status_code, rate.status_code) == (200, 200), (part.text, rate.text)
    restricted = await create_user()
    await add_member(world.workspace, restricted, project_ids=[world.project.id])
    await set_project(world.project.id, operations_mode=True)
    asset = await create_asset(client, world, externalId="ERP-1")
    issue = await client.post(
        f"/api/v1/projects/{world.project.id}/issues",
        json={"title": "Twin", "externalId": "ERP-1"},
        headers=headers,
    )
    assert issue.status_code == 200, issue.text
    schedule = await create_schedule(client, world, asset["id"])
    generated = await client.post(
        om_url(world.project, "/maintenance/generate-work-orders"), headers=headers
    )
    [work_order_id] = generated.json()["created"]
    completed = await client.post(
        om_url(world.project, f"/maintenance/{schedule['id']}/complete"),
        json={"workOrderId": work_order_id},
        headers=headers,
    )
    assert completed.status_code == 200, completed.text
    timer = await client.post(
        om_url(world.project, f"/work-orders/{work_order_id}/costs/timer/start"),
        json={},
        headers=headers,
    )
    assert timer.status_code == 200, timer.text
    link = await client.post(
        om_url(world.project, "/occupant-links"),
        json={"label": "Twin"},
        headers=world.manager.headers,
    )
    reported = await client.post(
        f"/api/v1/occupant/{link.json()['token']}/submit",
        json={"title": "Twin", "description": "Twin", "reporterName": "Twin",
              "reporterEmail": "twin@example.com"},
    )  # fmt: skip
    assert reported.status_code == 200, reported.text
    async with database.sessionmaker() as db:
        tracking_hash = (
            await db.execute(
                select(OccupantRequest.tracking_token_hash).where(
                    OccupantRequest.issue_id == reported.json()["issueId"]
                )
            )
        ).scalar_one()
    event_id = f"evt_{new_id()}"
    async with database.sessionmaker() as db:
        db.add(
            BillingEvent(event_id=event_id, type="x", outcome="applied", received_at=clock.now())
        )
        await db.commit()
    async with database.sessionmaker() as db, db.begin():
        db.add(CloudConnection(user_id=world.member.id, provider="google", access_token="sealed"))
    sso_domain, subject = f"d{new_id()[-12:]}.example.com", new_id()
    sso = await client.put(
        f"/api/v1/workspaces/{world.workspace.id}/sso",
        json={"issuer": "https://idp.example", "clientId": "c", "clientSecret": "s",
              "domains": [sso_domain]},
        headers=world.admin.headers,
    )  # fmt: skip
    assert sso.status_code == 200, sso.text
    async with database.sessionmaker() as db, db.begin():
        now = clock.now()
        db.add(
            ExternalIdentity(
                user_id=world.member.id,
                workspace_id=world.workspace.id,
                issuer="https://idp.example",
                subject=subject,
                created_at=now,
            )
        )
        db.add(
            ScimUser(
                workspace_id=world.workspace.id,
                user_id=world.member.id,
                user_name="member",
                user_name_key="member",
                attributes={},
                created_at=now,
                updated_at=now,
            )
        )
    return {
        "assetTag": asset["tag"],
        "scheduleId": schedule["id"],
        "workOrderId": work_order_id,
        "eventId": event_id,
        "email": world.member.user.email,
        "slug": world.workspace.slug,
        "userId": world.member.id,
        "workspaceId": world.workspace.id,
        "projectId": world.project.id,
        "restrictedId": restricted.id,
        "rfiId": rfi.json()["id"],
        "punchId": punch.json()["id"],
        "sku": material.json()["sku"],
        "templateName": template.json()["name"],
        "linkId": link.json()["id"],
        "trackingHash": tracking_hash,
        "externalId": "ERP-1",  # an issue's, an asset's and a material's
        "ssoDomain": sso_domain,
        "subject": subject,
    }


async def test_each_expected_constraint_answers_its_own_conflict(
    client: httpx.AsyncClient, plain: httpx.AsyncClient, world: World
) -> None:
    ids = await _ids(client, world)
    answers = {}
    for case in EXPECTED:
        response = await plain.post(f"/duplicates/{case}", json=ids)
        answers[case] = (response.status_code, response.json())
    expected = {
        case: (409, {"error": make().message, "code": make().code})
        for case, make in EXPECTED.items()
    }
    if database.engine.dialect.name == "sqlite":  # its foreign-key errors name no constraint
        internal = (500, {"error": "Internal server error", "code": "INTERNAL"})
        expected |= {case: internal for case in EXPECTED if case.startswith("fk_")}
    assert answers == expected
    messages = [make().message for make in EXPECTED.values()]
    assert len(set(messages)) == len(messages)
    codes = {make().code for case, make in EXPECTED.items() if case != "uq_users_email"}
    assert codes == {"CONFLICT"}  # sign-up keeps Better Auth's USER_ALREADY_EXISTS


async def test_an_unexpected_constraint_is_a_500_with_the_request_id_logged(
    plain: httpx.AsyncClient, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    taken = new_id()
    ids = {"userId": world.member.id}
    assert (await plain.post(f"/sessions/{taken}", json=ids)).status_code == 200
    with caplog.at_level(logging.ERROR, logger="plumbline"):
        response = await plain.post(
            f"/sessions/{taken}", json=ids, headers={"X-Request-Id": "req-dup-token"}
        )
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error", "code": "INTERNAL"}
    assert response.headers["x-request-id"] == "req-dup-token"
    [record] = [r for r in caplog.records if r.getMessage() == "unhandled error"]
    assert record.requestId == "req-dup-token"
    assert "IntegrityError" in caplog.text


async def test_any_other_error_is_the_same_500(
    plain: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="plumbline"):
        response = await plain.get("/broken")
    assert response.status_code == 500
    assert response.json() == {"error": "Internal server error", "code": "INTERNAL"}
    [record] = [r for r in caplog.records if r.getMessage() == "unhandled error"]
    assert record.requestId == response.headers["x-request-id"]
