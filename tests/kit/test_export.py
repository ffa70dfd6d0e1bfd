"""`kit.export.csv_cell`, the one guard of every CSV export, through an export route: a cell a
spreadsheet would run as a formula starts with an apostrophe, whichever form of `= + - @` opens
it (the full-width forms too, which spreadsheets read as the ASCII ones) and after the blanks and
breaks they skip."""

from __future__ import annotations

import csv
import io

import httpx

from tests.factories import World
from tests.issue.helpers import create_issue, issues_url

EQUALS, PLUS, MINUS, AT = "\uff1d", "\uff0b", "\uff0d", "\uff20"  # full-width = + - @
FULL_WIDTH = [
    f"{EQUALS}HYPERLINK(1)",
    f"{PLUS}1",
    f"{MINUS}2",
    f"{AT}SUM(3)",
    f" {EQUALS}4",
    f"\n{PLUS}5",
    f"\t{EQUALS}6",
]
TAB_AND_CR = ["\tplain", "\rplain", "\t", "\r\n"]
HARMLESS = [f"A{EQUALS}B", "plain", "1-2", f"x{AT}y"]


async def test_formula_openings_are_neutralised_in_exports(
    client: httpx.AsyncClient, world: World
) -> None:
    for text in FULL_WIDTH + TAB_AND_CR + HARMLESS:
        await create_issue(client, world.project.id, world.member.headers, description=text)
    response = await client.get(
        f"{issues_url(world.project.id)}/export.csv", headers=world.member.headers
    )
    assert response.status_code == 200
    cells = {row["description"] for row in csv.DictReader(io.StringIO(response.text))}
    assert {"'" + text for text in FULL_WIDTH + TAB_AND_CR} <= cells
    assert set(HARMLESS) <= cells
