"""What the issue page tests share: reading the list's and board's HTML."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx

from tests.factories import PAGE_CSRF, World


def form(**fields: Any) -> dict[str, Any]:
    return {"csrf": PAGE_CSRF, **fields}


def row_ids(page: str) -> list[str]:
    """The issues of a list page, in order (its table's rows)."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0] if "<tbody>" in page else ""
    return re.findall(r'<tr data-id="([^"]+)"', body)


def card_ids(page: str, status: str) -> list[str]:
    """The cards of one column of the board."""
    column = page.split(f'data-status="{status}"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<article class="ticket" data-id="([^"]+)"', column)


def next_link(page: str) -> str | None:
    found = re.search(r'rel="next" href="([^"]+)"', page)
    return html.unescape(found.group(1)) if found else None


def issues(world: World) -> str:
    return f"/app/projects/{world.project.id}/issues"


async def walk(
    client: httpx.AsyncClient, world: World, headers: dict[str, str], **params: Any
) -> list[str]:
    """Every issue of the list's view, page after page."""
    seen: list[str] = []
    response = await client.get(issues(world), params=params, headers=headers)
    while True:
        assert response.status_code == 200, (
            response.status_code,
            response.url,
            response.text[:300],
        )
        seen.extend(row_ids(response.text))
        url = next_link(response.text)
        if url is None:
            return seen
        response = await client.get(url, headers=headers)
