"""The world the authorization sweep (and the secrets-at-rest test) calls every route in: a
workspace with a project in operations mode and one record of each kind, made through HTTP,
with one caller of each kind the sweep plays.

``Seed.ids`` holds one value per *kind* of path parameter (``issue``, ``invite_token`` ...);
``MAKERS`` make a fresh one of a kind, for the routes whose allowed call uses a row up (a
delete, a revoke, an accepted invite)."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from PIL import Image

from plumbline.authz.permissions import SCOPES
from plumbline.demo.sheets import sheet_pdf
from plumbline.kit import ratelimit
from plumbline.kit.ids import new_id
from tests.factories import (
    Actor,
    World,
    add_member,
    create_api_key,
    create_project,
    create_user,
    create_workspace,
    external,
    link_in,
    make_world,
    read_mails,
    set_project,
)
from tests.file.helpers import upload

P = "/api/v1/projects/{p}"
W = "/api/v1/workspaces/{w}"
VALID = "2039-12-31T17:00:00Z"
SSO_CLIENT_SECRET = "sweep-sso-client-secret-a1b2c3"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


PNG_LOGO = _png()


@dataclass
class Seed:
    client: httpx.AsyncClient
    world: World
    outbox: Path
    actors: dict[str, Actor] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)  # name -> raw key
    secrets: dict[str, str] = field(default_factory=dict)  # what was handed out, by its name

    @property
    def owner(self) -> Actor:
        return self.world.owner

    def url(self, path: str) -> str:
        return path.format(p=self.world.project.id, w=self.world.workspace.id, **self.ids)

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        actor: Actor | None = None,
        *,
        expect: int = 200,
    ) -> Any:
        headers = (actor or self.world.manager).headers
        response = await self.client.request(method, self.url(path), json=body, headers=headers)
        assert response.status_code == expect, (method, path, response.text)
        return response.json() if response.content else None

    async def post(self, path: str, body: Any, actor: Actor | None = None) -> Any:
        return await self.call("POST", path, body, actor)


def _tail(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[1]


# --- makers: each makes one fresh row of a kind and returns the id (or token) of it ---------


async def _issue(s: Seed) -> str:
    # Assigned to the contractor: contractors update what is assigned to them.
    body = {"title": "Leak", "assigneeId": s.actors["CONTRACTOR"].id}
    return str((await s.post(P + "/issues", body))["id"])


async def _punch(s: Seed) -> str:
    body = {"title": "Paint", "assigneeIds": [s.actors["CONTRACTOR"].id]}
    return str((await s.post(P + "/punch", body))["id"])


async def _report(s: Seed) -> str:
    return str((await s.post(P + "/field-reports", {"title": "Day"}))["id"])


async def _rfi(s: Seed) -> str:
    return str((await s.post(P + "/rfi", {"title": "Beam depth?"}))["id"])


async def _proposal(s: Seed) -> str:
    body = {
        "title": "Fit-out",
        "validUntil": VALID,
        "clientName": "Dana Client",
        "clientEmail": f"client-{new_id()}@example.com",
        "items": [{"name": "Drywall", "quantity": "10", "unit": "m2", "rate": "12.50"}],
    }
    return str((await s.post(P + "/proposals", body))["id"])


async def _portal_token(s: Seed) -> str:
    """A proposal sent to its client: the portal token of the link it was sent."""
    proposal = await _proposal(s)
    sent = await s.post(P + f"/proposals/{proposal}/send", {})
    token = _tail(sent["portalUrl"])
    s.secrets.setdefault("proposal portal token", token)
    return token


async def _photo(s: Seed, base: str) -> str:
    presign = await s.post(
        base + "/reference-photos/presign",
        {"fileName": "crack.png", "contentType": "image/png", "sizeBytes": len(PNG)},
    )
    put = await s.client.request(
        presign["method"], presign["uploadUrl"], content=PNG, headers=presign["headers"]
    )
    assert put.status_code < 300, put.text
    done = await s.post(base + "/reference-photos/complete", {"uploadId": presign["uploadId"]})
    # An issue's completion answers the photo, a punch item's the item with its photos.
    return str(done["referencePhotos"][-1]["id"] if "referencePhotos" in done else done["id"])


async def _asset(s: Seed) -> str:
    body = {
        "tag": f"AHU-{new_id()[-8:]}",
        "name": "Air handler",
        "meters": [{"type": "RUN_HOURS", "unit": "h"}],
    }
    return str((await s.post(P + "/om/assets", body))["id"])


async def _schedule(s: Seed) -> str:
    body = {"assetId": s.ids["asset"], "title": "Filter change", "frequency": "MONTHLY"}
    return str((await s.post(P + "/om/maintenance", body))["id"])


async def _itemplate(s: Seed) -> str:
    body = {
        "name": "Fire walk",
        "frequency": "MONTHLY",
        "items": [{"id": "exits", "label": "Exits clear", "type": "CHECK"}],
    }
    return str((await s.post(P + "/om/inspection-templates", body))["id"])


async def _run(s: Seed) -> str:
    return str((await s.post(P + "/om/inspection-runs", {"templateId": s.ids["itemplate"]}))["id"])


async def _file(s: Seed) -> str:
    done = await upload(
        s.client, s.world.manager.headers, s.world.project.id, f"A-{new_id()}.pdf", sheet_pdf()
    )
    s.ids.setdefault("version", str(done["fileVersionId"]))
    return str(done["id"])


async def _version(s: Seed) -> str:
    done = await upload(
        s.client, s.world.manager.headers, s.world.project.id, f"A-{new_id()}.pdf", sheet_pdf()
    )
    return str(done["fileVersionId"])


async def _folder(s: Seed) -> str:
    return str((await s.post(P + "/folders", {"name": f"Folder {new_id()}"}))["id"])


async def _material(s: Seed) -> str:
    body = {"name": f"Grout {new_id()}", "unit": "kg", "unitPrice": "3.00"}
    return str((await s.post(W + "/materials", body))["id"])


async def _ptemplate(s: Seed) -> str:
    body = {"name": f"Standard {new_id()}", "body": "Dear {{client.name}}"}
    return str((await s.post(W + "/proposal-templates", body))["id"])


async def _webhook(s: Seed) -> str:
    # A reserved name: saved, never resolved, so its deliveries go nowhere.
    body = {"url": f"https://{new_id()}.receiver.example/in", "events": ["issue.created"]}
    created = await s.post(P + "/webhooks", body, s.owner)
    s.secrets.setdefault("webhook signing secret", created["secret"])
    return str(created["id"])


async def _delivery(s: Seed) -> str:
    await s.post(P + f"/webhooks/{s.ids['webhook']}/test", {}, s.owner)
    found = await s.call("GET", P + f"/webhooks/{s.ids['webhook']}/deliveries", actor=s.owner)
    return str(found[0]["id"])


async def _key(s: Seed) -> str:
    created = await s.post(P + "/api-keys", {"name": "ERP", "scopes": ["issues:read"]}, s.owner)
    s.secrets.setdefault("API key", created["apiKey"])
    return str(created["id"])


async def _member(s: Seed) -> str:
    """A workspace member the member-management routes act on (none of the callers)."""
    actor = await create_user(name="Tess Target")
    await add_member(s.world.workspace, actor, "MEMBER")
    return actor.id


async def _project_member(s: Seed) -> str:
    """An external on the project, for ``DELETE /projects/{p}/members/{userId}``."""
    return (await external(s.world, "SUBCONTRACTOR", name="Pat Target")).id


async def _invite(s: Seed) -> str:
    created = await s.post(W + "/invites", {"role": "MEMBER"}, s.owner)
    s.ids["invite_token_of_" + created["id"]] = _tail(created["url"])
    return str(created["id"])


async def _invite_token(s: Seed) -> str:
    invite = await _invite(s)
    token = s.ids.pop("invite_token_of_" + invite)
    s.secrets.setdefault("workspace invite token", token)
    return token


async def _email_invite(s: Seed, email_address: str | None = None) -> str:
    address = email_address or f"invitee-{new_id()}@example.com"
    created = await s.post(W + "/email-invites", {"email": address}, s.owner)
    return str(created["id"])


async def _email_invite_token(s: Seed, address: str | None = None) -> str:
    """An e-mail invite (to a new address by default); its token, from the e-mail."""
    address = address or f"invitee-{new_id()}@example.com"
    listed = await s.call("GET", W + "/email-invites", actor=s.owner)
    pending = [i for i in listed if i["email"] == address and i["acceptedAt"] is None]
    if pending:  # a new link for the pending invite
        await s.post(W + f"/email-invites/{pending[0]['id']}/resend", {}, s.owner)
    else:
        await _email_invite(s, address)
    token = _tail(link_in(read_mails(s.outbox, to=address)[-1]))
    s.secrets.setdefault("e-mail invite token", token)
    return token


async def _invitee_token(s: Seed) -> str:
    """An e-mail invite to the outsider, who may accept it."""
    return await _email_invite_token(s, s.actors["outsider"].user.email)


async def _logo(s: Seed) -> str:
    """The workspace with a logo: its id."""
    response = await s.client.put(
        s.url(W + "/logo"),
        content=PNG_LOGO,
        headers={**s.owner.headers, "Content-Type": "image/png"},
    )
    assert response.status_code == 200, response.text
    return s.world.workspace.id


async def _link(s: Seed) -> str:
    created = await s.post(P + "/om/occupant-links", {"label": f"Lobby {new_id()}"})
    s.ids["link_token_of_" + created["id"]] = created["token"]
    s.secrets.setdefault("occupant link token", created["token"])
    return str(created["id"])


async def _link_token(s: Seed) -> str:
    return s.ids.pop("link_token_of_" + await _link(s))


async def _occupant_request(s: Seed) -> dict[str, Any]:
    ratelimit.set_backend(ratelimit.MemoryBackend())
    body = {
        "title": "Cold office",
        "description": "Radiator off",
        "reporterName": "Rae Renter",
        "reporterEmail": f"rae-{new_id()}@example.com",
    }
    response = await s.client.post(s.url("/api/v1/occupant/{link_token}/submit"), json=body)
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    s.secrets.setdefault("occupant request tracking token", _tail(found["trackingUrl"]))
    s.secrets.setdefault("occupant photo token", found["photoToken"])
    return found


async def _me_feed(s: Seed) -> str:
    created = await s.post("/api/v1/me/calendar-feeds", {"name": f"Mine {new_id()}"}, s.owner)
    return str(created["id"])


async def _project_feed(s: Seed) -> str:
    created = await s.post(P + "/calendar-feeds", {"name": f"Site {new_id()}"}, s.owner)
    token = _tail(created["url"]).removesuffix(".ics")
    s.ids.setdefault("feed_token", token)
    s.secrets.setdefault("calendar feed token", token)
    return str(created["id"])


async def _object_token(s: Seed) -> str:
    found = await s.call("GET", "/api/v1/files/{file}/presign-read", actor=s.owner)
    return _tail(urlsplit(found["url"]).path)


async def _upload_token(s: Seed) -> str:
    body = {
        "fileName": f"B-{new_id()}.pdf",
        "contentType": "application/pdf",
        "sizeBytes": 10,
        "projectId": s.world.project.id,
    }
    found = await s.post("/api/v1/files/presign-upload", body)
    s.ids.setdefault("upload_id", found["uploadId"])
    return _tail(urlsplit(found["uploadUrl"]).path)


async def _checkout_token(s: Seed) -> str:
    body = {"workspaceId": s.world.workspace.id, "plan": "enterprise"}
    found = await s.post("/api/payments/checkout", body, s.owner)
    return _tail(urlsplit(found["url"]).path)


async def _billing_portal_token(s: Seed) -> str:
    if "paid" not in s.ids:  # the portal opens once the workspace has a subscription
        s.ids["paid"] = await _checkout_token(s)
        paid = await s.client.post(f"/api/payments/local/checkout/{s.ids['paid']}")
        assert paid.status_code == 303, paid.text
    found = await s.post("/api/payments/portal", {"workspaceId": s.world.workspace.id}, s.owner)
    return _tail(urlsplit(found["url"]).path)


async def connect_cloud(s: Seed, actor: Actor, provider: str = "google") -> None:
    """``actor`` connects ``provider`` (the local stand-in): authorize, approve, callback."""
    start = await s.client.get(
        f"/api/v1/cloud/{provider}/authorize", params={"returnTo": "/"}, headers=actor.headers
    )
    assert start.status_code == 302, start.text
    async with httpx.AsyncClient() as browser:
        approved = await browser.get(start.headers["location"])
    assert approved.status_code == 302, approved.text
    back = urlsplit(approved.headers["location"])
    done = await s.client.get(f"{back.path}?{back.query}", headers=actor.headers)
    assert done.status_code == 302, done.text
    found = await s.post(f"/api/v1/cloud/{provider}/browse", {}, actor)
    s.ids.setdefault("cloud_item", next(i["id"] for i in found if i["kind"] != "folder"))


async def _cloud(s: Seed) -> str:
    """The owner's connection to the provider (made again): the provider's name."""
    await connect_cloud(s, s.owner)
    return "google"


async def _project(s: Seed) -> str:
    return (await create_project(s.world.workspace, name=f"Spare {new_id()}")).id


async def _workspace(s: Seed) -> str:
    return (await create_workspace(s.owner, name="Spare Builders")).id


async def _part(s: Seed) -> str:
    body = {"name": "V-belt", "unit": "each", "sku": f"VB-{new_id()}", "unitCost": "12.50"}
    return str((await s.post(W + "/om/parts", body))["id"])


async def _location(s: Seed) -> str:
    return str((await s.post(P + "/om/stock-locations", {"name": f"Store {new_id()}"}))["id"])


async def _vendor(s: Seed) -> str:
    return str((await s.post(W + "/vendors", {"name": "Acme Supply"}))["id"])


async def _order(s: Seed) -> str:
    line = {"partId": s.ids["part"], "quantity": 3}
    body = {"vendorId": s.ids["vendor"], "locationId": s.ids["location"], "lines": [line]}
    return str((await s.post(P + "/om/purchase-orders", body))["id"])


async def _work_order(s: Seed) -> str:
    body = {"title": "Chiller trips", "issueKind": "WORK_ORDER"}
    body["assigneeId"] = s.actors["CONTRACTOR"].id
    return str((await s.post(P + "/issues", body))["id"])


async def _cost(s: Seed) -> str:
    body = {"category": "TRAVEL", "description": "Van", "amount": "12.50"}
    made = await s.post(P + "/om/work-orders/{work_order}/costs/other", body)
    return str(made["id"])


async def _downtime(s: Seed) -> str:
    """A closed interval in the past, a day after the last one made (they may not overlap)."""
    s.ids["downtime_days"] = str(days := int(s.ids.get("downtime_days", "0")) + 1)
    started = datetime(2025, 1, 1, 8, tzinfo=UTC) + timedelta(days=days)
    body = {
        "startedAt": started.isoformat(),
        "endedAt": (started + timedelta(hours=2)).isoformat(),
        "reason": "Trip",
    }
    return str((await s.post(P + "/om/assets/{asset}/downtime", body))["id"])


async def _sso(s: Seed) -> str:
    """The workspace's SSO configuration (again): its id is the workspace's."""
    body = {
        "issuer": "https://idp.example/realms/sweep",
        "clientId": "plumbline",
        "clientSecret": SSO_CLIENT_SECRET,
        "domains": [f"sweep-{s.world.workspace.id[-8:]}.example"],
    }
    await s.call("PUT", W + "/sso", body, s.owner)
    s.ids["sso_domain"] = body["domains"][0]
    return s.world.workspace.id


async def _scim_token(s: Seed) -> str:
    return str((await s.post(W + "/scim-tokens", {"name": "Okta"}, s.owner))["id"])


async def _workspace_slug(s: Seed) -> str:
    """The slug of a workspace without SSO."""
    return (await create_workspace(s.owner, name="No SSO Ltd")).slug


Maker = Callable[[Seed], Awaitable[str]]

MAKERS: dict[str, Maker] = {
    "project": _project,
    "workspace": _workspace,
    "issue": _issue,
    "issue_photo": lambda s: _photo(s, P + "/issues/{issue}"),
    "punch": _punch,
    "punch_photo": lambda s: _photo(s, P + "/punch/{punch}"),
    "report": _report,
    "rfi": _rfi,
    "proposal": _proposal,
    "portal_token": _portal_token,
    "asset": _asset,
    "schedule": _schedule,
    "itemplate": _itemplate,
    "run": _run,
    "file": _file,
    "version": _version,
    "folder": _folder,
    "material": _material,
    "ptemplate": _ptemplate,
    "webhook": _webhook,
    "delivery": _delivery,
    "key": _key,
    "member": _member,
    "project_member": _project_member,
    "invite": _invite,
    "invite_token": _invite_token,
    "email_invite": _email_invite,
    "email_invite_token": _email_invite_token,
    "invitee_token": _invitee_token,
    "logo": _logo,
    "cloud": _cloud,
    "link": _link,
    "link_token": _link_token,
    "me_feed": _me_feed,
    "project_feed": _project_feed,
    "object_token": _object_token,
    "upload_token": _upload_token,
    "checkout_token": _checkout_token,
    "billing_portal_token": _billing_portal_token,
    "part": _part,
    "location": _location,
    "vendor": _vendor,
    "order": _order,
    "work_order": _work_order,
    "cost": _cost,
    "downtime": _downtime,
    "sso": _sso,
    "scim_token": _scim_token,
    "workspace_slug": _workspace_slug,
}


async def seed(client: httpx.AsyncClient, outbox: Path) -> Seed:
    """The sweep's world: the callers, then one row of each kind (in dependency order)."""
    world = await make_world()
    await set_project(world.project.id, operations_mode=True)
    s = Seed(client, world, outbox)
    s.actors.update({"SUPER_ADMIN": world.owner, "ADMIN": world.admin, "MANAGER": world.manager})
    s.actors["MEMBER"] = world.member
    for role in ("CLIENT", "CONTRACTOR", "SUBCONTRACTOR"):
        s.actors[role] = await external(world, role, name=f"{role.title()} Person")
    unverified = await create_user(name="Uma Unverified", verified=False)
    await add_member(world.workspace, unverified, "MEMBER")
    s.actors["unverified"] = unverified
    outsider = await create_user(name="Otto Outsider")
    await create_workspace(outsider, name="Elsewhere Ltd")
    s.actors["outsider"] = outsider
    other_project = await create_project(world.workspace, name="Tower B")
    s.keys["other"] = (await create_api_key(other_project, list(SCOPES)))[0]
    s.keys["revoked"] = (await create_api_key(world.project, list(SCOPES), revoked=True))[0]
    s.keys["full"] = (await create_api_key(world.project, list(SCOPES)))[0]
    s.ids["provider"] = "google"
    for kind in (
        "issue",
        "punch",
        "report",
        "rfi",
        "proposal",
        "portal_token",
        "asset",
        "schedule",
        "itemplate",
        "run",
        "file",
        "folder",
        "material",
        "ptemplate",
        "webhook",
        "delivery",
        "key",
        "member",
        "project_member",
        "invite",
        "invite_token",
        "email_invite",
        "email_invite_token",
        "link",
        "link_token",
        "me_feed",
        "project_feed",
        "object_token",
        "upload_token",
        "part",
        "location",
        "vendor",
        "order",
        "work_order",
        "cost",
        "downtime",
        "sso",
        "scim_token",
        "workspace_slug",
    ):
        s.ids[kind] = await MAKERS[kind](s)
    # The member's labour rate (a GET of a rate never set is a 404 for everyone).
    await s.call("PUT", W + "/om/labour-rates/{member}", {"hourlyRate": "45.00"})
    s.ids["issue_photo"] = await MAKERS["issue_photo"](s)
    s.ids["punch_photo"] = await MAKERS["punch_photo"](s)
    request = await _occupant_request(s)
    s.ids["occupant_issue"] = request["issueId"]
    s.ids["tracking_token"] = _tail(request["trackingUrl"])
    s.ids["billing_portal_token"] = await MAKERS["billing_portal_token"](s)
    s.ids["checkout_token"] = await MAKERS["checkout_token"](s)
    return s
