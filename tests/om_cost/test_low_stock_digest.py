"""A part below its minimum is a line of the daily maintenance digest while it stays below."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.digest.test_om_digests import call
from tests.digest.test_work_order_aging import section
from tests.factories import mail_text, om_world, read_mails
from tests.om_cost.helpers import create_location, create_part, receive


async def test_parts_below_their_minimum_are_in_the_maintenance_digest(
    client: httpx.AsyncClient, outbox: Path
) -> None:
    world = await om_world()
    low = await create_part(client, world, name="Filter G4", unit="each", minQuantity="6")
    fine = await create_part(client, world, name="V-belt B50", unit="each", minQuantity="2")
    room = await create_location(client, world, "Plant store")
    await receive(client, world, low["id"], room["id"], 4)
    await receive(client, world, fine["id"], room["id"], 5)

    counts = await call(client, "om-maintenance-reminders")
    assert counts["ok"] is True
    [mail] = read_mails(outbox, to=world.owner.user.email)
    lines = section(mail_text(mail), "Parts below their minimum:")
    assert [line for line in lines if "Filter G4" in line and "4.00 each (minimum 6.00)" in line]
    assert not [line for line in lines if "V-belt B50" in line]
