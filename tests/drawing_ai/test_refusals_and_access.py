"""What the drawing AI will not read, each a clear 4xx with nothing stored, and who may use it."""

from __future__ import annotations

import io
import multiprocessing
import os
import resource
import signal
import tracemalloc

from plumbline.config import settings
from plumbline.demo.sheets import imperial_sheet, sheet_pdf
from plumbline.drawing_ai.extract import read_page
from tests.drawing_ai.helpers import (
    ai,
    big_set,
    bomb_pdf,
    count_results,
    damaged_pdf,
    encrypted_pdf,
    noise_image,
    raster_only_pdf,
    upload_sheet,
)
from tests.factories import create_api_key, external, key_headers, make_world, set_client_visibility


async def summary(client, headers, version_id, page_index=0):
    return await client.post(
        ai(version_id, "sheet-summary"), json={"pageIndex": page_index}, headers=headers
    )


async def test_a_raster_only_page_is_refused_saying_there_is_no_text(client, world):
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, raster_only_pdf(), name="scan.pdf"
    )
    for route, body in (
        ("sheet-summary", {"pageIndex": 0}),
        ("takeoff-detect", {"pageIndex": 0}),
        ("chat", {"pageIndex": 0, "messages": [{"role": "user", "content": "scale?"}]}),
    ):
        response = await client.post(ai(version_id, route), json=body, headers=world.member.headers)
        assert response.status_code == 400, (route, response.text)
        assert response.json()["code"] == "PAGE_HAS_NO_TEXT"
        assert "no text" in response.json()["error"]
    assert await count_results(version_id) == 0


async def test_a_file_that_is_not_a_pdf_is_415(client, world):
    image = io.BytesIO()
    noise_image(40, 30, 1).save(image, format="PNG")
    version_id = await upload_sheet(
        client,
        world.member.headers,
        world.project.id,
        image.getvalue(),
        name="photo.png",
        content_type="image/png",
    )
    response = await summary(client, world.member.headers, version_id)
    assert response.status_code == 415
    assert response.json()["code"] == "NOT_A_PDF"
    assert "PDF" in response.json()["error"]


async def test_a_page_out_of_range_is_400_naming_page_index(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    response = await summary(client, world.member.headers, version_id, page_index=1)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED"
    assert body["details"][0]["field"] == "pageIndex"
    assert "1 page" in body["error"] and body["pageCount"] == 1
    negative = await summary(client, world.member.headers, version_id, page_index=-1)
    assert negative.status_code == 400
    assert negative.json()["details"][0]["field"] == "pageIndex"
    assert await count_results(version_id) == 0


async def test_an_encrypted_pdf_is_400_pdf_encrypted(client, world):
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, encrypted_pdf(), name="locked.pdf"
    )
    response = await summary(client, world.member.headers, version_id)
    assert response.status_code == 400
    assert response.json()["code"] == "PDF_ENCRYPTED"
    assert "password" in response.json()["error"]


async def test_a_damaged_pdf_is_400_pdf_unreadable(client, world):
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, damaged_pdf(), name="broken.pdf"
    )
    response = await client.post(
        ai(version_id, "takeoff-detect"), json={"pageIndex": 0}, headers=world.member.headers
    )
    assert response.status_code == 400
    assert response.json()["code"] == "PDF_UNREADABLE"


async def test_bad_bodies_are_400_naming_the_field(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    cases = [
        ("sheet-summary", {}, "pageIndex"),
        ("sheet-summary", {"pageIndex": "1"}, "pageIndex"),
        ("takeoff-detect", {"pageIndex": 0, "categories": ["stairs"]}, "categories.0"),
        ("chat", {"pageIndex": 0, "messages": []}, "messages"),
        ("chat", {"pageIndex": 0, "messages": [{"role": "system", "content": "x"}]},
         "messages.0.role"),
        ("chat", {"pageIndex": 0, "messages": [{"role": "assistant", "content": "hi"}]}, "body"),
    ]  # fmt: skip
    for route, body, field in cases:
        response = await client.post(ai(version_id, route), json=body, headers=world.member.headers)
        assert response.status_code == 400, (route, body, response.text)
        assert response.json()["code"] == "VALIDATION_FAILED"
        assert field in [d["field"] for d in response.json()["details"]], response.json()


async def test_page_150_of_a_200_page_set_without_reading_the_other_pages(client, world, tmp_path):
    """The other 199 pages are incompressible scans: the file is over 10 MB while reading
    page 150 allocates a small fraction of that (tracemalloc's peak, not a timing; measured
    here in-process, as the sandbox's worker reads it)."""
    data = big_set(200, 150, imperial_sheet())
    assert len(data) > 10_000_000
    stored = tmp_path / "set.pdf"
    stored.write_bytes(data)
    with stored.open("rb") as stream:
        read_page(stream, 3)  # the PDF library imported before measuring
        tracemalloc.start()
        try:
            page = read_page(stream, 150)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert page.page_index == 150 and page.phrases
    assert peak < len(data) / 5, (peak, len(data))
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, data, name="set.pdf"
    )
    response = await summary(client, world.member.headers, version_id, page_index=150)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sheetNumber"] == "S2.01" and body["scale"] == '1/4" = 1\'-0"'
    assert "Page 151 of 200" in body["summaryMarkdown"]
    scan = await summary(client, world.member.headers, version_id, page_index=3)
    assert scan.status_code == 200  # a scan page with a caption: text, no title block
    assert scan.json()["sheetNumber"] is None
    past = await summary(client, world.member.headers, version_id, page_index=200)
    assert past.status_code == 400 and past.json()["pageCount"] == 200


async def test_another_workspaces_version_is_404_everywhere(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    other = await make_world()
    for method, route, body in (
        ("POST", "sheet-summary", {"pageIndex": 0}),
        ("POST", "takeoff-detect", {"pageIndex": 0}),
        ("POST", "chat", {"pageIndex": 0, "messages": [{"role": "user", "content": "scale"}]}),
        ("GET", "sheet-cache?pageIndex=0", None),
    ):
        response = await client.request(
            method, ai(version_id, route), json=body, headers=other.owner.headers
        )
        assert response.status_code == 404, (route, response.text)
        assert response.json()["code"] == "NOT_FOUND"
    unknown = await summary(client, world.member.headers, "0" * 26)
    assert unknown.status_code == 404
    assert await count_results(version_id) == 0


async def test_api_keys_are_refused_and_a_session_is_required(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    raw, _ = await create_api_key(world.project, scopes=["files:read", "files:write"])
    response = await summary(client, key_headers(raw), version_id)
    assert response.status_code == 403  # the house answer to a key on a session-only route
    assert response.json()["code"] == "API_KEY_PROJECT"
    anonymous = await client.post(ai(version_id, "sheet-summary"), json={"pageIndex": 0})
    assert anonymous.status_code == 401


async def test_clients_read_the_cache_where_drawings_are_shown_but_do_not_run_it(client, world):
    version_id = await upload_sheet(client, world.member.headers, world.project.id)
    assert (await summary(client, world.member.headers, version_id)).status_code == 200
    customer = await external(world, "CLIENT")
    await set_client_visibility(world.project, showDrawings=False)
    hidden = await client.get(ai(version_id, "sheet-cache?pageIndex=0"), headers=customer.headers)
    assert hidden.status_code == 404
    await set_client_visibility(world.project, showDrawings=True)
    cache = await client.get(ai(version_id, "sheet-cache?pageIndex=0"), headers=customer.headers)
    assert cache.status_code == 200 and cache.json()["summary"]["sheetNumber"] == "A-101"
    run = await summary(client, customer.headers, version_id)
    assert run.status_code == 403
    assert "do not run the drawing AI" in run.json()["error"]
    takeoff = await client.post(
        ai(version_id, "takeoff-detect"), json={"pageIndex": 0}, headers=world.manager.headers
    )
    assert takeoff.status_code == 200, takeoff.text


async def test_the_team_plan_is_402_and_pro_may_use_it(client, monkeypatch):
    monkeypatch.setattr(settings, "billing", "local")
    team = await make_world(plan="team")
    pro = await make_world(plan="pro")
    for world, status in ((team, 402), (pro, 200)):
        version_id = await upload_sheet(
            client, world.member.headers, world.project.id, sheet_pdf(imperial_sheet())
        )
        response = await summary(client, world.member.headers, version_id)
        assert response.status_code == status, response.text
    assert response.json()["sheetNumber"] == "S2.01"


async def test_a_decompression_bomb_is_refused_outside_the_server_process(
    client, world, monkeypatch
):
    """A 1 MB upload whose page inflates to 768 MB: the worker reading it stops at its memory
    ceiling (400, nothing stored) and the server's own memory never holds the inflated page."""
    monkeypatch.setattr(settings, "drawing_ai_memory_mb", 512)
    bomb = bomb_pdf(768 << 20)
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, bomb, name="bomb.pdf"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    for route in ("sheet-summary", "takeoff-detect"):
        response = await client.post(
            ai(version_id, route), json={"pageIndex": 0}, headers=world.member.headers
        )
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "PAGE_TOO_COMPLEX"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 256 * 1024
    assert await count_results(version_id) == 0
    sheet = await upload_sheet(client, world.member.headers, world.project.id)
    assert (await summary(client, world.member.headers, sheet)).status_code == 200


async def test_a_page_read_past_the_deadline_is_refused(client, world, monkeypatch):
    """Hundreds of megabytes of content take the reader seconds; the deadline is a twentieth of
    a second, so the worker gives the page up."""
    monkeypatch.setattr(settings, "drawing_ai_seconds", 0.05)
    version_id = await upload_sheet(
        client, world.member.headers, world.project.id, bomb_pdf(256 << 20), name="slow.pdf"
    )
    response = await summary(client, world.member.headers, version_id)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "PAGE_TOO_COMPLEX"
    assert await count_results(version_id) == 0


async def test_a_killed_worker_is_replaced(client, world):
    first = await upload_sheet(client, world.member.headers, world.project.id)
    assert (await summary(client, world.member.headers, first)).status_code == 200
    workers = [p for p in multiprocessing.active_children() if p.name.startswith("SpawnProcess")]
    assert workers
    for worker in workers:
        os.kill(worker.pid, signal.SIGKILL)  # type: ignore[arg-type]
        worker.join()
    second = await upload_sheet(client, world.member.headers, world.project.id)
    response = await summary(client, world.member.headers, second)
    assert response.status_code == 200, response.text
    assert response.json()["sheetNumber"] == "A-101"
