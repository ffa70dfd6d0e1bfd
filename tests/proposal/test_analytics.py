"""GET /projects/{p}/proposals/analytics/summary: the figures, exact sums, fixed query count."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from plumbline.db import database
from plumbline.kit import clock
from plumbline.kit.ids import new_id
from plumbline.models import Project, Proposal
from tests.factories import (
    QueryCounter,
    create_api_key,
    external,
    key_headers,
    make_world,
)
from tests.proposal.test_endpoints import url

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
SENT = NOW - timedelta(days=10)


def row(project: Project, status: str, total: str, **values: Any) -> dict[str, Any]:
    amount = Decimal(total)
    return {
        "id": new_id(),
        "project_id": project.id,
        "workspace_id": project.workspace_id,
        "reference": f"PROP-{new_id()[:8]}",
        "title": f"{status} {total}",
        "status": status,
        "valid_until": NOW + timedelta(days=5),
        "currency": "USD",
        "items": [],
        "subtotal": amount,
        "work_price_percent": 0,
        "work_amount": 0,
        "tax_percent": 0,
        "tax_amount": 0,
        "discount": 0,
        "total": amount,
        "created_at": SENT,
        "updated_at": SENT,
        # every row names every column: an executemany takes its columns from the first row
        "sent_at": None,
        "viewed_at": None,
        "accepted_at": None,
        "declined_at": None,
        "deleted_at": None,
    } | values


async def insert(rows: list[dict[str, Any]]) -> None:
    async with database.sessionmaker() as db:
        await db.execute(Proposal.__table__.insert(), rows)
        await db.commit()


def summary_url(project: Project) -> str:
    return url(project, "/analytics/summary")


async def test_every_figure(client, world):
    clock.set_now(NOW)
    p = world.project
    await insert(
        [
            row(p, "DRAFT", "100.00"),
            row(p, "DRAFT", "50.00"),
            row(p, "SENT", "1000.10", sent_at=SENT),
            # Past its validUntil without an answer: counted as expired, not in the pipeline.
            row(p, "SENT", "999.00", sent_at=SENT, valid_until=NOW - timedelta(seconds=1)),
            row(p, "VIEWED", "200.20", sent_at=SENT, viewed_at=SENT),
            row(p, "ACCEPTED", "0.10", sent_at=SENT, accepted_at=SENT + timedelta(days=3)),
            row(p, "ACCEPTED", "0.20", sent_at=SENT, accepted_at=SENT + timedelta(days=1)),
            row(p, "DECLINED", "5.00", sent_at=SENT, declined_at=SENT + timedelta(days=2)),
            row(p, "EXPIRED", "7.00", sent_at=SENT),
            row(p, "CHANGES_REQUESTED", "300.00", sent_at=SENT),
            row(p, "ACCEPTED", "1000000.00", deleted_at=NOW),  # deleted: not counted
        ]
    )
    other = await make_world()
    await insert([row(other.project, "ACCEPTED", "5.00")])  # another project: not counted
    response = await client.get(summary_url(p), headers=world.member.headers)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "total": 10,
        "draft": 2,
        "sent": 1,
        "viewed": 1,
        "accepted": 2,
        "declined": 1,
        "expired": 2,
        "changesRequested": 1,
        "pipelineValue": "1500.30",
        "acceptedValue": "0.30",
        "winRate": 0.6667,
        "averageDaysToDecision": 2.0,
    }


async def test_an_empty_project(client, world):
    response = await client.get(summary_url(world.project), headers=world.member.headers)
    assert response.status_code == 200
    assert response.json() == {
        "total": 0,
        "draft": 0,
        "sent": 0,
        "viewed": 0,
        "accepted": 0,
        "declined": 0,
        "expired": 0,
        "changesRequested": 0,
        "pipelineValue": "0.00",
        "acceptedValue": "0.00",
        "winRate": None,
        "averageDaysToDecision": None,
    }


async def test_sums_are_exact_at_twelve_digits(client, world):
    clock.set_now(NOW)
    big = "999999999999.99"
    await insert([row(world.project, "ACCEPTED", big) for _ in range(3)])
    await insert([row(world.project, "ACCEPTED", "0.01") for _ in range(7)])
    response = await client.get(summary_url(world.project), headers=world.member.headers)
    assert response.json()["acceptedValue"] == "3000000000000.04"
    assert response.json()["winRate"] == 1.0


async def test_access(client, world):
    other = await make_world()
    assert (
        await client.get(summary_url(world.project), headers=other.owner.headers)
    ).status_code == 404
    outsider = await external(world, "CLIENT")
    assert (
        await client.get(summary_url(world.project), headers=outsider.headers)
    ).status_code == 403
    raw, _ = await create_api_key(world.project, ["proposals:read"])
    assert (
        await client.get(summary_url(world.project), headers=key_headers(raw))
    ).status_code == 200


async def test_the_same_queries_for_1_and_500(client):
    clock.set_now(NOW)
    counts = []
    for size in (1, 500):
        world = await make_world()
        statuses = ("DRAFT", "SENT", "VIEWED", "ACCEPTED", "DECLINED")
        await insert(
            [
                row(
                    world.project,
                    statuses[n % 5],
                    "1.00",
                    sent_at=SENT,
                    accepted_at=SENT + timedelta(days=1),
                    declined_at=SENT + timedelta(days=1),
                )
                for n in range(size)
            ]
        )
        with QueryCounter() as counter:
            response = await client.get(summary_url(world.project), headers=world.member.headers)
        assert response.status_code == 200
        assert response.json()["total"] == size
        counts.append(counter.count)
    assert counts[0] == counts[1]
