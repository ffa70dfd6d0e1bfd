"""Reads are read-only (issue 28, item 4): every GET runs without a transaction on PostgreSQL
unless it is marked ``routing.transactional`` (it writes), and every list, walked as a client
pages it, sends no BEGIN, COMMIT or SAVEPOINT and no more statements than it did."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.config import settings
from plumbline.db import database
from plumbline.routing import reads_only
from tests.app.list_walk import walk
from tests.app.sync_routes import P, W

# The GETs that write, each in its transaction.
TRANSACTIONAL = {
    "/api/v1/cloud/{provider}/authorize",  # keeps the OAuth state and PKCE verifier
    "/api/v1/cloud/{provider}/callback",  # keeps the connection and its tokens
    "/api/auth/verify-email",  # the address verified, audited
    "/account/verify-email",  # the same, as a page
    "/portal/proposals/{token}",  # the client's first view: SENT -> VIEWED, notified, audited
}

# Statements each list sends for its first page (the caller's credential and access, the rows,
# their related collections, the credential's touch): never more (issue 28).
STATEMENTS: dict[str, int] = {
    P + "/issues": 2,
    P + "/issues/{issueId}/comments": 3,
    P + "/punch": 4,
    P + "/field-reports": 2,
    P + "/rfi": 4,
    P + "/rfi/{rfiId}/messages": 3,
    P + "/proposals": 2,
    P + "/proposals/{proposalId}/revisions": 3,
    P + "/proposals/{proposalId}/comments": 3,
    P + "/proposals/{proposalId}/messages": 3,
    "/api/v1/public/proposals/{token}/messages": 2,
    P + "/om/occupant-links": 2,
    P + "/om/assets": 2,
    P + "/om/assets/{assetId}/meter-readings": 3,
    P + "/om/maintenance": 2,
    P + "/om/inspection-templates": 2,
    P + "/om/inspection-runs": 3,
    W + "/om/parts": 2,
    W + "/vendors": 2,
    P + "/om/stock-locations": 2,
    P + "/om/stock": 2,
    P + "/om/stock/moves": 2,
    P + "/om/costs": 2,
    P + "/om/purchase-orders": 2,
    P + "/om/assets/{assetId}/downtime": 3,
    "/api/v1/me/notifications": 2,
    W + "/members": 3,
    P + "/team": 2,
    W + "/invites": 2,
    W + "/email-invites": 2,
    W + "/materials": 2,
    W + "/projects": 2,
    W + "/proposal-templates": 2,
    P + "/api-keys": 2,
    P + "/audit-logs": 2,
    P + "/folders": 2,
    P + "/files": 2,
    "/api/v1/me/calendar-feeds": 2,
    P + "/calendar-feeds": 2,
    P + "/webhooks": 2,
    P + "/webhooks/{webhookId}/deliveries": 3,
    P + "/audit-logs/export": 2,
    "/api/v1/cloud/connections": 2,
}


def test_every_get_reads_only_but_the_ones_that_write(app) -> None:  # type: ignore[no-untyped-def]
    gets = {
        str(ctx.path): reads_only(ctx.original_route)
        for ctx in routing.iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute) and "GET" in (ctx.original_route.methods or ())
    }
    assert len(gets) > 100
    assert {path for path, read in gets.items() if not read} == TRANSACTIONAL


async def test_every_list_sends_no_transaction_and_no_more_statements(
    client: httpx.AsyncClient, outbox: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings, "sync_settle_seconds", 0)
    spec = (await client.get("/api/v1/openapi.json")).json()
    calls = await walk(client, outbox, spec)
    postgres = database.engine.dialect.name == "postgresql"
    if postgres:
        opened = {(c.path, c.mode): c.transaction_control for c in calls if c.transaction_control}
        assert opened == {}
    counts = {
        c.path: len(c.statements) - len(c.transaction_control)
        for c in calls
        if c.mode in ("first", "once")
    }
    assert set(counts) == set(STATEMENTS)
    more = {path: (n, STATEMENTS[path]) for path, n in counts.items() if n > STATEMENTS[path]}
    assert more == {}
