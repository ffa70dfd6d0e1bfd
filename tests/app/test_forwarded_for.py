"""The client's address behind a proxy, through `plumbline serve` itself (a real uvicorn): a
caller on loopback cannot choose its address with `X-Forwarded-For` unless the operator named
loopback in `PLUMBLINE_TRUSTED_PROXIES`, and then only the rightmost untrusted entry counts."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from plumbline.kit.ids import new_id
from tests.factories import audit_entries
from tests.live import LiveServer
from tests.occupant.test_portal import make_link, ops_world, portal, request_body

# 12 submissions a minute per link and address: 25 tries see a 429 even if a minute passes.
TRIES = 25


@pytest.fixture(scope="module")
def untrusting() -> Iterator[LiveServer]:
    with LiveServer(serve=True) as server:
        yield server


@pytest.fixture(scope="module")
def behind_proxy() -> Iterator[LiveServer]:
    with LiveServer(env={"PLUMBLINE_TRUSTED_PROXIES": "127.0.0.1"}, serve=True) as server:
        yield server


async def submissions(
    client: httpx.AsyncClient, server: LiveServer, forwarded_for: list[str]
) -> list[httpx.Response]:
    """One occupant submission through a new link per ``X-Forwarded-For`` value, until the
    first 429."""
    link = await make_link(client, await ops_world())
    answers = []
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as live:
        for value in forwarded_for:
            answer = await live.post(
                portal(link["token"], "/submit"),
                json=request_body(f"r-{new_id()}@example.com"),
                headers={"X-Forwarded-For": value},
            )
            answers.append(answer)
            if answer.status_code != 200:
                break
    return answers


async def audited_ip(answer: httpx.Response) -> str | None:
    [entry] = [e for e in await audit_entries(answer.json()["issueId"]) if e.ip is not None]
    return entry.ip


def rotating(template: str) -> list[str]:
    return [template.format(n=n) for n in range(TRIES)]


async def test_forwarded_for_from_loopback_is_ignored_by_default(client, untrusting):
    answers = await submissions(client, untrusting, rotating("10.0.{n}.1"))
    assert answers[-1].status_code == 429, [a.status_code for a in answers]
    assert answers[-1].json()["code"] == "RATE_LIMITED"
    assert await audited_ip(answers[0]) == "127.0.0.1"

    # The marketing chat's limit (24 per 15 minutes per address) is counted the same way.
    async with httpx.AsyncClient(base_url=untrusting.url, timeout=60) as live:
        statuses = [
            (
                await live.post(
                    "/api/v1/public/marketing/chat",
                    json={"messages": [{"role": "user", "content": "How do RFIs work?"}]},
                    headers={"X-Forwarded-For": f"10.1.{n}.1"},
                )
            ).status_code
            for n in range(25)
        ]
    assert 429 in statuses


async def test_a_trusted_proxy_forwards_the_clients_address(client, behind_proxy):
    answers = await submissions(client, behind_proxy, rotating("198.51.100.{n}"))
    assert [a.status_code for a in answers] == [200] * TRIES
    assert await audited_ip(answers[0]) == "198.51.100.0"
    assert await audited_ip(answers[-1]) == f"198.51.100.{TRIES - 1}"


async def test_a_forged_leftmost_entry_is_not_believed(client, behind_proxy):
    # The client sends any X-Forwarded-For it likes; the proxy appends the address it saw.
    answers = await submissions(client, behind_proxy, rotating("10.9.{n}.1, 203.0.113.7"))
    assert answers[-1].status_code == 429, [a.status_code for a in answers]
    assert await audited_ip(answers[0]) == "203.0.113.7"
    # Through two proxies on loopback: still the address the first one saw.
    chained = await submissions(client, behind_proxy, ["10.9.0.1, 203.0.113.8, 127.0.0.1"])
    assert await audited_ip(chained[0]) == "203.0.113.8"


async def test_the_standard_forwarded_header_counts_only_from_a_trusted_proxy(
    client, behind_proxy, untrusting
):
    forged = [f'for="10.8.{n}.1"' for n in range(TRIES)]
    async with httpx.AsyncClient(base_url=untrusting.url, timeout=60) as live:
        link = await make_link(client, await ops_world())
        statuses = []
        for value in forged:
            answer = await live.post(
                portal(link["token"], "/submit"),
                json=request_body(f"r-{new_id()}@example.com"),
                headers={"Forwarded": value},
            )
            statuses.append(answer.status_code)
            if answer.status_code != 200:
                break
    assert statuses[-1] == 429, statuses  # a forged header from an untrusted peer: one client

    async with httpx.AsyncClient(base_url=behind_proxy.url, timeout=60) as live:
        link = await make_link(client, await ops_world())
        first = None
        for n in range(TRIES):
            answer = await live.post(
                portal(link["token"], "/submit"),
                json=request_body(f"r-{new_id()}@example.com"),
                headers={"Forwarded": f'for=10.7.0.1, for="198.51.100.{n}:4711";proto=https'},
            )
            assert answer.status_code == 200, (n, answer.text)
            first = first or answer
    assert first is not None and await audited_ip(first) == "198.51.100.0"
