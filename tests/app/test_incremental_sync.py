"""Incremental sync on every list (issue 27, item 3): each list route of the OpenAPI takes
``updatedSince``; with it, the list holds the rows changed at or after that instant, oldest
change first in ``(updatedAt, id)`` order, and paging it returns each row once.

The walk makes three rows of each list one second apart (``sync_routes.ROUTES``) at a frozen
clock, each route in an hour of its own, so that the rows of one list never fall in another's
window."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.kit.pagination import NEXT_SINCE
from tests.app.sync_routes import NOT_SYNCED, ROUTES, Ctx, ListRoute
from tests.factories import om_world

START = datetime(2030, 1, 1, tzinfo=UTC)
SETTLE = 5


def _list_routes(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """GET routes under /api/v1 answering a JSON array."""
    found = {}
    for path, item in spec["paths"].items():
        operation = item.get("get")
        if operation is None or not path.startswith("/api/v1/"):
            continue
        content = operation["responses"].get("200", {}).get("content", {})
        if content.get("application/json", {}).get("schema", {}).get("type") == "array":
            found[path] = operation
    return found


async def test_every_list_route_takes_updated_since_described_once(
    client: httpx.AsyncClient,
) -> None:
    spec = (await client.get("/api/v1/openapi.json")).json()
    lists = _list_routes(spec)
    assert len(lists) >= 30
    missing = [p for p, op in lists.items() if p not in NOT_SYNCED and not _since(op)]
    assert missing == [], f"list routes without updatedSince: {missing}"
    assert sorted(set(lists) - NOT_SYNCED) == sorted(ROUTES), "a list route without a maker"
    descriptions = {_since(op)["description"] for p, op in lists.items() if p in ROUTES}
    assert len(descriptions) == 1, descriptions
    assert "createdAt" in descriptions.pop()


def _since(operation: dict[str, Any]) -> Any:
    return next((p for p in operation.get("parameters", ()) if p["name"] == "updatedSince"), None)


def _time(row: dict[str, Any]) -> str | None:
    """The change time a row shows (every list but the team shows one)."""
    return row.get("updatedAt") or row.get("createdAt") or row.get("joinedAt")


async def _walk(
    client: httpx.AsyncClient, url: str, headers: dict[str, str], params: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[httpx.Response]]:
    rows: list[dict[str, Any]] = []
    responses = []
    next_url: str | None = url
    sent: dict[str, Any] | None = params
    while next_url is not None:
        response = await client.get(next_url, params=sent, headers=headers)
        assert response.status_code == 200, (url, response.text)
        rows += response.json()
        responses.append(response)
        sent = None  # the Link header's URL carries every parameter
        link = response.headers.get("link")
        next_url = link[1 : link.index(">")] if link else None
        assert len(responses) < 50, url
    return rows, responses


async def test_each_list_filters_orders_and_pages_by_change_time(
    client: httpx.AsyncClient, outbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "sync_settle_seconds", SETTLE)
    clock.set_now(START)
    ctx = Ctx(client, await om_world(), outbox)
    for hour, (path, route) in enumerate(ROUTES.items(), start=1):
        base = START + timedelta(hours=hour)
        clock.set_now(base)
        if route.params is not None:
            await route.params(ctx)
        made = []
        for second in (1, 2, 3):
            clock.set_now(base + timedelta(seconds=second))
            made.append(await route.make(ctx))
        await _check(ctx, path, route, base, made)


async def _check(ctx: Ctx, path: str, route: ListRoute, base: datetime, made: list[str]) -> None:
    client, url = ctx.client, ctx.url(path)
    headers = {} if route.actor == "public" else getattr(ctx.world, route.actor).headers
    since = {"updatedSince": clock.iso(base)}

    def keys(rows: list[dict[str, Any]]) -> list[str]:
        return [row[route.key] for row in rows]

    # Still inside the settle window: not yet.
    clock.set_now(base + timedelta(seconds=3.5))
    early = await client.get(url, params=since, headers=headers)
    assert early.status_code == 200, (path, early.text)
    assert not set(keys(early.json())) & set(made), path

    clock.set_now(base + timedelta(seconds=3 + SETTLE + 1))
    rows, (whole,) = await _walk(client, url, headers, since)
    listed = keys(rows)
    assert [k for k in listed if k in made] == made, (path, listed, made)
    assert len(set(listed)) == len(listed), path
    times = [_time(row) for row in rows]
    if route.key == "id" and None not in times:
        assert [(t, k) for t, k in zip(times, listed, strict=True)] == sorted(
            zip(times, listed, strict=True)
        ), path
    horizon = clock.now() - timedelta(seconds=SETTLE)
    assert whole.headers[NEXT_SINCE] == horizon.isoformat(timespec="microseconds")[:-6] + "Z"

    paged, responses = await _walk(client, url, headers, since | {"limit": 1})
    assert keys(paged) == listed, path
    assert len(responses) == len(listed), path  # one row a page, the look-ahead ends it
    assert NEXT_SINCE in responses[-1].headers and NEXT_SINCE not in responses[0].headers

    later = await client.get(
        url, params={"updatedSince": clock.iso(base + timedelta(seconds=1.5))}, headers=headers
    )
    assert later.status_code == 200, (path, later.text)
    assert [k for k in keys(later.json()) if k in made] == made[1:], path

    newest_first = await client.get(url, headers=headers)
    assert [k for k in keys(newest_first.json()) if k in made] == made[::-1], path

    bad = await client.get(url, params={"updatedSince": "yesterday"}, headers=headers)
    assert bad.status_code == 400, (path, bad.text)
    assert bad.json()["code"] == "VALIDATION_FAILED"
