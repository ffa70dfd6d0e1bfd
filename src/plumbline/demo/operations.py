"""The demo's operations and maintenance: plant, maintenance schedules, inspections and the
occupant portal."""

from __future__ import annotations

from plumbline.config import settings
from plumbline.demo import maintenance_cost
from plumbline.demo.api import Api, day
from plumbline.demo.links import OCCUPANT_LINK, Link


async def populate(api: Api, base: str) -> list[Link]:
    """Maintenance, inspections and occupant requests; the occupant links worth printing."""
    await _maintenance(api, base)
    await _inspections(api, base)
    await maintenance_cost.populate(api, base)
    return await _occupant(api, base)


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
              "basis": "FIXED", "nextDueAt": f"{day(-3)}T15:00:00Z", "priority": "HIGH",
              "checklist": [{"label": "Replace pre-filters"}, {"label": "Replace bag filters"},
                            {"label": "Record pressure drop"}]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/maintenance",
        json={"assetId": pump["id"], "title": "Weekly fire pump churn test",
              "frequency": "WEEKLY", "nextDueAt": f"{day(4)}T14:00:00Z",
              "checklist": [{"label": "Run 10 minutes at churn"}, {"label": "Log pressures"}]},
    )  # fmt: skip
    await api(
        "POST",
        f"{om}/maintenance",
        json={"assetId": chiller["id"], "title": "Chiller oil analysis",
              "frequency": "ANNUAL", "nextDueAt": f"{day(200)}T15:00:00Z",
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
              "nextDueAt": f"{day(-2)}T09:00:00Z",
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


async def _occupant(api: Api, base: str) -> list[Link]:
    """A lobby reporting link (printed) and a chiller's own QR link, with one request made
    through each as an occupant would; the label sheet of both (printed)."""
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
        await api(
            "POST",
            f"/api/v1/occupant/{link['token']}/submit",
            json={"title": title, "description": description, "reporterName": "Sam Tenant",
                  "reporterEmail": "sam.tenant@example.com"},
        )  # fmt: skip
    sheet = f"{settings.public_url.rstrip('/')}{base}/om/occupant-links/labels.pdf"
    return [
        Link("occupant page (lobby poster)", lobby["url"], OCCUPANT_LINK, lobby["token"]),
        Link("occupant page (chiller 1 QR code)", plant["url"], OCCUPANT_LINK, plant["token"]),
        Link("occupant label sheet (PDF)", sheet),
    ]
