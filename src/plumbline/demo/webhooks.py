"""The demo project's webhook: subscribed to the issue and RFI events and disabled, pointing at
a reserved name (``.example`` never resolves), so a demo sends nothing anywhere until someone
points it at their own receiver and enables it."""

from __future__ import annotations

from plumbline.demo.api import Api

DEMO_RECEIVER = "https://receiver.example/plumbline/webhooks"
EVENTS = ("issue.created", "issue.updated", "rfi.answered", "rfi.closed")


async def add_webhook(api: Api, project_id: str) -> None:
    path = f"/api/v1/projects/{project_id}/webhooks"
    created = await api(
        "POST",
        path,
        json={
            "url": DEMO_RECEIVER,
            "events": list(EVENTS),
            "description": "Demo: set your receiver's URL, then enable it (active: true)",
        },
    )
    await api("PATCH", f"{path}/{created['id']}", json={"active": False})
