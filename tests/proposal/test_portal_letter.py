"""The client reads the letter they were sent: the portal fills the cover letter's variables
exactly as the PDF (and so the e-mail's attachment) does (issue 24 item 9)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from plumbline.kit import clock
from tests.proposal.flow import sent_with_link, url
from tests.proposal.test_pdf import text_of

LETTER = (
    "Dear {{client.name}},\n\nOur price for {{project.name}} is {{proposal.total}}, "
    "valid until {{proposal.validUntil}}. {{company.name}}, {{today}}.\n\n{{items.table}}"
)


async def test_the_portal_shows_the_letter_filled_in_as_in_the_pdf(client, world, outbox):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    proposal, path = await sent_with_link(client, world, outbox, coverLetter=LETTER)
    clock.set_now(datetime(2026, 11, 26, 9, 0, tzinfo=UTC))  # read days later: same letter
    view = (await client.get(path)).json()
    expected = (
        f"Dear Dana Client,\n\nOur price for {world.project.name} is $125.00, valid until "
        f"31 Dec 2026. {world.workspace.name}, 23 Nov 2026.\n\n(See the price table below.)"
    )
    assert view["coverLetter"] == expected
    document = await client.get(
        url(world.project, f"/{proposal['id']}/pdf"), headers=world.member.headers
    )
    pdf_text = " ".join(text_of(document.content).split())
    assert " ".join(expected.split()) in pdf_text
    # the contractor's own read keeps the template
    own = await client.get(url(world.project, f"/{proposal['id']}"), headers=world.member.headers)
    assert own.json()["coverLetter"] == LETTER


async def test_without_a_cover_letter_the_portal_shows_the_default_letter_of_the_pdf(
    client, world, outbox
):
    clock.set_now(datetime(2026, 11, 23, 9, 0, tzinfo=UTC))
    _, path = await sent_with_link(client, world, outbox)
    clock.set_now(clock.now() + timedelta(hours=1))
    letter = (await client.get(path)).json()["coverLetter"]
    assert letter.startswith("Dear Dana Client,\n\nThank you for the opportunity to price")
    assert "{{" not in letter and "$125.00" in letter
