"""The demo project's records, one section per module, each made through its API routes.

A module added later adds its section here (and its list to tests/demo), so the demo keeps
showing every part of the service.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from plumbline.config import settings
from plumbline.demo import planning
from plumbline.demo.drawing import floor_plan, signature_data_url
from plumbline.demo.seed import Api
from plumbline.demo.sheets import populate_sheets
from plumbline.kit import clock


def _day(offset: int) -> str:
    return (clock.today() + timedelta(days=offset)).isoformat()


async def populate(api: Api, project_id: str) -> list[tuple[str, str]]:
    """The records of every module; the links worth printing (label, URL)."""
    links: list[tuple[str, str]] = []
    base = f"/api/v1/projects/{project_id}"
    drawing = await _drawings(api, project_id)
    issue_ids = await _issues(api, base, drawing)
    await _rfis(api, base, issue_ids, drawing)
    await _punch(api, base, drawing)
    await _field_reports(api, base)
    links += await _proposals(api, base)
    await _maintenance(api, base)
    await _inspections(api, base)
    links += await _occupant(api, base)
    await planning.populate(api, project_id)
    await populate_sheets(api, project_id)
    return links


async def _drawings(api: Api, project_id: str) -> dict[str, Any]:
    """Sheet A-201 in two versions; the records below are pinned to the second."""
    first = await api.upload(project_id, "A-201 Level 3 Floor Plan.pdf", floor_plan(1))
    second: dict[str, Any] = await api.upload(
        project_id, "A-201 Level 3 Floor Plan.pdf", floor_plan(2), fileId=first["id"]
    )
    return second


ISSUES = [  # title, kind, status, priority, location, due in days, work order type
    ("Water staining on ceiling near grid C-3", "CONSTRUCTION", "IN_PROGRESS", "HIGH",
     "Level 3, open office 301", 3, None),
    ("Missing firestopping at riser penetrations", "CONSTRUCTION", "OPEN", "URGENT",
     "Level 5, riser room", 2, None),
    ("Damaged curtain wall mullion, east elevation", "CONSTRUCTION", "RESOLVED", "MEDIUM",
     "East elevation, level 8", -4, None),
    ("Stair 2 handrail below required height", "CONSTRUCTION", "CLOSED", "HIGH",
     "Stair 2, levels 1-3", -12, None),
    ("Replace AHU-2 supply fan belt", "WORK_ORDER", "OPEN", "HIGH",
     "Roof, mechanical yard", 1, "CORRECTIVE"),
    ("Quarterly fire pump test", "WORK_ORDER", "IN_PROGRESS", "MEDIUM",
     "Basement, fire pump room", 0, "PREVENTIVE"),
    ("Adjust lobby entrance door closer", "WORK_ORDER", "CLOSED", "LOW",
     "Ground floor lobby", -6, "CORRECTIVE"),
]  # fmt: skip


async def _issues(api: Api, base: str, drawing: dict[str, Any]) -> list[str]:
    ids = []
    for title, kind, status, priority, location, due, order_type in ISSUES:
        body: dict[str, Any] = {
            "title": title,
            "description": f"Observed during the weekly walk: {title.lower()}.",
            "issueKind": kind,
            "priority": priority,
            "location": location,
            "dueDate": _day(due),
            "assigneeId": api.user_id,
        }
        if order_type:
            body["workOrderType"] = order_type
        issue = await api("POST", f"{base}/issues", json=body)
        if status != "OPEN":  # as on site: raised open, then worked on (kept in its history)
            await api("PATCH", f"{base}/issues/{issue['id']}", json={"status": status})
        ids.append(issue["id"])
    await api(
        "PATCH",
        f"{base}/issues/{ids[0]}",
        json={
            "fileId": drawing["id"],
            "fileVersionId": drawing["fileVersionId"],
            "pageNumber": 1,
            "pin": {"x": 0.42, "y": 0.31},
        },
    )
    await api(
        "POST",
        f"{base}/issues/{ids[0]}/comments",
        json={"body": "Plumber found a weeping joint on the level 4 branch; repair scheduled."},
    )
    return ids


RFIS = [  # title, question, final status
    ("Slab edge detail at level 7 balconies",
     "Structural S-501 and architectural A-511 show different slab edge setbacks. Which governs?",
     "OPEN"),
    ("Door hardware set for stair doors",
     "Hardware schedule lists set HW-4 for stair doors, which has no panic device. Confirm.",
     "IN_REVIEW"),
    ("Duct conflicts with beam at grid D-2",
     "The 24x14 supply duct cannot pass under beam B3-12 at grid D-2 with the ceiling at 9'-0\".",
     "ANSWERED"),
    ("Substitute porcelain tile in lobby",
     "The specified tile has a 16-week lead time. May we use the attached equal?",
     "CLOSED"),
]  # fmt: skip
ANSWERS = {
    "ANSWERED": "Reroute the duct through the beam web opening shown on S-301; see sketch SK-14.",
    "CLOSED": "Substitution accepted provided the slip resistance meets DCOF 0.42 or higher.",
}


async def _rfis(api: Api, base: str, issue_ids: list[str], drawing: dict[str, Any]) -> None:
    for index, (title, question, status) in enumerate(RFIS):
        body: dict[str, Any] = {
            "title": title,
            "question": question,
            "priority": "HIGH" if index == 2 else "MEDIUM",
            "dueDate": _day(7 - 3 * index),
        }
        if index == 2:
            body |= {
                "issueIds": [issue_ids[0]],
                "fileVersionId": drawing["fileVersionId"],
                "pageNumber": 1,
                "pin": {"x": 0.55, "y": 0.2},
            }
        rfi = await api("POST", f"{base}/rfi", json=body)
        path = f"{base}/rfi/{rfi['id']}"
        if status == "OPEN":
            continue
        await api("PATCH", path, json={"status": "IN_REVIEW", "assigneeIds": [api.user_id]})
        if status == "IN_REVIEW":
            continue
        answer = await api("POST", f"{path}/messages", json={"body": ANSWERS[status]})
        await api("PATCH", path, json={"status": "ANSWERED", "answerMessageId": answer["id"]})
        if status == "CLOSED":
            await api("PATCH", path, json={"status": "CLOSED"})


PUNCH = [  # title, location, trade, priority, status
    ("Touch up paint at corridor corner guard", "Level 3 corridor", "Painting", "P3", "OPEN"),
    ("Ceiling tile stained in conference 302", "Conference 302", "Ceilings", "P2",
     "IN_PROGRESS"),
    ("Outlet cover plate missing", "Open office 301, column C-2", "Electrical", "P2",
     "READY_FOR_REVIEW"),
    ("Door 303 does not latch", "Conference 303", "Doors and hardware", "P1", "CLOSED"),
]  # fmt: skip
PUNCH_STEPS = ["IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED"]


async def _punch(api: Api, base: str, drawing: dict[str, Any]) -> None:
    for index, (title, location, trade, priority, status) in enumerate(PUNCH):
        item = await api(
            "POST",
            f"{base}/punch",
            json={
                "title": title,
                "location": location,
                "trade": trade,
                "priority": priority,
                "assigneeIds": [api.user_id],
                "dueDate": _day(5 + index),
                "fileVersionId": drawing["fileVersionId"],
                "pageNumber": 1,
                "pin": {"x": 0.2 + 0.15 * index, "y": 0.6},
            },
        )
        steps = PUNCH_STEPS[: PUNCH_STEPS.index(status) + 1] if status != "OPEN" else []
        for step in steps:
            await api("PATCH", f"{base}/punch/{item['id']}", json={"status": step})


async def _field_reports(api: Api, base: str) -> None:
    await api(
        "POST",
        f"{base}/field-reports",
        json={
            "title": "Daily report",
            "reportDate": _day(-1),
            "status": "SUBMITTED",
            "weather": {"conditions": "Overcast, light rain after 2 pm", "highTemp": 54,
                        "lowTemp": 43, "precipitation": "0.2 in"},
            "manpower": [
                {"company": "Cascade Concrete", "trade": "Concrete", "workers": 8, "hours": 64},
                {"company": "Sound Mechanical", "trade": "HVAC", "workers": 5, "hours": 40},
                {"company": "Northline Electric", "trade": "Electrical", "workers": 6,
                 "hours": 48},
            ],
            "workPerformed": "Poured level 9 slab (pour 3 of 4). Ductwork rough-in level 4.",
            "delays": "Rain stopped the curtain wall crew at 2 pm.",
            "safetyNotes": "Toolbox talk on ladder safety; no incidents.",
        },
    )  # fmt: skip
    await api(
        "POST",
        f"{base}/field-reports",
        json={"title": "Daily report", "reportDate": _day(0), "workPerformed": "In progress."},
    )


DEMO_LETTER = (
    "Dear {{client.name}},\n\n"
    "Thank you for the walkthrough of {{project.name}}. Our proposal {{proposal.reference}} "
    "comes to {{proposal.total}} and is valid until {{proposal.validUntil}}.\n\n"
    "{{items.table}}\n\n"
    "We look forward to working with you.\n{{company.name}}"
)


async def _proposal_template(api: Api, base: str) -> str:
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


async def _proposals(api: Api, base: str) -> list[tuple[str, str]]:
    """A priced proposal from the workspace's letter template sent to its client (its portal link
    printed), one the client accepted and signed through the portal, and a draft just started."""
    template_id = await _proposal_template(api, base)
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
        json={"title": "Lobby refresh", "validUntil": f"{_day(45)}T23:59:59Z",
              "clientName": "Harbor View Dental", "templateId": template_id},
    )  # fmt: skip
    signed = await api(
        "POST",
        f"{base}/proposals",
        json={
            "title": "Roof membrane repair",
            "templateId": template_id,
            "validUntil": f"{_day(14)}T23:59:59Z",
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
    path = link.removeprefix(settings.public_url.rstrip("/"))
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
    return [("proposal portal (SENT, the client's link)", portal)]


async def _maintenance(api: Api, base: str) -> None:
    """Operations mode on; plant with meters; schedules (one overdue, one due soon, one on a
    run-hour meter that a reading has made due); the preventive work orders due today."""
    await api("PATCH", f"{base}/settings", json={"operationsMode": True})
    om = f"{base}/om"
    chiller = await api(
        "POST",
        f"{om}/assets",
        json={"tag": "CH-01", "name": "Chiller 1", "category": "HVAC", "manufacturer": "Trane",
              "model": "CVHF 570", "serialNumber": "L19K04211", "location": "Roof plant room",
              "installDate": "2019-06-14", "warrantyExpires": "2029-06-14",
              "meters": [{"type": "RUN_HOURS", "unit": "h"},
                         {"type": "LEAVING_WATER_TEMP", "unit": "C", "cumulative": False}]},
    )  # fmt: skip
    ahu = await api(
        "POST",
        f"{om}/assets",
        json={"tag": "AHU-02", "name": "Air handling unit 2", "category": "HVAC",
              "manufacturer": "Daikin", "location": "Roof, mechanical yard",
              "parentAssetId": chiller["id"]},
    )  # fmt: skip
    pump = await api(
        "POST",
        f"{om}/assets",
        json={"tag": "FP-01", "name": "Fire pump", "category": "Fire protection",
              "manufacturer": "Aurora", "location": "Basement, fire pump room",
              "meters": [{"type": "RUN_HOURS", "unit": "h"}]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/maintenance",
        json={"assetId": ahu["id"], "title": "Replace AHU-2 filters", "frequency": "QUARTERLY",
              "basis": "FIXED", "nextDueAt": f"{_day(-3)}T15:00:00Z", "priority": "HIGH",
              "checklist": [{"label": "Replace pre-filters"}, {"label": "Replace bag filters"},
                            {"label": "Record pressure drop"}]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/maintenance",
        json={"assetId": pump["id"], "title": "Weekly fire pump churn test",
              "frequency": "WEEKLY", "nextDueAt": f"{_day(4)}T14:00:00Z",
              "checklist": [{"label": "Run 10 minutes at churn"}, {"label": "Log pressures"}]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/maintenance",
        json={"assetId": chiller["id"], "title": "Chiller oil analysis",
              "frequency": "ANNUAL", "nextDueAt": f"{_day(200)}T15:00:00Z",
              "meterType": "RUN_HOURS", "meterInterval": 2000},
    )  # fmt: skip
    for value in (1250, 2400):
        await api(
            "POST",
            f"{om}/assets/{chiller['id']}/meter-readings",
            json={"meterType": "RUN_HOURS", "value": value},
        )
    await api(
        "POST",
        f"{om}/assets/{chiller['id']}/meter-readings",
        json={"meterType": "LEAVING_WATER_TEMP", "value": 6.7},
    )
    await api("POST", f"{om}/maintenance/generate-work-orders")


async def _inspections(api: Api, base: str) -> None:
    """A monthly fire-safety walk: last month's walk of the fire pump room, completed with a
    blocked exit (its follow-up work order raised), and this month's walk under way."""
    om = f"{base}/om"
    [pump] = await api("GET", f"{om}/assets", params={"q": "FP-01"})
    template = await api(
        "POST",
        f"{om}/inspection-templates",
        json={"name": "Monthly fire-safety walk", "frequency": "MONTHLY",
              "description": "Escape routes, extinguishers, alarm panel and fire pump room.",
              "nextDueAt": f"{_day(-2)}T09:00:00Z",
              "items": [
                  {"label": "Exit routes and stair doors clear", "type": "PASS_FAIL",
                   "onFail": "CREATE_WORK_ORDER"},
                  {"label": "Extinguishers in place, gauge in the green", "type": "PASS_FAIL",
                   "onFail": "CREATE_WORK_ORDER"},
                  {"label": "Fire alarm panel: no faults", "type": "CHECK"},
                  {"label": "Fire pump suction pressure (bar)", "type": "NUMBER"},
                  {"label": "Remarks", "type": "TEXT", "required": False},
              ]},
    )  # fmt: skip
    items = [item["id"] for item in template["items"]]
    done = await api(
        "POST", f"{om}/inspection-runs", json={"templateId": template["id"], "assetId": pump["id"]}
    )
    await api(
        "PATCH",
        f"{om}/inspection-runs/{done['id']}",
        json={"results": [
            {"itemId": items[0], "outcome": "FAIL",
             "note": "Stair B door at basement level wedged open with a pallet"},
            {"itemId": items[1], "outcome": "PASS"},
            {"itemId": items[2], "outcome": "DONE"},
            {"itemId": items[3], "value": 3.4},
            {"itemId": items[4], "value": "Pump room clean; jockey pump cycling normally."},
        ]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/inspection-runs/{done['id']}/complete",
        json={"signedBy": "Dana Reyes, facilities manager"},
    )
    draft = await api(
        "POST", f"{om}/inspection-runs", json={"templateId": template["id"], "assetId": pump["id"]}
    )
    await api(
        "PATCH",
        f"{om}/inspection-runs/{draft['id']}",
        json={"results": [{"itemId": items[0], "outcome": "PASS"}]},
    )


async def _occupant(api: Api, base: str) -> list[tuple[str, str]]:
    """A lobby reporting link (printed) and a chiller's own QR link, with one request made
    through each as an occupant would."""
    assets = await api("GET", f"{base}/om/assets")
    chiller = next(a for a in assets if a["tag"] == "CH-01")
    lobby = await api("POST", f"{base}/om/occupant-links", json={"label": "Lobby poster"})
    plant = await api(
        "POST",
        f"{base}/om/occupant-links",
        json={"label": "Chiller 1 QR code", "assetId": chiller["id"]},
    )
    requests = (
        (lobby, "Lift 2 doors close too fast", "The doors caught my bag twice this morning."),
        (plant, "Chiller alarm light on", "Red light flashing on the panel by the roof door."),
    )
    for link, title, description in requests:
        path = link["url"].removeprefix(settings.public_url.rstrip("/")).removesuffix("/meta")
        await api(
            "POST",
            f"{path}/submit",
            json={"title": title, "description": description, "reporterName": "Sam Tenant",
                  "reporterEmail": "sam.tenant@example.com"},
        )  # fmt: skip
    return [("occupant portal (lobby link)", lobby["url"])]
