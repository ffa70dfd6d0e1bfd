"""Photos of a run and its report PDF."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import httpx
from pypdf import PdfReader

from plumbline.kit import clock
from tests.factories import World, om_world
from tests.om_inspections.helpers import (
    add_photo,
    asset_id,
    create_run,
    create_template,
    png,
    runs_url,
)


async def _completed_run_with_photos(client: httpx.AsyncClient, world: World) -> dict:
    asset = await asset_id(client, world, tag="FP-01", name="Fire pump P-1")
    clock.set_now(datetime(2026, 3, 2, 10, 15, tzinfo=UTC))
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"], asset_id=asset)
    url = f"{runs_url(world.project.id)}/{run['id']}"
    blocked = await add_photo(client, url, world.member.headers, png((190, 30, 30)), "exit-b.png")
    gauge = await add_photo(
        client, url, world.member.headers, png((30, 150, 60), (48, 64)), "gauge.png"
    )
    results = [
        {
            "itemId": "exits",
            "outcome": "FAIL",
            "note": "Stairwell B blocked by pallets",
            "photoUploadId": blocked["uploadId"],
        },
        {"itemId": "ext", "outcome": "PASS", "photoUploadId": gauge["id"]},
        {"itemId": "panel", "outcome": "DONE"},
        {"itemId": "temp", "value": 18.5, "note": "Within range"},
    ]
    saved = await client.patch(url, json={"results": results}, headers=world.member.headers)
    assert saved.status_code == 200, saved.text
    assert [p["fileName"] for p in saved.json()["photos"]] == ["exit-b.png", "gauge.png"]
    done = await client.post(
        f"{url}/complete", json={"signedBy": "Sam Safety"}, headers=world.member.headers
    )
    assert done.status_code == 200, done.text
    return done.json()


async def test_report_pdf_has_every_item_photos_signer_and_follow_ups(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    run = await _completed_run_with_photos(client, world)
    [order] = run["followUpWorkOrders"]
    clock.set_now(datetime(2026, 3, 9, 8, 0, tzinfo=UTC))
    url = f"{runs_url(world.project.id)}/{run['id']}/report.pdf"
    response = await client.get(url, headers=world.member.headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert f'filename="inspection-{run["id"]}.pdf"' in response.headers["content-disposition"]
    reader = PdfReader(io.BytesIO(response.content))
    text = "\n".join(page.extract_text() for page in reader.pages)
    for expected in (
        "Inspection report: Monthly fire-safety walk",
        world.project.name,
        "FP-01 - Fire pump P-1 (Basement pump room)",
        "Exit routes clear",
        "Extinguisher pressure in green",
        "Alarm panel shows no faults",
        "Pump room temperature (C)",
        "General remarks (optional)",
        "FAIL",
        "Stairwell B blocked by pallets",
        "18.5",
        "Within range",
        "Sam Safety",
        "2026-03-02 10:15 UTC",
        f"#{order['number']}",
    ):
        assert expected in text, expected
    images = [image for page in reader.pages for image in page.images]
    assert len(images) == 2
    # the same run gives the same bytes, whatever the time of the download
    clock.set_now(datetime(2026, 4, 1, 8, 0, tzinfo=UTC))
    again = await client.get(url, headers=world.member.headers)
    assert again.content == response.content


async def test_draft_report_says_so(client: httpx.AsyncClient, world: World) -> None:
    world = await om_world()
    template = await create_template(client, world)
    run = await create_run(client, world, template["id"])
    response = await client.get(
        f"{runs_url(world.project.id)}/{run['id']}/report.pdf", headers=world.member.headers
    )
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(response.content)).pages)
    assert "DRAFT - not completed" in text
    assert "No asset (area inspection)" in text
    assert "Not answered" in text


async def test_photos_images_only_and_not_on_a_completed_run(
    client: httpx.AsyncClient, world: World
) -> None:
    world = await om_world()
    run = await _completed_run_with_photos(client, world)
    url = f"{runs_url(world.project.id)}/{run['id']}/photos/presign"
    body = {"fileName": "x.png", "contentType": "image/png", "sizeBytes": 10}
    closed = await client.post(url, json=body, headers=world.member.headers)
    assert closed.status_code == 409
    template = await create_template(client, world)
    draft = await create_run(client, world, template["id"])
    url = f"{runs_url(world.project.id)}/{draft['id']}/photos/presign"
    pdf = {"fileName": "x.pdf", "contentType": "application/pdf", "sizeBytes": 10}
    refused = await client.post(url, json=pdf, headers=world.member.headers)
    assert refused.status_code == 415
    # a photo of another run is not this run's
    other = f"{runs_url(world.project.id)}/{draft['id']}"
    photo_of_first = run["results"][0]["photoUploadId"]
    response = await client.patch(
        other,
        json={"results": [{"itemId": "exits", "photoUploadId": photo_of_first}]},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert response.json()["details"][0]["field"] == "results[0].photoUploadId"
