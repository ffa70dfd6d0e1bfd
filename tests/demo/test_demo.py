"""`plumbline demo` run as the CLI: what it prints works, and every module has data to show."""

import io
import re
from collections import Counter
from typing import Any

import httpx
from icalendar import Calendar
from pypdf import PdfReader

from tests.cli.test_cli import plumbline
from tests.factories import key_headers


def printed(output: str) -> dict[str, str]:
    login = re.search(r"sign in:\s+(\S+) / (\S+)", output)
    key = re.search(r"API key:\s+(psk_\S+)", output)
    project = re.search(r"project: (\S+)", output)
    workspace = re.search(r"workspace:\s+(\S+)", output)
    curl = re.search(r"curl -H 'x-api-key: (psk_\S+)' http://[^/]+(/api/v1/\S+)", output)
    assert login and key and project and workspace and curl, output
    assert curl.group(1) == key.group(1)
    return {
        "email": login.group(1),
        "password": login.group(2),
        "key": key.group(1),
        "project": project.group(1),
        "workspace": workspace.group(1),
        "curl_path": curl.group(2),
    }


def _links(output: str) -> dict[str, str]:
    """The printed links (`  label: URL`) by their label."""
    return dict(re.findall(r"^\s+(.+?):\s+(https?://\S+)$", output, re.MULTILINE))


async def _list(client: httpx.AsyncClient, key: str, path: str) -> list[dict[str, Any]]:
    answer = await client.get(path, headers=key_headers(key))
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()
    return rows


async def test_demo_seeds_every_module_and_prints_what_works(client: httpx.AsyncClient) -> None:
    result = plumbline("demo")
    assert result.returncode == 0, result.stderr
    demo = printed(result.stdout)
    key, base = demo["key"], f"/api/v1/projects/{demo['project']}"

    # The printed curl line answers the issues, construction issues and work orders alike.
    issues = await _list(client, key, demo["curl_path"])
    assert demo["curl_path"] == f"{base}/issues"
    kinds = Counter(i["issueKind"] for i in issues)
    assert kinds["CONSTRUCTION"] >= 3 and kinds["WORK_ORDER"] >= 3
    assert {"OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED"} <= {i["status"] for i in issues}

    rfis = await _list(client, key, f"{base}/rfi")
    assert {r["status"] for r in rfis} == {"OPEN", "IN_REVIEW", "ANSWERED", "CLOSED"}
    answered = next(r for r in rfis if r["status"] == "ANSWERED")
    assert answered["officialResponse"] and answered["issueIds"]

    punch = await _list(client, key, f"{base}/punch")
    assert {"OPEN", "IN_PROGRESS", "READY_FOR_REVIEW", "CLOSED"} <= {p["status"] for p in punch}

    reports = await _list(client, key, f"{base}/field-reports")
    assert any(r["status"] == "SUBMITTED" and r["totalWorkers"] > 0 for r in reports)

    proposals = await _list(client, key, f"{base}/proposals")
    assert sorted(p["status"] for p in proposals) == ["ACCEPTED", "DRAFT", "SENT"]
    assert next(p for p in proposals if p["status"] == "ACCEPTED")["signerName"] == "Marcus Lee"
    portal = re.search(
        r"proposal page \(SENT, the client's link\): http://[^/]+(/portal/proposals/(\S+))",
        result.stdout,
    )
    assert portal, result.stdout
    page = await client.get(portal.group(1))
    assert page.status_code == 200 and "Awaiting your answer" in page.text
    # The page's first open is the client's view, as the portal's POST .../view records it.
    seen = await client.get(f"/api/v1/public/proposals/{portal.group(2)}")
    assert seen.status_code == 200 and seen.json()["status"] == "VIEWED"
    assert any(p["items"] and p["total"] != "0.00" for p in proposals)
    # All made from the workspace's letter template, which took its tax rate along.
    assert all("{{client.name}}" in (p["coverLetter"] or "") for p in proposals)
    assert all(p["taxPercent"] == "8.25" for p in proposals)

    assets = await _list(client, key, f"{base}/om/assets")
    assert len(assets) == 3 and any(a["meters"] and a["meters"][0]["lastReading"] for a in assets)
    schedules = await _list(client, key, f"{base}/om/maintenance")
    assert {s["health"] for s in schedules} == {"OVERDUE", "DUE_SOON"}
    assert any(s["dueLabel"] == "Meter/calendar" and s["meterDueAt"] for s in schedules)
    preventive = [i for i in issues if i["maintenanceScheduleId"]]
    assert len(preventive) == 2  # the overdue one and the meter-due one
    occupant = await _list(client, key, f"{base}/issues?issueKind=OCCUPANT")
    assert sorted(i["title"] for i in occupant) == [
        "Chiller alarm light on",
        "Lift 2 doors close too fast",
    ]
    chiller = next(a for a in assets if a["tag"] == "CH-01")
    assert {i["assetId"] for i in occupant} == {chiller["id"], None}
    for label, asset in (("lobby poster", None), ("chiller 1 QR code", chiller["name"])):
        link = re.search(
            rf"occupant page \({label}\): http://[^/]+/portal/occupant/(\S+)", result.stdout
        )
        assert link, result.stdout
        page = await client.get(f"/portal/occupant/{link.group(1)}")
        assert page.status_code == 200 and "Report a problem" in page.text
        meta = await client.get(f"/api/v1/occupant/{link.group(1)}/meta")
        assert (meta.json()["asset"] or {}).get("name") == asset
    labels = re.search(r"occupant label sheet \(PDF\): http://[^/]+(\S+)", result.stdout)
    assert labels and labels.group(1) == f"{base}/om/occupant-links/labels.pdf", result.stdout
    sheet = await client.get(labels.group(1), headers=key_headers(key))
    assert sheet.status_code == 200 and sheet.headers["content-type"] == "application/pdf"
    text = PdfReader(io.BytesIO(sheet.content)).pages[0].extract_text()
    assert "Lobby poster" in text and "Tag CH-01" in text
    assert all(i["workOrderType"] == "PREVENTIVE" for i in preventive)
    [walk] = await _list(client, key, f"{base}/om/inspection-templates")
    assert walk["name"] == "Monthly fire-safety walk" and walk["frequency"] == "MONTHLY"
    runs = await _list(client, key, f"{base}/om/inspection-runs")
    assert sorted(r["status"] for r in runs) == ["COMPLETED", "DRAFT"]
    [done] = [r for r in runs if r["status"] == "COMPLETED"]
    [follow_up] = done["followUpWorkOrders"]
    assert next(i for i in issues if i["id"] == follow_up["id"])["workOrderType"] == (
        "INSPECTION_FOLLOWUP"
    )

    # Maintenance cost: a store room with parts below and above their minimum, a received
    # purchase order, work orders with parts and labour, the chiller's two unplanned outages.
    stock = await _list(client, key, f"{base}/om/stock")
    assert {s["belowMinimum"] for s in stock} == {True, False}
    [order] = await _list(client, key, f"{base}/om/purchase-orders")
    assert order["status"] == "RECEIVED"
    kinds = {c["kind"] for c in await _list(client, key, f"{base}/om/costs")}
    assert {"PART", "LABOUR", "OTHER"} <= kinds
    report = await client.get(f"{base}/om/reliability", headers=key_headers(key))
    [chiller_row] = [a for a in report.json()["assets"] if a["tag"] == "CH-01"]
    # 8 h + 6 h unplanned and 2 h planned in 720 h: MTTR 7, MTBF (720 - 16) / 2 = 352,
    # availability 704 / 720 = 0.9778; parts 6.5 l x 31.20, 3.25 h x 85.00, 420.00 + 65.00
    assert chiller_row["failures"] == 2
    assert (chiller_row["mttrHours"], chiller_row["mtbfHours"]) == (7, 352)
    assert chiller_row["availability"] == 0.9778
    assert chiller_row["cost"] == {
        "parts": "202.80",
        "labour": "276.25",
        "other": "485.00",
        "total": "964.05",
    }

    assert any(item["materialId"] for p in proposals for item in p["items"])

    # A webhook to show, disabled and pointing at a name that never resolves: nothing sent.
    [hook] = await _list(client, key, f"{base}/webhooks")
    assert (hook["active"], hook["url"]) == (False, "https://receiver.example/plumbline/webhooks")
    assert "issue.created" in hook["events"] and "secret" not in hook

    schedule = await client.get(f"{base}/schedule", headers=key_headers(key))
    tasks = schedule.json()["tasks"]
    assert len(tasks) >= 12 and any(t["isMilestone"] for t in tasks)
    assert any(t["dependencies"] for t in tasks) and any(t["parentId"] for t in tasks)

    files = await _list(client, key, f"{base}/files")
    assert ("A-201 Level 3 Floor Plan.pdf", 2) in [(f["name"], f["version"]) for f in files]
    drawing = next(f for f in files if f["name"] == "A-201 Level 3 Floor Plan.pdf")
    for version in (1, 2):
        content = await client.get(
            f"/api/v1/files/{drawing['id']}/content",
            params={"version": version},
            headers=key_headers(key),
        )
        assert content.status_code == 200, content.text
        assert content.content.startswith(b"%PDF-") and b"%%EOF" in content.content[-32:]
    pinned = [i for i in issues if i["fileVersionId"] == drawing["fileVersionId"]]
    assert pinned and pinned[0]["pin"] is not None

    # The printed calendar feed: the schedule and the due dates, subscribable with no header.
    feed = re.search(
        r"project calendar feed \(iCalendar\): http://[^/]+(/api/v1/calendar/\S+\.ics)",
        result.stdout,
    )
    assert feed, result.stdout
    ics = await client.get(feed.group(1))
    assert ics.status_code == 200 and ics.headers["content-type"].startswith("text/calendar")
    uids = [str(event.uid) for event in Calendar.from_ical(ics.content).events]
    for kind in ("task", "maintenance", "inspection", "rfi", "punch", "proposal"):
        assert any(uid.startswith(f"{kind}-") for uid in uids), kind

    # The printed login signs in and sees the demo workspace.
    signed = await client.post(
        "/api/auth/sign-in/email", json={"email": demo["email"], "password": demo["password"]}
    )
    assert signed.status_code == 200, signed.text
    me = await client.get("/api/v1/me")
    assert me.status_code == 200
    assert "Demo Construction Co." in {w["name"] for w in me.json()["workspaces"]}
    materials = await client.get(f"/api/v1/workspaces/{demo['workspace']}/materials")
    assert materials.status_code == 200, materials.text
    assert len(materials.json()) == 10
    # Sheet A-101 with its drawing-AI summary and takeoff already computed.
    sheet = next(f for f in files if f["name"] == "A-101 Ground Floor Plan.pdf")
    cache = await client.get(
        f"/api/v1/file-versions/{sheet['fileVersionId']}/ai/sheet-cache", params={"pageIndex": 0}
    )
    assert cache.status_code == 200, cache.text
    assert cache.json()["summary"]["sheetNumber"] == "A-101"
    assert cache.json()["takeoff"]["counts"]["doors"] == 3


async def test_a_second_run_reprints_the_login_and_new_key_mints_a_working_key(
    client: httpx.AsyncClient,
) -> None:
    first = plumbline("demo")
    assert first.returncode == 0, first.stderr
    again = plumbline("demo", "--if-empty")
    assert again.returncode == 0, again.stderr
    assert "already has users" in again.stdout
    assert "demo@plumbline.local / Plumbline-Demo-2026!" in again.stdout
    assert "plumbline demo --new-key" in again.stdout
    assert "psk_" not in again.stdout  # keys are stored hashed: never shown twice
    # The demo's ids, where to sign in and every link printed at seeding, again.
    ids = re.compile(r"workspace:\s+(\S+)\s+project: (\S+)")
    seeded_ids, ids_again = ids.search(first.stdout), ids.search(again.stdout)
    assert seeded_ids and ids_again and seeded_ids.groups() == ids_again.groups()
    assert re.search(r"^\s+at http://\S+/account/sign-in$", again.stdout, re.MULTILINE)
    seeded_links, links_again = _links(first.stdout), _links(again.stdout)
    assert len(seeded_links) >= 6 and links_again == seeded_links, again.stdout

    minted = plumbline("demo", "--new-key")
    assert minted.returncode == 0, minted.stderr
    demo, seeded = printed(minted.stdout), printed(first.stdout)
    assert demo["project"] == seeded["project"] and demo["key"] != seeded["key"]
    issues = await _list(client, demo["key"], demo["curl_path"])
    assert len(issues) >= 7
    assert _links(minted.stdout) == seeded_links  # with the links too

    # A link withdrawn since is not printed as if it still opened.
    base = f"/api/v1/projects/{demo['project']}/om/occupant-links"
    lobby = next(
        link for link in await _list(client, demo["key"], base) if "Lobby" in link["label"]
    )
    withdrawn = await client.delete(f"{base}/{lobby['id']}", headers=key_headers(demo["key"]))
    assert withdrawn.status_code == 200, withdrawn.text
    later = plumbline("demo", "--if-empty")
    assert later.returncode == 0, later.stderr
    assert "occupant page (lobby poster): replaced or revoked since" in later.stdout
    assert _links(later.stdout) == {
        label: link
        for label, link in seeded_links.items()
        if label != "occupant page (lobby poster)"
    }
