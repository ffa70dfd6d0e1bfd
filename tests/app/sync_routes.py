"""For each list route of the OpenAPI, how to make one row of it: ``test_incremental_sync``
makes three at distinct (frozen) instants and walks the list in updatedSince mode.

A maker creates one row at the current clock and returns the value of its key in the list (its
``id``, or ``userId`` for people); ``params`` gives the path parameters beyond ``projectId`` and
``workspaceId``, made once before the rows (a parent record, a portal token)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from plumbline.kit.ids import new_id
from tests.factories import World, add_member, create_asset, create_schedule, create_user
from tests.om_inspections.helpers import create_template
from tests.viewer.helpers import create_file_version

P = "/api/v1/projects/{projectId}"
W = "/api/v1/workspaces/{workspaceId}"
VALID = "2039-12-31T17:00:00Z"  # the walk's clock runs in 2030


@dataclass
class Ctx:
    client: httpx.AsyncClient
    world: World
    outbox: Path
    made: dict[str, Any] = field(default_factory=dict)

    async def post(self, path: str, body: dict[str, Any], actor: str = "manager") -> Any:
        headers = getattr(self.world, actor).headers if actor != "public" else {}
        response = await self.client.post(self.url(path), json=body, headers=headers)
        assert response.status_code == 200, (path, response.text)
        return response.json()

    async def get(self, path: str, actor: str = "owner") -> Any:
        response = await self.client.get(self.url(path), headers=getattr(self.world, actor).headers)
        assert response.status_code == 200, (path, response.text)
        return response.json()

    def url(self, path: str) -> str:
        ids = {"projectId": self.world.project.id, "workspaceId": self.world.workspace.id}
        return path.format(**ids, **self.made)


Maker = Callable[[Ctx], Awaitable[str]]


@dataclass(frozen=True)
class ListRoute:
    make: Maker
    params: Callable[[Ctx], Awaitable[dict[str, str]]] | None = None
    actor: str = "owner"  # "public": the portal's token is the credential
    key: str = "id"


async def _id(ctx: Ctx, path: str, body: dict[str, Any], actor: str = "manager") -> str:
    return str((await ctx.post(path, body, actor))["id"])


async def _newest(ctx: Ctx, path: str, actor: str = "owner") -> str:
    return str((await ctx.get(path + "?limit=1", actor))[0]["id"])


def _made(**params: Callable[[Ctx], Awaitable[str]]) -> Callable[[Ctx], Awaitable[dict[str, str]]]:
    async def make(ctx: Ctx) -> dict[str, str]:
        for name, maker in params.items():
            ctx.made[name] = await maker(ctx)
        return {name: ctx.made[name] for name in params}

    return make


async def _sendable(ctx: Ctx) -> dict[str, Any]:
    body = {
        "title": "Fit-out",
        "validUntil": VALID,
        "clientName": "Dana Client",
        "clientEmail": f"client-{new_id()}@example.com",
        "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
    }
    result: dict[str, Any] = await ctx.post(P + "/proposals", body)
    return result


async def _sendable_id(ctx: Ctx) -> str:
    return str((await _sendable(ctx))["id"])


async def _sent_token(ctx: Ctx) -> str:
    """The portal token of a proposal just sent (its ``proposalId`` kept in ``ctx.made``)."""
    proposal = await _sendable(ctx)
    ctx.made["proposalId"] = proposal["id"]
    sent = await ctx.post(P + f"/proposals/{proposal['id']}/send", {})
    return str(sent["portalUrl"].rsplit("/", 1)[1])


async def _revision(ctx: Ctx) -> str:
    """Each send of a proposal is a revision: the client asks for changes, the team resends."""
    if "revised" in ctx.made:
        portal = "/api/v1/public/proposals/" + ctx.made["revised"]
        await ctx.post(portal + "/request-changes", {"comment": "Cheaper"}, actor="public")
    sent = await ctx.post(P + "/proposals/{proposalId}/send", {})
    ctx.made["revised"] = sent["portalUrl"].rsplit("/", 1)[1]
    return await _newest(ctx, P + "/proposals/{proposalId}/revisions")


async def _reading(ctx: Ctx) -> str:
    ctx.made["reading"] = ctx.made.get("reading", 0) + 10
    body = {"meterType": "RUN_HOURS", "value": ctx.made["reading"]}
    return await _id(ctx, P + "/om/assets/{assetId}/meter-readings", body, actor="member")


async def _person(ctx: Ctx) -> str:
    actor = await create_user(name="Sam Sync")
    await add_member(ctx.world.workspace, actor)
    return actor.id


async def _notification(ctx: Ctx) -> str:
    await ctx.post(P + "/issues", {"title": "For you", "assigneeId": ctx.world.owner.id})
    return await _newest(ctx, "/api/v1/me/notifications")


async def _audit_entry(ctx: Ctx) -> str:
    issue = await ctx.post(P + "/issues", {"title": "Audited"})
    entries = await ctx.get(P + f"/audit-logs?entityId={issue['id']}")
    return str(entries[0]["id"])


async def _file(ctx: Ctx) -> str:
    version = await create_file_version(ctx.world.project, name=f"{new_id()}.pdf")
    return version.file_id


async def _asset(ctx: Ctx) -> str:
    meters = [{"type": "RUN_HOURS", "unit": "h"}]
    return str((await create_asset(ctx.client, ctx.world, meters=meters))["id"])


async def _schedule(ctx: Ctx) -> str:
    return str((await create_schedule(ctx.client, ctx.world, await _asset(ctx)))["id"])


async def _template(ctx: Ctx) -> str:
    return str((await create_template(ctx.client, ctx.world))["id"])


async def _once(ctx: Ctx, name: str, maker: Maker) -> str:
    if name not in ctx.made:
        ctx.made[name] = await maker(ctx)
    return str(ctx.made[name])


async def _part(ctx: Ctx) -> str:
    return await _id(ctx, W + "/om/parts", {"name": "V-belt", "unit": "each"})


async def _location(ctx: Ctx) -> str:
    return await _id(ctx, P + "/om/stock-locations", {"name": f"Room {new_id()}"})


async def _receipt(ctx: Ctx, part_id: str) -> str:
    location = await _once(ctx, "location", _location)
    body = {"partId": part_id, "locationId": location, "quantity": 2}
    return await _id(ctx, P + "/om/stock/receipts", body)


async def _level(ctx: Ctx) -> str:
    """A new part received: a new stock level row."""
    await _receipt(ctx, await _part(ctx))
    return await _newest(ctx, P + "/om/stock")


async def _move(ctx: Ctx) -> str:
    return await _receipt(ctx, await _once(ctx, "part", _part))


async def _cost(ctx: Ctx) -> str:
    order = await _once(
        ctx,
        "workOrder",
        lambda c: _id(c, P + "/issues", {"title": "Fix", "issueKind": "WORK_ORDER"}),
    )
    body = {"category": "TRAVEL", "description": "Van", "amount": "12.50"}
    return await _id(ctx, P + f"/om/work-orders/{order}/costs/other", body, "member")


async def _purchase_order(ctx: Ctx) -> str:
    vendor = await _once(ctx, "vendor", lambda c: _id(c, W + "/vendors", {"name": "Acme"}))
    body = {
        "vendorId": vendor,
        "locationId": await _once(ctx, "location", _location),
        "lines": [{"partId": await _once(ctx, "part", _part), "quantity": 3}],
    }
    return await _id(ctx, P + "/om/purchase-orders", body)


async def _downtime(ctx: Ctx) -> str:
    """A closed interval a day after the last one made (intervals may not overlap)."""
    ctx.made["downtimeDay"] = day = ctx.made.get("downtimeDay", 0) + 1
    started = datetime(2025, 1, 1, 8, tzinfo=UTC) + timedelta(days=day)  # in the past
    body = {
        "startedAt": started.isoformat(),
        "endedAt": (started + timedelta(hours=2)).isoformat(),
        "reason": "Trip",
    }
    return await _id(ctx, P + "/om/assets/{assetId}/downtime", body, "member")


def _body(path: str, body: Callable[[], dict[str, Any]], actor: str = "manager") -> Maker:
    async def make(ctx: Ctx) -> str:
        return await _id(ctx, path, body(), actor)

    return make


def _named(prefix: str) -> Callable[[], dict[str, Any]]:
    return lambda: {"name": f"{prefix} {new_id()}"}


def _webhook() -> dict[str, Any]:
    # A reserved name: saved, never resolved, so its test deliveries go nowhere.
    return {"url": f"https://{new_id()}.receiver.example/in", "events": ["issue.created"]}


ROUTES: dict[str, ListRoute] = {
    P + "/issues": ListRoute(_body(P + "/issues", lambda: {"title": "Leak"})),
    P + "/issues/{issueId}/comments": ListRoute(
        _body(P + "/issues/{issueId}/comments", lambda: {"body": "Seen"}),
        _made(issueId=lambda ctx: _id(ctx, P + "/issues", {"title": "Leak"})),
    ),
    P + "/punch": ListRoute(_body(P + "/punch", lambda: {"title": "Paint"})),
    P + "/field-reports": ListRoute(
        _body(P + "/field-reports", lambda: {"title": "Day"}, actor="member")
    ),
    P + "/rfi": ListRoute(_body(P + "/rfi", lambda: {"title": "Beam"})),
    P + "/rfi/{rfiId}/messages": ListRoute(
        _body(P + "/rfi/{rfiId}/messages", lambda: {"body": "Which beam?"}),
        _made(rfiId=lambda ctx: _id(ctx, P + "/rfi", {"title": "Beam"})),
    ),
    P + "/proposals": ListRoute(_sendable_id),
    P + "/proposals/{proposalId}/revisions": ListRoute(
        _revision,
        _made(proposalId=_sendable_id),
    ),
    P + "/proposals/{proposalId}/comments": ListRoute(
        _body(P + "/proposals/{proposalId}/comments", lambda: {"body": "Check rates"}),
        _made(proposalId=_sendable_id),
    ),
    P + "/proposals/{proposalId}/messages": ListRoute(
        _body(P + "/proposals/{proposalId}/messages", lambda: {"body": "Any questions?"}),
        _made(token=_sent_token),
    ),
    "/api/v1/public/proposals/{token}/messages": ListRoute(
        _body("/api/v1/public/proposals/{token}/messages", lambda: {"body": "Paint?"}, "public"),
        _made(token=_sent_token),
        actor="public",
    ),
    P + "/om/occupant-links": ListRoute(
        _body(P + "/om/occupant-links", lambda: {"label": "Lobby"})
    ),
    P + "/om/assets": ListRoute(_asset),
    P + "/om/assets/{assetId}/meter-readings": ListRoute(_reading, _made(assetId=_asset)),
    P + "/om/maintenance": ListRoute(_schedule),
    W + "/om/parts": ListRoute(_part),
    W + "/vendors": ListRoute(_body(W + "/vendors", _named("Vendor"))),
    P + "/om/stock-locations": ListRoute(_location),
    P + "/om/stock": ListRoute(_level),
    P + "/om/stock/moves": ListRoute(_move),
    P + "/om/costs": ListRoute(_cost),
    P + "/om/purchase-orders": ListRoute(_purchase_order),
    P + "/om/assets/{assetId}/downtime": ListRoute(_downtime, _made(assetId=_asset)),
    P + "/om/inspection-templates": ListRoute(_template),
    P + "/om/inspection-runs": ListRoute(
        lambda ctx: _id(ctx, P + "/om/inspection-runs", {"templateId": ctx.made["templateId"]}),
        _made(templateId=_template),
    ),
    "/api/v1/me/notifications": ListRoute(_notification),
    W + "/members": ListRoute(_person, key="userId"),
    P + "/team": ListRoute(_person, key="userId"),
    W + "/invites": ListRoute(_body(W + "/invites", lambda: {"role": "MEMBER"}, "owner")),
    W + "/email-invites": ListRoute(
        _body(W + "/email-invites", lambda: {"email": f"{new_id()}@example.com"}, "owner")
    ),
    W + "/materials": ListRoute(
        _body(W + "/materials", lambda: {"name": "Grout", "unit": "kg", "unitPrice": "3.00"})
    ),
    W + "/projects": ListRoute(_body(W + "/projects", _named("Tower"), "owner")),
    W + "/proposal-templates": ListRoute(
        _body(W + "/proposal-templates", lambda: _named("Standard")() | {"body": "Dear client"})
    ),
    P + "/api-keys": ListRoute(
        _body(P + "/api-keys", lambda: {"name": "ERP", "scopes": ["issues:read"]}, "owner")
    ),
    P + "/audit-logs": ListRoute(_audit_entry),
    P + "/folders": ListRoute(_body(P + "/folders", _named("Folder"))),
    P + "/files": ListRoute(_file),
    "/api/v1/me/calendar-feeds": ListRoute(
        _body("/api/v1/me/calendar-feeds", _named("Mine"), "owner")
    ),
    P + "/calendar-feeds": ListRoute(_body(P + "/calendar-feeds", _named("Site"), "owner")),
    P + "/webhooks": ListRoute(_body(P + "/webhooks", _webhook, "owner")),
    P + "/webhooks/{webhookId}/deliveries": ListRoute(
        _body(P + "/webhooks/{webhookId}/test", dict, "owner"),
        _made(webhookId=lambda ctx: _id(ctx, P + "/webhooks", _webhook(), "owner")),
    ),
}

# List routes that are not collections to sync, each with its reason.
NOT_SYNCED = {
    # A download of the trail (CSV or JSON, oldest first, its own since/until filters), not a
    # page of a list.
    P + "/audit-logs/export",
    # The caller's connector settings: one per provider, keyed by provider, without ids.
    "/api/v1/cloud/connections",
}
