"""The demo workspace's identity provider: a Keycloak realm at a reserved name (``.example``
never resolves) with its domain unproved and SSO not required, so passwords keep working until
someone points it at their own provider (docs/sso.md)."""

from __future__ import annotations

from plumbline.demo.api import Api

DEMO_ISSUER = "https://idp.example/realms/harbor-view"


async def add_identity_provider(api: Api, workspace_id: str) -> None:
    await api(
        "PUT",
        f"/api/v1/workspaces/{workspace_id}/sso",
        json={
            "issuer": DEMO_ISSUER,
            "clientId": "plumbline",
            "clientSecret": "demo-client-secret-replace-me",
            # One workspace per domain: each demo workspace claims its own.
            "domains": [f"harbor-view-{workspace_id[-8:]}.example"],
            "required": False,
            "defaultRole": "MEMBER",
        },
    )
