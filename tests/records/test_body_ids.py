"""Every id a request body names is checked against the caller's project (issue 24, item 2).

The test walks the served OpenAPI: each request-body property named ``...Id`` or ``...Ids`` must be
in one of the tables below. A REFERENCE row is sent (a) an id that exists nowhere and (b) a real id
of another workspace: 400 naming the field (one row keeps its module's documented answer),
nothing written (the workspace's audit log unchanged).
A LOCAL row names something inside the caller's own document (a task of the same PUT, an item of
the run's checklist): only (a). A TARGET row names the very thing the route acts on, as a path id
would: 404 for both, as for a path id. NOT_REFERENCES lists the rest, each with its reason."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from plumbline.app import create_app
from plumbline.db import database
from plumbline.kit.ids import new_id
from plumbline.models import AuditLog
from tests.factories import World, create_schedule, om_world
from tests.om_inspections.helpers import create_template, runs_url
from tests.viewer.helpers import create_file_version

P = "/api/v1/projects/{projectId}"
W = "/api/v1/workspaces/{workspaceId}"


class Ref:
    """Where the id under test goes in a body (``[REF]`` for a list field)."""


REF = Ref()


@dataclass(frozen=True)
class Need:
    """Another record of the caller's own world that the body needs."""

    kind: str


@dataclass(frozen=True)
class Row:
    kind: str  # what the id names (a key of MAKERS)
    body: dict[str, Any]
    actor: str = "manager"
    path: dict[str, str] = field(default_factory=dict)  # path parameter -> kind
    status: int = 400


# The path parameters and the records they name by default.
PATH_KINDS = {
    "projectId": "project",
    "workspaceId": "workspace",
    "issueId": "issue",
    "punchId": "punch",
    "rfiId": "rfi",
    "proposalId": "proposal",
    "assetId": "asset",
    "scheduleId": "schedule",
    "runId": "run",
    "userId": "user",
    "inviteId": "invite",
    "folderId": "folder",
    "fileId": "file",
    "partId": "part",
    "workOrderId": "work_order",
    "orderId": "purchase_order",
}

ISSUE = {"title": "Leak"}
TASK = {"id": "t1", "name": "Dig", "startDate": "2026-01-05T00:00:00Z"}
TASK |= {"endDate": "2026-01-09T00:00:00Z"}
SCHEDULE = {"title": "Filters", "frequency": "MONTHLY"}
UNTIL = "2031-01-01T00:00:00Z"
FILE = {"fileName": "A-101.pdf", "contentType": "application/pdf", "sizeBytes": 100}
PART = {"name": "V-belt", "unit": "each"}
COSTS = f"{P}/om/work-orders/{{workOrderId}}/costs"
ORDERS = f"{P}/om/purchase-orders"


def _order(**named: object) -> dict[str, object]:
    """A purchase order's body, the records it names made unless given."""
    body: dict[str, object] = {
        "vendorId": Need("vendor"),
        "locationId": Need("location"),
        "lines": [{"partId": Need("part"), "quantity": 1}],
    }
    if "partId" in named:
        body["lines"] = [{"partId": named.pop("partId"), "quantity": 1}]
    return body | named


ISSUE_CREATE: dict[tuple[str, str, str], Row] = {
    ("POST", f"{P}/issues", "assigneeId"): Row("user", ISSUE | {"assigneeId": REF}),
    ("POST", f"{P}/issues", "fileId"): Row("file", ISSUE | {"fileId": REF}),
    ("POST", f"{P}/issues", "fileVersionId"): Row("version", ISSUE | {"fileVersionId": REF}),
    ("POST", f"{P}/issues", "assetId"): Row("asset", ISSUE | {"assetId": REF}),
    ("POST", f"{P}/issues", "maintenanceScheduleId"): Row(
        "schedule",
        ISSUE
        | {
            "issueKind": "WORK_ORDER",
            "workOrderType": "PREVENTIVE",
            "maintenanceScheduleId": REF,
        },
    ),
}


def _bulk(row: Row) -> Row:
    """The create's row as the one record of an all-or-nothing bulk upsert."""
    return Row(row.kind, {"records": [row.body | {"externalId": "E-1"}], "allOrNothing": True})


REFERENCES: dict[tuple[str, str, str], Row] = {
    **ISSUE_CREATE,
    # a bulk upsert's record names them as the create does; refused all or nothing: 400
    **{
        ("POST", f"{P}/issues/bulk", f"records[].{name}"): _bulk(row)
        for (_, _, name), row in ISSUE_CREATE.items()
    },
    ("PATCH", f"{P}/issues/{{issueId}}", "assigneeId"): Row("user", {"assigneeId": REF}),
    ("PATCH", f"{P}/issues/{{issueId}}", "fileId"): Row("file", {"fileId": REF}),
    ("PATCH", f"{P}/issues/{{issueId}}", "fileVersionId"): Row("version", {"fileVersionId": REF}),
    ("PATCH", f"{P}/issues/{{issueId}}", "assetId"): Row("asset", {"assetId": REF}),
    ("PATCH", f"{P}/issues/{{issueId}}", "maintenanceScheduleId"): Row(
        "schedule", {"maintenanceScheduleId": REF}
    ),
    ("POST", f"{P}/punch", "assigneeIds"): Row("user", {"title": "Paint", "assigneeIds": [REF]}),
    ("POST", f"{P}/punch", "fileVersionId"): Row(
        "version", {"title": "Paint", "fileVersionId": REF}
    ),
    ("PATCH", f"{P}/punch/bulk", "assigneeIds"): Row(
        "user", {"ids": [Need("punch")], "assigneeIds": [REF]}
    ),
    ("PATCH", f"{P}/punch/{{punchId}}", "assigneeIds"): Row("user", {"assigneeIds": [REF]}),
    ("PATCH", f"{P}/punch/{{punchId}}", "fileVersionId"): Row("version", {"fileVersionId": REF}),
    ("POST", f"{P}/rfi", "assigneeIds"): Row("user", {"title": "Beam", "assigneeIds": [REF]}),
    ("POST", f"{P}/rfi", "managerId"): Row("user", {"title": "Beam", "managerId": REF}),
    ("POST", f"{P}/rfi", "issueIds"): Row("issue", {"title": "Beam", "issueIds": [REF]}),
    ("POST", f"{P}/rfi", "fileVersionId"): Row("version", {"title": "Beam", "fileVersionId": REF}),
    ("PATCH", f"{P}/rfi/{{rfiId}}", "assigneeIds"): Row("user", {"assigneeIds": [REF]}),
    ("PATCH", f"{P}/rfi/{{rfiId}}", "managerId"): Row("user", {"managerId": REF}),
    ("PATCH", f"{P}/rfi/{{rfiId}}", "issueIds"): Row("issue", {"issueIds": [REF]}),
    ("PATCH", f"{P}/rfi/{{rfiId}}", "fileVersionId"): Row("version", {"fileVersionId": REF}),
    # The RFI workflow's own rule (rfi/workflow.py): answering without naming a message of
    # this RFI is a refused step, 409 INVALID_TRANSITION.
    ("PATCH", f"{P}/rfi/{{rfiId}}", "answerMessageId"): Row(
        "message",
        {"status": "ANSWERED", "answerMessageId": REF},
        path={"rfiId": "rfi_in_review"},
        status=409,
    ),
    ("POST", f"{P}/proposals", "templateId"): Row(
        "proposal_template", {"title": "Fit-out", "validUntil": UNTIL, "templateId": REF}
    ),
    ("POST", f"{P}/proposals", "items[].materialId"): Row(
        "material",
        {"title": "Fit-out", "validUntil": UNTIL, "items": [{"quantity": 2, "materialId": REF}]},
    ),
    ("PATCH", f"{P}/proposals/{{proposalId}}", "items[].materialId"): Row(
        "material", {"items": [{"quantity": 2, "materialId": REF}]}
    ),
    ("POST", f"{P}/om/occupant-links", "assetId"): Row("asset", {"label": "Lobby", "assetId": REF}),
    ("POST", f"{P}/om/assets", "parentAssetId"): Row(
        "asset", {"tag": "PUMP-1", "name": "Pump", "parentAssetId": REF}
    ),
    ("PATCH", f"{P}/om/assets/{{assetId}}", "parentAssetId"): Row("asset", {"parentAssetId": REF}),
    ("POST", f"{P}/om/assets/bulk", "records[].parentAssetId"): Row(
        "asset",
        {
            "records": [{"externalId": "E-1", "tag": "P-1", "name": "Pump", "parentAssetId": REF}],
            "allOrNothing": True,
        },
    ),
    ("POST", f"{P}/om/maintenance", "assetId"): Row("asset", SCHEDULE | {"assetId": REF}),
    ("POST", f"{P}/om/maintenance", "assigneeId"): Row(
        "user", SCHEDULE | {"assetId": Need("asset"), "assigneeId": REF}
    ),
    ("PATCH", f"{P}/om/maintenance/{{scheduleId}}", "assigneeId"): Row("user", {"assigneeId": REF}),
    ("POST", f"{P}/om/maintenance/{{scheduleId}}/complete", "workOrderId"): Row(
        "work_order", {"workOrderId": REF}
    ),
    ("POST", f"{P}/om/inspection-runs", "templateId"): Row(
        "inspection_template", {"templateId": REF}
    ),
    ("POST", f"{P}/om/inspection-runs", "assetId"): Row(
        "asset", {"templateId": Need("inspection_template"), "assetId": REF}
    ),
    ("POST", f"{P}/om/inspection-runs", "assigneeId"): Row(
        "user", {"templateId": Need("inspection_template"), "assigneeId": REF}
    ),
    ("PATCH", f"{P}/om/inspection-runs/{{runId}}", "assetId"): Row("asset", {"assetId": REF}),
    ("PATCH", f"{P}/om/inspection-runs/{{runId}}", "assigneeId"): Row("user", {"assigneeId": REF}),
    ("PUT", f"{P}/schedule", "tasks[].assigneeId"): Row(
        "user", {"tasks": [TASK | {"assigneeId": REF}]}
    ),
    ("POST", f"{W}/members", "projectIds"): Row(
        "project", {"email": "ref@example.com", "projectIds": [REF]}, actor="owner"
    ),
    ("PATCH", f"{W}/members/{{userId}}/project-access", "projectIds"): Row(
        "project", {"projectIds": [REF]}, actor="owner"
    ),
    ("POST", f"{W}/email-invites", "projectIds"): Row(
        "project", {"email": "ref@example.com", "projectIds": [REF]}, actor="owner"
    ),
    ("PATCH", f"{W}/email-invites/{{inviteId}}", "projectIds"): Row(
        "project", {"projectIds": [REF]}, actor="owner"
    ),
    ("POST", f"{P}/folders", "parentId"): Row("folder", {"name": "Sub", "parentId": REF}),
    ("POST", f"{P}/folders/apply-structure", "parentId"): Row(
        "folder", {"template": "design-phase", "parentId": REF}
    ),
    ("PATCH", f"{P}/folders/{{folderId}}", "parentId"): Row("folder", {"parentId": REF}),
    ("POST", f"{P}/uploads/preview", "folderId"): Row("folder", {"folderId": REF, "files": [FILE]}),
    ("POST", "/api/v1/files/presign-upload", "folderId"): Row(
        "folder", FILE | {"projectId": Need("project"), "folderId": REF}
    ),
    ("POST", "/api/v1/files/presign-upload", "fileId"): Row(
        "file", FILE | {"projectId": Need("project"), "fileId": REF}
    ),
    ("PATCH", f"{P}/files/{{fileId}}", "folderId"): Row("folder", {"folderId": REF}),
    ("POST", f"{W}/om/parts", "materialId"): Row("material", PART | {"materialId": REF}),
    ("PATCH", f"{W}/om/parts/{{partId}}", "materialId"): Row("material", {"materialId": REF}),
    ("POST", f"{P}/om/stock/receipts", "partId"): Row(
        "part", {"partId": REF, "locationId": Need("location"), "quantity": 1}
    ),
    ("POST", f"{P}/om/stock/receipts", "locationId"): Row(
        "location", {"partId": Need("part"), "locationId": REF, "quantity": 1}
    ),
    ("POST", f"{P}/om/stock/adjustments", "partId"): Row(
        "part", {"partId": REF, "locationId": Need("location"), "onHand": 1, "reason": "Count"}
    ),
    ("POST", f"{P}/om/stock/adjustments", "locationId"): Row(
        "location", {"partId": Need("part"), "locationId": REF, "onHand": 1, "reason": "Count"}
    ),
    ("POST", f"{P}/om/stock/transfers", "partId"): Row(
        "part",
        {
            "partId": REF,
            "fromLocationId": Need("location"),
            "toLocationId": Need("location"),
            "quantity": 1,
        },
    ),
    ("POST", f"{P}/om/stock/transfers", "fromLocationId"): Row(
        "location",
        {
            "partId": Need("part"),
            "fromLocationId": REF,
            "toLocationId": Need("location"),
            "quantity": 1,
        },
    ),
    ("POST", f"{P}/om/stock/transfers", "toLocationId"): Row(
        "location",
        {
            "partId": Need("part"),
            "fromLocationId": Need("location"),
            "toLocationId": REF,
            "quantity": 1,
        },
    ),
    ("POST", f"{COSTS}/parts", "partId"): Row(
        "part", {"partId": REF, "locationId": Need("location"), "quantity": 1}
    ),
    ("POST", f"{COSTS}/parts", "locationId"): Row(
        "location", {"partId": Need("part"), "locationId": REF, "quantity": 1}
    ),
    ("POST", f"{COSTS}/labour", "userId"): Row(
        "user", {"userId": REF, "minutes": 30, "hourlyRate": 40}
    ),
    ("POST", ORDERS, "vendorId"): Row("vendor", _order(vendorId=REF)),
    ("POST", ORDERS, "locationId"): Row("location", _order(locationId=REF)),
    ("POST", ORDERS, "lines[].partId"): Row("part", _order(partId=REF)),
    ("PATCH", f"{ORDERS}/{{orderId}}", "vendorId"): Row("vendor", {"vendorId": REF}),
    ("PATCH", f"{ORDERS}/{{orderId}}", "locationId"): Row("location", {"locationId": REF}),
    ("PATCH", f"{ORDERS}/{{orderId}}", "lines[].partId"): Row(
        "part", {"lines": [{"partId": REF, "quantity": 1}]}
    ),
    ("POST", f"{P}/om/assets/{{assetId}}/downtime", "workOrderId"): Row(
        "work_order", {"workOrderId": REF}
    ),
}

# Names inside the caller's own document: only an unknown one is sent.
LOCAL: dict[tuple[str, str, str], Row] = {
    ("PUT", f"{P}/schedule", "tasks[].parentId"): Row(
        "task", {"tasks": [TASK | {"parentId": REF}]}
    ),
    ("PUT", f"{P}/schedule", "tasks[].dependencies[].taskId"): Row(
        "task", {"tasks": [TASK | {"dependencies": [{"taskId": REF}]}]}
    ),
    # an item of the run's own checklist (copied from its template)
    ("PATCH", f"{P}/om/inspection-runs/{{runId}}", "results[].itemId"): Row(
        "item", {"results": [{"itemId": REF, "outcome": "PASS"}]}
    ),
    # a line of the order received
    ("POST", f"{ORDERS}/{{orderId}}/receive", "lines[].lineId"): Row(
        "line",
        {"lines": [{"lineId": REF, "quantity": 1}]},
        path={"orderId": "ordered_purchase_order"},
    ),
    # a photo uploaded to this run
    ("PATCH", f"{P}/om/inspection-runs/{{runId}}", "results[].photoUploadId"): Row(
        "upload", {"results": [{"itemId": "exits", "outcome": "PASS", "photoUploadId": REF}]}
    ),
}

# The thing the route acts on, named in the body instead of the path: 404 as a path id.
TARGETS: dict[tuple[str, str, str], Row] = {
    ("POST", f"{P}/field-reports/send-email", "reportId"): Row(
        "report", {"reportId": REF, "recipients": ["site@example.com"]}
    ),
    ("POST", "/api/v1/files/presign-upload", "projectId"): Row(
        "project", FILE | {"projectId": REF}
    ),
    ("POST", "/api/v1/files/complete-upload", "uploadId"): Row("upload", {"uploadId": REF}),
    ("POST", f"{P}/issues/{{issueId}}/reference-photos/complete", "uploadId"): Row(
        "upload", {"uploadId": REF}
    ),
    ("POST", f"{P}/punch/{{punchId}}/reference-photos/complete", "uploadId"): Row(
        "upload", {"uploadId": REF}
    ),
    ("POST", f"{P}/rfi/{{rfiId}}/attachments/complete", "uploadId"): Row(
        "upload", {"uploadId": REF}
    ),
    ("POST", f"{P}/om/inspection-runs/{{runId}}/photos/complete", "uploadId"): Row(
        "upload", {"uploadId": REF}
    ),
}

# The caller's own key for a record (tests/records/test_bulk_upsert.py): not an id of ours.
OWN_KEY = "the caller's own key for the record, any text"
KEYED = {f"{P}/issues": "issueId", f"{P}/om/assets": "assetId", f"{W}/materials": "materialId"}
NOT_REFERENCES = {
    **{("POST", path, "externalId"): OWN_KEY for path in KEYED},
    **{("PATCH", f"{path}/{{{name}}}", "externalId"): OWN_KEY for path, name in KEYED.items()},
    **{("POST", f"{path}/bulk", "records[].externalId"): OWN_KEY for path in KEYED},
    ("POST", "/api/v1/file-versions/{fileVersionId}/viewer-collab/heartbeat", "connectionId"): (
        "generated by the client for its own viewer tab"
    ),
    ("POST", "/api/v1/file-versions/{fileVersionId}/viewer-collab/leave", "connectionId"): (
        "generated by the client for its own viewer tab"
    ),
    ("POST", "/api/v1/cloud/{provider}/browse", "folderId"): "an id of the cloud provider",
    ("PUT", "/api/v1/workspaces/{workspaceId}/sso", "clientId"): (
        "the client id the identity provider gave the workspace"
    ),
    ("POST", "/api/v1/cloud/{provider}/open-link", "itemId"): "an id of the cloud provider",
    ("POST", "/api/v1/cloud/{provider}/import", "itemId"): "an id of the cloud provider",
    ("POST", "/api/v1/cloud/{provider}/import", "projectId"): (
        "the import's target, checked by the same access as presign-upload's projectId (a "
        "TARGET row); the route needs a connected cloud account (tests/cloud)"
    ),
    ("POST", "/api/v1/cloud/{provider}/import", "folderId"): (
        "checked by the upload service's presign, the same code as presign-upload's folderId "
        "(a REFERENCE row); the route needs a connected cloud account (tests/cloud/test_cloud.py "
        "test_import_refusals)"
    ),
    ("POST", "/api/payments/checkout", "workspaceId"): (
        "the workspace billed, its access checked as a path id's (tests/billing)"
    ),
    ("POST", "/api/payments/portal", "workspaceId"): (
        "the workspace billed, its access checked as a path id's (tests/billing)"
    ),
    ("POST", "/api/v1/occupant/{token}/issues/{issueId}/reference-photos/complete", "uploadId"): (
        "the upload completed, on a token route (tests/occupant)"
    ),
}


def _id_fields(schema: dict[str, Any], components: dict[str, Any], prefix: str = "") -> set[str]:
    """Dotted paths of the properties named ...Id/...Ids (``[]`` for list items)."""
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    found: set[str] = set()
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            found |= _id_fields(sub, components, prefix)
    if schema.get("type") == "array" and "items" in schema:
        found |= _id_fields(schema["items"], components, f"{prefix}[]")
    for name, prop in schema.get("properties", {}).items():
        path = f"{prefix}.{name}" if prefix else name
        if name.endswith(("Id", "Ids")):
            found.add(path)
        found |= _id_fields(prop, components, path)
    return found


def body_id_fields() -> set[tuple[str, str, str]]:
    spec = create_app().openapi()
    components = spec["components"]["schemas"]
    found = set()
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            for media in operation.get("requestBody", {}).get("content", {}).values():
                for name in _id_fields(media["schema"], components):
                    found.add((method.upper(), path, name))
    return found


def test_every_body_id_is_in_a_table() -> None:
    listed = set(REFERENCES) | set(LOCAL) | set(TARGETS) | set(NOT_REFERENCES)
    missing = body_id_fields() - listed
    assert not missing, f"body ids in no table (add a row and check them): {sorted(missing)}"
    assert not listed - body_id_fields(), "rows for fields that no longer exist"


class Setup:
    """One world's records, each made on first use (through its routes, or a factory)."""

    def __init__(self, client: httpx.AsyncClient, world: World) -> None:
        self.client, self.world = client, world
        self.made: dict[str, str] = {}

    def headers(self, actor: str = "manager") -> dict[str, str]:
        headers: dict[str, str] = getattr(self.world, actor).headers
        return headers

    async def post(self, url: str, body: dict[str, Any], actor: str = "manager") -> Any:
        response = await self.client.post(url, json=body, headers=self.headers(actor))
        assert response.status_code == 200, response.text
        return response.json()

    def url(self, path: str) -> str:
        return path.replace("{projectId}", self.world.project.id).replace(
            "{workspaceId}", self.world.workspace.id
        )

    async def get(self, kind: str) -> str:
        if kind not in self.made:
            self.made[kind] = await MAKERS[kind](self)
        return self.made[kind]


async def _version(s: Setup) -> str:
    version = await create_file_version(s.world.project)
    s.made["file"] = version.file_id
    return version.id


async def _file(s: Setup) -> str:
    await s.get("version")
    return s.made["file"]


async def _schedule(s: Setup) -> str:
    return str((await create_schedule(s.client, s.world, await s.get("asset")))["id"])


async def _rfi_in_review(s: Setup) -> str:
    rfi = await s.post(s.url(f"{P}/rfi"), {"title": "Beam", "assigneeIds": [s.world.admin.id]})
    response = await s.client.patch(
        s.url(f"{P}/rfi/{rfi['id']}"), json={"status": "IN_REVIEW"}, headers=s.headers()
    )
    assert response.status_code == 200, response.text
    return str(rfi["id"])


async def _message(s: Setup) -> str:
    rfi = await s.get("rfi_in_review")
    message = await s.post(s.url(f"{P}/rfi/{rfi}/messages"), {"body": "<p>M16 bolts</p>"})
    return str(message["id"])


async def _run(s: Setup) -> str:
    template = await s.get("inspection_template")
    return str((await s.post(runs_url(s.world.project.id), {"templateId": template}))["id"])


async def _upload(s: Setup) -> str:
    target = await s.post("/api/v1/files/presign-upload", FILE | {"projectId": s.world.project.id})
    return str(target["uploadId"])


async def _made(s: Setup, path: str, body: dict[str, Any], actor: str = "manager") -> str:
    return str((await s.post(s.url(path), body, actor))["id"])


Maker = Callable[[Setup], Awaitable[str]]
MAKERS: dict[str, Maker] = {
    "user": lambda s: _value(s.world.member.id),
    "project": lambda s: _value(s.world.project.id),
    "workspace": lambda s: _value(s.world.workspace.id),
    "task": lambda s: _value("t2"),
    "item": lambda s: _value("exits"),
    "version": _version,
    "file": _file,
    "asset": lambda s: _made(s, f"{P}/om/assets", {"tag": f"AHU-{new_id()}", "name": "AHU"}),
    "schedule": _schedule,
    "issue": lambda s: _made(s, f"{P}/issues", ISSUE),
    "work_order": lambda s: _made(s, f"{P}/issues", ISSUE | {"issueKind": "WORK_ORDER"}),
    "punch": lambda s: _made(s, f"{P}/punch", {"title": "Paint"}),
    "rfi": lambda s: _made(s, f"{P}/rfi", {"title": "Beam"}),
    "rfi_in_review": _rfi_in_review,
    "message": _message,
    "proposal": lambda s: _made(s, f"{P}/proposals", {"title": "Fit-out", "validUntil": UNTIL}),
    "proposal_template": lambda s: _made(
        s, f"{W}/proposal-templates", {"name": f"T {new_id()}", "body": "Dear client"}
    ),
    "material": lambda s: _made(
        s, f"{W}/materials", {"name": "Cable", "unit": "m", "sku": f"C-{new_id()}"}
    ),
    "inspection_template": lambda s: _value_of(create_template(s.client, s.world)),
    "run": _run,
    "report": lambda s: _made(s, f"{P}/field-reports", {"title": "Day 1"}),
    "folder": lambda s: _made(s, f"{P}/folders", {"name": f"F {new_id()}"}),
    "invite": lambda s: _made(
        s, f"{W}/email-invites", {"email": f"{new_id()}@example.com"}, "owner"
    ),
    "upload": _upload,
    "part": lambda s: _made(s, f"{W}/om/parts", PART),
    "location": lambda s: _made(s, f"{P}/om/stock-locations", {"name": f"Room {new_id()}"}),
    "vendor": lambda s: _made(s, f"{W}/vendors", {"name": "Acme Spares"}),
    "purchase_order": lambda s: _purchase_order(s, ordered=False),
    "ordered_purchase_order": lambda s: _purchase_order(s, ordered=True),
}


async def _purchase_order(s: Setup, *, ordered: bool) -> str:
    body = await _resolve(_order(), s, "")
    order = await s.post(s.url(ORDERS), body)
    if ordered:
        await s.post(s.url(f"{ORDERS}/{order['id']}/approve"), {})
        await s.post(s.url(f"{ORDERS}/{order['id']}/order"), {"email": False})
    return str(order["id"])


async def _value(value: str) -> str:
    return value


async def _value_of(made: Awaitable[dict[str, Any]]) -> str:
    return str((await made)["id"])


async def _resolve(value: Any, s: Setup, ref: str) -> Any:
    if value is REF:
        return ref
    if isinstance(value, Need):
        return await s.get(value.kind)
    if isinstance(value, dict):
        return {k: await _resolve(v, s, ref) for k, v in value.items()}
    if isinstance(value, list):
        return [await _resolve(v, s, ref) for v in value]
    return value


async def _request(s: Setup, path: str, row: Row, ref: str) -> tuple[str, Any]:
    """The URL and body, with the records they name made first."""
    url = path
    for name in [p[1:-1] for p in path.split("/") if p.startswith("{")]:
        kind = row.path.get(name, PATH_KINDS[name])
        url = url.replace(f"{{{name}}}", await s.get(kind))
    return url, await _resolve(row.body, s, ref)


async def _audit_count(workspace_id: str) -> int:
    async with database.sessionmaker() as db:
        query = select(func.count()).where(AuditLog.workspace_id == workspace_id)
        return int((await db.execute(query)).scalar_one())


def _names(response: httpx.Response) -> list[str]:
    """The last name of each field in the details (``tasks.0.parentId`` -> ``parentId``)."""
    details = response.json().get("details") or []
    return [[p for p in d["field"].split(".") if not p.isdigit()][-1] for d in details]


def _leaf(name: str) -> str:
    return name.rsplit(".", 1)[-1].removesuffix("[]")


async def _refused(s: Setup, key: tuple[str, str, str], row: Row, ref: str, status: int) -> None:
    method, path, name = key
    url, body = await _request(s, path, row, ref)
    before = await _audit_count(s.world.workspace.id)
    response = await s.client.request(method, url, json=body, headers=s.headers(row.actor))
    assert response.status_code == status, (ref, response.text)
    if status == 400:
        assert response.json()["code"] == "VALIDATION_FAILED"
        assert _leaf(name) in _names(response), response.text
    assert await _audit_count(s.world.workspace.id) == before


def _ids(table: dict[tuple[str, str, str], Row]) -> list[str]:
    return [f"{m} {p.removeprefix('/api/v1')} {f}" for m, p, f in table]


@pytest.mark.parametrize("key", list(REFERENCES), ids=_ids(REFERENCES))
async def test_a_reference_names_a_record_of_the_callers_project(
    client: httpx.AsyncClient, key: tuple[str, str, str]
) -> None:
    row = REFERENCES[key]
    mine, theirs = Setup(client, await om_world()), Setup(client, await om_world())
    await _refused(mine, key, row, new_id(), row.status)
    await _refused(mine, key, row, await theirs.get(row.kind), row.status)


@pytest.mark.parametrize("key", list(LOCAL), ids=_ids(LOCAL))
async def test_a_local_name_is_one_of_the_document(
    client: httpx.AsyncClient, key: tuple[str, str, str]
) -> None:
    await _refused(Setup(client, await om_world()), key, LOCAL[key], new_id(), 400)


@pytest.mark.parametrize("key", list(TARGETS), ids=_ids(TARGETS))
async def test_a_target_of_another_workspace_is_not_found(
    client: httpx.AsyncClient, key: tuple[str, str, str]
) -> None:
    row = TARGETS[key]
    mine, theirs = Setup(client, await om_world()), Setup(client, await om_world())
    await _refused(mine, key, row, new_id(), 404)
    await _refused(mine, key, row, await theirs.get(row.kind), 404)


async def test_a_reference_to_a_deleted_record_is_refused(client: httpx.AsyncClient) -> None:
    """Soft-deleted records are gone for references too: an asset, here."""
    s = Setup(client, await om_world())
    asset = await s.get("asset")
    deleted = await client.delete(s.url(f"{P}/om/assets/{asset}"), headers=s.headers())
    assert deleted.status_code == 200, deleted.text
    response = await client.post(
        s.url(f"{P}/issues"), json=ISSUE | {"assetId": asset}, headers=s.headers()
    )
    assert response.status_code == 400, response.text
    assert _names(response) == ["assetId"]
