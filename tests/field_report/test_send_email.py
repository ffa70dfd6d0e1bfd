import io
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader

from plumbline.kit import clock
from tests.factories import audit_entries, create_api_key, key_headers, read_mails
from tests.field_report.helpers import outbox_rows_to, url

REPORT = {
    "title": "Daily report North tower",
    "reportDate": "2026-06-03",
    "weather": {"conditions": "Sunny", "highTemp": 24, "lowTemp": 11, "precipitation": 0},
    "manpower": [
        {"company": "Acme Concrete", "trade": "Concrete", "workers": 12, "hours": 96},
        {"company": "Volt Electric", "trade": "Electrical", "workers": 4, "hours": 30.5},
    ],
    "workPerformed": "Poured level 3 slab.",
    "delays": "None",
    "safetyNotes": "Toolbox talk on silica.",
    "notes": "Inspector on site.",
}


def unique(prefix: str) -> str:
    from plumbline.kit.ids import new_id

    return f"{prefix}-{new_id()}@example.com"


async def create(client, world, body=None):
    response = await client.post(
        url(world.project), json=body or REPORT, headers=world.member.headers
    )
    assert response.status_code == 200, response.text
    return response.json()


def pdf_of(message) -> tuple[str, bytes]:
    [part] = [p for p in message.iter_attachments() if p.get_content_type() == "application/pdf"]
    return part.get_filename(), part.get_content()


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


async def test_send_email_delivers_html_and_pdf(client, world, outbox):
    clock.set_now(datetime(2026, 6, 3, 19, 45, tzinfo=UTC))
    report = await create(client, world)
    first, second = unique("owner"), unique("architect")
    response = await client.post(
        url(world.project, "/send-email"),
        json={
            "reportId": report["id"],
            "recipients": [first, second, first.upper()],
            "message": "See today's <pour> notes",
        },
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"ok": True, "sent": 2, "lastEmailedAt": "2026-06-03T19:45:00.000Z"}

    for address in (first, second):
        [message] = read_mails(outbox, to=address)
        assert message["To"] == address  # one message each: nobody sees the others
        assert report["title"] in message["Subject"]
        html = message.get_body(preferencelist=("html",)).get_content()
        assert report["title"] in html
        assert "Acme Concrete" in html
        assert "See today&#x27;s &lt;pour&gt; notes" in html
        text = message.get_body(preferencelist=("plain",)).get_content()
        assert "Total: 16 workers" in text
        filename, data = pdf_of(message)
        assert filename == "field-report-2026-06-03-daily-report-north-tower.pdf"
        extracted = pdf_text(data)
        assert report["title"] in extracted
        assert world.project.name in extracted
        assert "Acme Concrete" in extracted and "Poured level 3 slab." in extracted
        assert "Total" in extracted and "16" in extracted

    fetched = (
        await client.get(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    ).json()
    assert fetched["lastEmailedAt"] == "2026-06-03T19:45:00.000Z"
    assert fetched["emailCount"] == 2
    entry = (await audit_entries(report["id"]))[-1]
    assert entry.action == "field_report.emailed"
    assert entry.changes["emailCount"] == [0, 2]
    assert entry.changes["recipients"] == [None, [first, second]]

    clock.set_now(datetime(2026, 6, 4, 8, 0, tzinfo=UTC))
    again = await client.post(
        url(world.project, "/send-email"),
        json={"reportId": report["id"], "recipients": [first]},
        headers=world.member.headers,
    )
    assert again.json()["sent"] == 1
    fetched = (
        await client.get(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    ).json()
    assert fetched["emailCount"] == 3
    assert fetched["lastEmailedAt"] == "2026-06-04T08:00:00.000Z"
    assert len(read_mails(outbox, to=first)) == 2


async def test_text_outside_latin1_does_not_break_the_pdf(client, world, outbox):
    report = await create(
        client,
        world,
        {
            "title": "Łódź site \u2013 “daily” 日報",
            "manpower": [{"company": "Żabka Sp. z o.o.", "workers": 3, "hours": 24}],
            "workPerformed": "Beton C30/37 — 12 m³ ✓ 🚧",
        },
    )
    address = unique("pl")
    response = await client.post(
        url(world.project, "/send-email"),
        json={"reportId": report["id"], "recipients": [address]},
        headers=world.member.headers,
    )
    assert response.status_code == 200, response.text
    [message] = read_mails(outbox, to=address)
    html = message.get_body(preferencelist=("html",)).get_content()
    assert "Łódź site \u2013 “daily” 日報" in html
    text = pdf_text(pdf_of(message)[1])
    assert 'Lódz site - "daily" ??' in text
    assert "Zabka" in text


@pytest.mark.parametrize(
    "recipients",
    [[], [f"r{n}@example.com" for n in range(26)], ["not-an-email"], ["a@example.com", "b@"]],
)
async def test_bad_recipients_send_nothing(client, world, outbox, recipients):
    report = await create(client, world)
    response = await client.post(
        url(world.project, "/send-email"),
        json={"reportId": report["id"], "recipients": recipients},
        headers=world.member.headers,
    )
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"
    assert await outbox_rows_to("a@example.com") == 0
    fetched = (
        await client.get(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    ).json()
    assert fetched["emailCount"] == 0 and fetched["lastEmailedAt"] is None


async def test_twenty_five_recipients_are_accepted(client, world, outbox):
    report = await create(client, world)
    recipients = [unique(f"r{n}") for n in range(25)]
    response = await client.post(
        url(world.project, "/send-email"),
        json={"reportId": report["id"], "recipients": recipients},
        headers=world.member.headers,
    )
    assert response.json()["sent"] == 25
    assert all(len(read_mails(outbox, to=r)) == 1 for r in recipients)


async def test_unknown_or_deleted_report_is_404(client, world, outbox):
    report = await create(client, world)
    await client.delete(url(world.project, f"/{report['id']}"), headers=world.member.headers)
    address = unique("nobody")
    for report_id in (report["id"], "missing"):
        response = await client.post(
            url(world.project, "/send-email"),
            json={"reportId": report_id, "recipients": [address]},
            headers=world.member.headers,
        )
        assert response.status_code == 404
    assert read_mails(outbox, to=address) == []
    assert await outbox_rows_to(address) == 0


async def test_send_needs_write_access(client, world, outbox):
    report = await create(client, world)
    body = {"reportId": report["id"], "recipients": [unique("k")]}
    reader, _ = await create_api_key(world.project, ["field-reports:read"])
    refused = await client.post(
        url(world.project, "/send-email"), json=body, headers=key_headers(reader)
    )
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: field-reports:write"
    writer, _ = await create_api_key(world.project, ["field-reports:write"])
    ok = await client.post(
        url(world.project, "/send-email"), json=body, headers=key_headers(writer)
    )
    assert ok.status_code == 200
    [message] = read_mails(outbox, to=body["recipients"][0])
    assert "Sent by Plumbline" in message.get_body(preferencelist=("plain",)).get_content()
    assert (await client.post(url(world.project, "/send-email"), json=body)).status_code == 401


async def test_sending_is_rate_limited_per_caller(client, world, outbox):
    report = await create(client, world)
    body = {"reportId": report["id"], "recipients": [unique("limit")]}
    for _ in range(20):
        ok = await client.post(
            url(world.project, "/send-email"), json=body, headers=world.member.headers
        )
        assert ok.status_code == 200
    refused = await client.post(
        url(world.project, "/send-email"), json=body, headers=world.member.headers
    )
    assert refused.status_code == 429
    assert refused.headers["retry-after"]
    by_other = await client.post(
        url(world.project, "/send-email"), json=body, headers=world.manager.headers
    )
    assert by_other.status_code == 200
