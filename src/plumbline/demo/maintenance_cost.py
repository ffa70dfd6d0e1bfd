"""The demo's maintenance cost (issue 29): a store room with parts below and above their
minimum, a vendor and a received purchase order, work orders with parts, labour and other
costs, and a chiller with two unplanned outages (and a planned service) in the last 30 days."""

from __future__ import annotations

from plumbline.demo.api import Api, day


async def populate(api: Api, base: str) -> None:
    project = await api("GET", base)
    workspace = f"/api/v1/workspaces/{project['workspaceId']}"
    om = f"{base}/om"
    await api("PUT", f"{workspace}/om/labour-rates/{api.user_id}", json={"hourlyRate": "85.00"})
    store = await api("POST", f"{om}/stock-locations", json={"name": "Basement store room"})
    filters = await api(
        "POST",
        f"{workspace}/om/parts",
        json={"name": "AHU filter G4 592x592", "unit": "each", "sku": "FLT-G4-592",
              "unitCost": "14.75", "minQuantity": 12, "reorderQuantity": 24},
    )  # fmt: skip
    belts = await api(
        "POST",
        f"{workspace}/om/parts",
        json={"name": "V-belt SPA 1250", "unit": "each", "sku": "VB-SPA-1250",
              "unitCost": "9.40", "minQuantity": 4, "reorderQuantity": 8},
    )  # fmt: skip
    oil = await api(
        "POST",
        f"{workspace}/om/parts",
        json={"name": "Chiller compressor oil", "unit": "l", "sku": "OIL-POE-68",
              "wholeUnits": False, "unitCost": "31.20", "minQuantity": 10, "reorderQuantity": 20},
    )  # fmt: skip
    vendor = await api(
        "POST",
        f"{workspace}/vendors",
        json={"name": "Northwest HVAC Supply", "contactName": "Priya Natarajan",
              "email": "orders@northwest-hvac.example", "phone": "+1 206 555 0147",
              "address": "2200 Airport Way S, Seattle, WA 98134"},
    )  # fmt: skip
    order = await api(
        "POST",
        f"{om}/purchase-orders",
        json={"vendorId": vendor["id"], "locationId": store["id"],
              "notes": "Deliver to the loading dock, ask for facilities.",
              "lines": [{"partId": filters["id"], "quantity": 20},
                        {"partId": belts["id"], "quantity": 6},
                        {"partId": oil["id"], "quantity": 25}]},
    )  # fmt: skip
    url = f"{om}/purchase-orders/{order['id']}"
    await api("POST", f"{url}/approve")
    # Not e-mailed: the demo's vendor is not a real address (``/email`` sends it).
    await api("POST", f"{url}/order", json={"email": False})
    lines = [line["id"] for line in order["lines"]]
    await api("POST", f"{url}/receive", json={"lines": [{"lineId": lines[0], "quantity": 20}]})
    await api(
        "POST",
        f"{url}/receive",
        json={"lines": [{"lineId": lines[1], "quantity": 6}, {"lineId": lines[2], "quantity": 25}]},
    )
    await api(
        "POST",
        f"{om}/stock/receipts",
        json={"partId": belts["id"], "locationId": store["id"], "quantity": 4,
              "reason": "Found in the plant room cupboard"},
    )  # fmt: skip
    await _work(api, base, store["id"], filters["id"], belts["id"], oil["id"])


async def _work(api: Api, base: str, store: str, filters: str, belts: str, oil: str) -> None:
    """Two work orders with their costs; the chiller's outages."""
    om = f"{base}/om"
    assets = {a["tag"]: a for a in await api("GET", f"{om}/assets")}
    chiller, ahu = assets["CH-01"], assets["AHU-02"]
    trip = await api(
        "POST",
        f"{base}/issues",
        json={"title": "Chiller 1 trips on low refrigerant pressure", "issueKind": "WORK_ORDER",
              "workOrderType": "CORRECTIVE", "priority": "HIGH", "assetId": chiller["id"],
              "description": "Second trip this month; leak test and top up."},
    )  # fmt: skip
    costs = f"{om}/work-orders/{trip['id']}/costs"
    await api(
        "POST",
        f"{costs}/parts",
        json={"partId": oil, "locationId": store, "quantity": "6.5",
              "incurredAt": f"{day(-5)}T09:00:00Z"},
    )  # fmt: skip
    await api(
        "POST",
        f"{costs}/labour",
        json={"startedAt": f"{day(-5)}T07:30:00Z", "endedAt": f"{day(-5)}T10:45:00Z",
              "description": "Isolate, recover, top up, restart"},
    )  # fmt: skip
    await api(
        "POST",
        f"{costs}/other",
        json={"category": "CONTRACTOR", "description": "Refrigerant leak test (Cascade Cooling)",
              "amount": "420.00", "incurredAt": f"{day(-4)}T11:00:00Z"},
    )  # fmt: skip
    await api(
        "POST",
        f"{costs}/other",
        json={
            "category": "TRAVEL",
            "description": "Out-of-hours call-out",
            "amount": "65.00",
            "incurredAt": f"{day(-5)}T07:00:00Z",
        },
    )
    filters_order = await api(
        "POST",
        f"{base}/issues",
        json={"title": "AHU-2 filters and belts", "issueKind": "WORK_ORDER",
              "workOrderType": "CORRECTIVE", "assetId": ahu["id"]},
    )  # fmt: skip
    costs = f"{om}/work-orders/{filters_order['id']}/costs"
    when = f"{day(-3)}T10:00:00Z"
    for part, quantity in ((filters, 12), (belts, 2)):
        await api(
            "POST",
            f"{costs}/parts",
            json={"partId": part, "locationId": store, "quantity": quantity, "incurredAt": when},
        )
    await api(
        "POST",
        f"{costs}/labour",
        json={"minutes": 90, "description": "Filters and belts", "incurredAt": when},
    )
    await api("PATCH", f"{base}/issues/{filters_order['id']}", json={"status": "RESOLVED"})
    # The chiller's month: two unplanned outages (the second is the trip above) and a planned
    # service stop in between.
    downtime = f"{om}/assets/{chiller['id']}/downtime"
    outages = (
        (f"{day(-20)}T06:00:00Z", f"{day(-20)}T14:00:00Z", False, "Tripped on high head pressure"),
        (f"{day(-12)}T08:00:00Z", f"{day(-12)}T10:00:00Z", True, "Annual service"),
        (f"{day(-6)}T22:00:00Z", f"{day(-5)}T04:00:00Z", False, "Low refrigerant pressure trip"),
    )
    for start, end, planned, reason in outages:
        await api(
            "POST",
            downtime,
            json={"startedAt": start, "endedAt": end, "planned": planned, "reason": reason}
            | ({"workOrderId": trip["id"]} if reason.startswith("Low") else {}),
        )
