"""The demo's proposals: the workspace's letter template, and proposals sent, signed and drafted."""

from __future__ import annotations

from plumbline.demo.api import Api, day
from plumbline.demo.drawing import signature_data_url
from plumbline.demo.links import PROPOSAL, Link

DEMO_LETTER = (
    "Dear {{client.name}},\n\n"
    "Thank you for the walkthrough of {{project.name}}. Our proposal {{proposal.reference}} "
    "comes to {{proposal.total}} and is valid until {{proposal.validUntil}}.\n\n"
    "{{items.table}}\n\n"
    "We look forward to working with you.\n{{company.name}}"
)


async def _template(api: Api, base: str) -> str:
    """The workspace's standard letter: 8.25% tax, valid 30 days."""
    project = await api("GET", base)
    template = await api(
        "POST",
        f"/api/v1/workspaces/{project['workspaceId']}/proposal-templates",
        json={
            "name": "Standard fit-out letter",
            "body": DEMO_LETTER,
            "defaults": {"taxPercent": "8.25", "validDays": 30},
        },
    )
    return str(template["id"])


async def populate(api: Api, base: str) -> list[Link]:
    """A priced proposal from the workspace's letter template sent to its client (its portal link
    printed), one the client accepted and signed through the portal, and a draft just started."""
    template_id = await _template(api, base)
    sent = await api(
        "POST",
        f"{base}/proposals",
        json={
            "title": "Level 3 tenant fit-out",
            "templateId": template_id,
            "clientName": "Priya Shah",
            "clientEmail": "priya.shah@example.com",
            "clientCompany": "Harbor View Dental",
            "items": [
                {"name": "Metal stud partitions", "quantity": "142.5", "unit": "m2",
                 "rate": "38.40"},
                {"name": "Gypsum board, two sides", "quantity": "285", "unit": "m2",
                 "rate": "21.75"},
                {"name": "Acoustic ceiling tiles", "quantity": "96", "unit": "m2",
                 "rate": "29.90"},
            ],
            "workPricePercent": 12,
            "discount": "250.00",
        },
    )  # fmt: skip
    portal = (await api("POST", f"{base}/proposals/{sent['id']}/send"))["portalUrl"]
    await api(
        "POST",
        f"{base}/proposals",
        json={"title": "Lobby refresh", "validUntil": f"{day(45)}T23:59:59Z",
              "clientName": "Harbor View Dental", "templateId": template_id},
    )  # fmt: skip
    signed = await api(
        "POST",
        f"{base}/proposals",
        json={
            "title": "Roof membrane repair",
            "templateId": template_id,
            "validUntil": f"{day(14)}T23:59:59Z",
            "clientName": "Marcus Lee",
            "clientEmail": "marcus.lee@example.com",
            "clientCompany": "Harbor View Owners Association",
            "items": [
                {"name": "TPO membrane patching", "quantity": "38", "unit": "m2", "rate": "64"},
                {"name": "Crane and access", "quantity": "1", "unit": "day", "rate": "1450"},
            ],
            "taxPercent": "8.25",
        },
    )  # fmt: skip
    link = (await api("POST", f"{base}/proposals/{signed['id']}/send"))["portalUrl"]
    path = "/api/v1/public/proposals/" + link.rsplit("/", 1)[1]  # the link opens the page
    await api("POST", f"{path}/view")
    await api(
        "POST",
        f"{path}/messages",
        json={"body": "Can the crew start on a Monday?"},
    )
    await api(
        "POST",
        f"{path}/accept",
        json={"signerName": "Marcus Lee", "signature": signature_data_url()},
    )
    token = portal.rsplit("/", 1)[1]
    return [Link("proposal page (SENT, the client's link)", portal, PROPOSAL, token)]
