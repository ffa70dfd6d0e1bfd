"""The public-token principal (auth/public_token.py) that portal routes are built on."""

from __future__ import annotations

from typing import Annotated, Any

import httpx
from fastapi import Depends, FastAPI

from plumbline.audit.service import audit
from plumbline.auth.principal import Principal
from plumbline.auth.public_token import public_token
from plumbline.db import DB
from plumbline.errors import install_error_handlers
from plumbline.member.invite_tokens import INVITE_LINK
from plumbline.routing import make_router
from tests.factories import World
from tests.portal.test_invite_tokens import make_link

InviteLink = Annotated[Principal, Depends(public_token(INVITE_LINK))]


def _app() -> FastAPI:
    """A route on the invite-link token answering what its principal carries."""
    router = make_router()

    @router.get("/grants/{token}")
    async def grant(principal: InviteLink, db: DB) -> dict[str, Any]:
        token = principal.require_token()
        entry = audit.entry(db, action="t", entity_type="t", entity_id=None, principal=principal)
        return {
            "purpose": token.purpose,
            "workspaceId": token.workspace_id,
            "projectId": token.project_id,
            "subjectId": token.subject_id,
            "userId": principal.user_id,
            "actor": entry["actor"],
        }

    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router)
    return app


async def test_a_token_resolves_to_a_principal_with_its_purpose_and_workspace(
    client: httpx.AsyncClient, world: World
) -> None:
    token = await make_link(client, world)
    invites = await client.get(
        f"/api/v1/workspaces/{world.workspace.id}/invites", headers=world.admin.headers
    )
    invite_ids = {invite["id"] for invite in invites.json()}
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as public:
        found = await public.get(f"/grants/{token}")
        assert found.status_code == 200, found.text
        body = found.json()
        assert body["purpose"] == "invite" and body["workspaceId"] == world.workspace.id
        assert body["projectId"] is None and body["userId"] is None
        assert body["subjectId"] in invite_ids
        assert body["actor"] == "public"
        # another token of the same length is unknown
        unknown = await public.get(f"/grants/{token[:-1]}{'A' if token[-1] != 'A' else 'B'}")
        assert unknown.status_code == 404 and unknown.json()["code"] == "NOT_FOUND"
