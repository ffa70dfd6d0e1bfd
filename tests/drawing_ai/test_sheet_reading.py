"""Sheet summary, takeoff and the cache on real PDF sheets the tests generate (the demo's own
drawing generator): exact title-block fields, counts, and wall lengths within 1 %."""

from __future__ import annotations

import pytest

from plumbline.config import settings
from plumbline.demo.drawing import floor_plan
from plumbline.demo.sheets import Sheet, imperial_sheet, metric_sheet, sheet_pdf
from plumbline.kit.storage import get_storage
from plumbline.kit.storage.local import LocalStorage
from tests.drawing_ai.helpers import ai, count_results, stored_results, upload_sheet
from tests.factories import audit_entries
from tests.file.helpers import version_row


def within_1_percent(value: float, expected: float) -> bool:
    return abs(value - expected) <= expected * 0.01


def in_unit_box(bbox: dict[str, float]) -> bool:
    return 0 <= bbox["x0"] < bbox["x1"] <= 1 and 0 <= bbox["y0"] <= bbox["y1"] <= 1


async def test_summary_reads_the_title_block_notes_and_rooms_of_a_metric_sheet(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert {k: body[k] for k in ("sheetNumber", "sheetTitle", "discipline")} == {
        "sheetNumber": "A-101",
        "sheetTitle": "GROUND FLOOR PLAN",
        "discipline": "Architectural",
    }
    assert (body["scale"], body["revision"], body["date"]) == ("1:100", "C", "2026-11-02")
    assert body["notes"] == list(metric_sheet().notes)
    assert sorted(body["rooms"]) == sorted(r[0] for r in metric_sheet().rooms)
    assert "A-101" in body["summaryMarkdown"] and "1:100" in body["summaryMarkdown"]
    titles = [entry["title"] for entry in body["tableOfContents"]]
    assert titles[:3] == ["Title block", "General Notes", "Drawing"]
    assert "Room: KITCHEN" in titles
    assert all(in_unit_box(entry["bbox"]) for entry in body["tableOfContents"])
    # The title block is in the bottom-right corner, boxes measured from the top-left.
    block = body["tableOfContents"][0]["bbox"]
    assert block["x0"] > 0.7 and block["y0"] > 0.6


async def test_summary_of_an_imperial_structural_sheet(client, world):
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, sheet_pdf(imperial_sheet())
    )
    response = await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sheetNumber"] == "S2.01"
    assert body["discipline"] == "Structural"
    assert body["scale"] == '1/4" = 1\'-0"'
    assert (body["revision"], body["date"]) == ("2", "2026-10-15")
    assert body["sheetTitle"] == "FIRST FLOOR FRAMING PLAN"
    assert body["rooms"] == ["STORAGE", "OFFICE 101", "LOBBY"]


async def test_sheet_number_without_a_hyphen_and_labels_above_values(client, world):
    """A101-style numbers; the discipline comes from the prefix letter."""
    sheet = Sheet(number="M201", title="LEVEL 2 DUCTWORK", scale="1:50")
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, sheet_pdf(sheet)
    )
    body = (
        await client.post(
            ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
        )
    ).json()
    assert (body["sheetNumber"], body["discipline"], body["scale"]) == (
        "M201",
        "Mechanical",
        "1:50",
    )


async def test_takeoff_counts_tags_rooms_fixtures_and_wall_length_at_1_to_100(client, world):
    sheet = metric_sheet()
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "takeoff-detect"),
        json={"pageIndex": 0, "categories": ["doors", "windows", "rooms", "walls", "fixtures"]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["counts"] == {"doors": 3, "windows": 2, "rooms": 3, "walls": 6, "fixtures": 4}
    labels = {c: sorted(i["label"] for i in body["items"] if i["category"] == c) for c in
              ("doors", "windows", "fixtures", "rooms")}  # fmt: skip
    # D01 and D02 also appear in the general notes: a note is not a door.
    assert labels["doors"] == ["D01", "D02", "D03"]
    assert labels["windows"] == ["W01", "W02"]
    assert labels["fixtures"] == ["WC", "basin", "shower", "sink"]
    assert labels["rooms"] == ["BEDROOM 1", "KITCHEN", "LIVING ROOM"]
    walls = body["lengths"]["walls"]
    # The overlapping and touching strokes count once: 53 m, not 54 m; the border is no wall.
    assert within_1_percent(walls["metres"], sheet.wall_length)
    assert walls["feet"] is None and walls["scale"] == "1:100"
    assert within_1_percent(walls["paperMm"], sheet.wall_length * 10)
    assert all(in_unit_box(i["bbox"]) or i["category"] == "walls" for i in body["items"])


async def test_takeoff_at_a_quarter_inch_to_the_foot_gives_feet_and_metres(client, world):
    sheet = imperial_sheet()
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, sheet_pdf(sheet)
    )
    response = await client.post(
        ai(version_id, "takeoff-detect"),
        json={"pageIndex": 0, "categories": ["walls", "doors", "windows"]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["counts"] == {"doors": 2, "windows": 3, "walls": 6}
    assert {i["category"] for i in body["items"]} == {"walls", "doors", "windows"}
    walls = body["lengths"]["walls"]
    assert within_1_percent(walls["feet"], sheet.wall_length)  # 186 ft
    assert within_1_percent(walls["metres"], sheet.wall_length * 0.3048)


async def test_results_are_cached_per_version_and_page_and_never_recomputed(client, world):
    headers = world.member.headers
    version_id = await upload_sheet(client, headers, world.project.id)
    empty = await client.get(ai(version_id, "sheet-cache") + "?pageIndex=0", headers=headers)
    assert empty.status_code == 200
    assert empty.json() == {
        "fileVersionId": version_id,
        "pageIndex": 0,
        "summary": None,
        "summaryComputedAt": None,
        "takeoff": None,
        "takeoffComputedAt": None,
    }
    summary = (
        await client.post(ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=headers)
    ).json()
    takeoff = await client.post(
        ai(version_id, "takeoff-detect"), json={"pageIndex": 0, "categories": ["doors"]},
        headers=headers,
    )  # fmt: skip
    assert takeoff.json()["counts"] == {"doors": 3}
    # The stored object is replaced by another sheet behind the app's back: answers stay the
    # first computation's, read from the cache, not from the file.
    storage = get_storage()
    assert isinstance(storage, LocalStorage)
    version = await version_row(version_id)
    storage.path(version.storage_key).write_bytes(sheet_pdf(imperial_sheet()))
    again = await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.manager.headers
    )
    assert again.json() == summary
    walls = await client.post(
        ai(version_id, "takeoff-detect"), json={"pageIndex": 0, "categories": ["walls"]},
        headers=headers,
    )  # fmt: skip
    assert walls.json()["lengths"]["walls"]["metres"] == pytest.approx(53.0, rel=0.01)
    cache = (
        await client.get(ai(version_id, "sheet-cache") + "?pageIndex=0", headers=headers)
    ).json()
    assert cache["summary"] == summary
    assert cache["takeoff"]["counts"]["windows"] == 2  # every category was kept
    assert cache["summaryComputedAt"].endswith("Z") and cache["takeoffComputedAt"]
    assert sorted(r["kind"] for r in await stored_results(version_id)) == ["summary", "takeoff"]
    # Another page of the same version has nothing yet.
    other = await client.get(ai(version_id, "sheet-cache") + "?pageIndex=3", headers=headers)
    assert other.json()["summary"] is None
    # Each computation is audited once.
    actions = [e.action for e in await audit_entries(version_id)]
    assert sorted(actions) == ["drawing_ai.summary_computed", "drawing_ai.takeoff_computed"]


async def test_the_cache_is_per_version(client, world):
    headers = world.member.headers
    first = await upload_sheet(client, headers, world.project.id, name="A-101.pdf")
    await client.post(ai(first, "sheet-summary"), json={"pageIndex": 0}, headers=headers)
    second = await upload_sheet(
        client, headers, world.project.id, sheet_pdf(imperial_sheet()), name="S2.01.pdf"
    )
    body = (
        await client.post(ai(second, "sheet-summary"), json={"pageIndex": 0}, headers=headers)
    ).json()
    assert body["sheetNumber"] == "S2.01"
    assert await count_results(first) == 1 and await count_results(second) == 1


async def test_objects_read_from_s3_are_spooled(client, world, s3_storage):
    """The S3 backend: the object is downloaded in chunks to a temporary file and read there."""
    assert settings.storage == "s3"
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await client.post(
        ai(version_id, "takeoff-detect"), json={"pageIndex": 0, "categories": ["rooms"]},
        headers=world.member.headers,
    )  # fmt: skip
    assert response.status_code == 200, response.text
    assert response.json()["counts"] == {"rooms": 3}


async def test_an_unlabelled_title_block_is_read_by_position_and_pattern(client, world):
    """The demo's A-201: number, title, "Scale 1:100" and "Revision 2" without labels."""
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, floor_plan(2), name="A-201.pdf"
    )
    body = (
        await client.post(
            ai(version_id, "sheet-summary"), json={"pageIndex": 0}, headers=world.member.headers
        )
    ).json()
    assert (body["sheetNumber"], body["sheetTitle"]) == ("A-201", "Level 3 Floor Plan")
    assert (body["scale"], body["revision"], body["date"]) == ("1:100", "2", None)
    assert "OPEN OFFICE 301" in body["rooms"] and body["notes"] == []
