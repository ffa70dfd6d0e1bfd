"""Conditional requests on an issue through HTTP (RFC 9110 §13): ETag, 304, 412, 400."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import QueryCounter, World, audit_entries, create_api_key, key_headers
from tests.issue.helpers import create_issue, issues_url


async def _issue(client: httpx.AsyncClient, world: World) -> tuple[str, httpx.Response]:
    issue = await create_issue(client, world.project.id, world.member.headers)
    url = f"{issues_url(world.project.id)}/{issue['id']}"
    return url, await client.get(url, headers=world.member.headers)


def _with(headers: dict[str, str], **conditions: str) -> dict[str, str]:
    return {**headers, **{name.replace("_", "-"): value for name, value in conditions.items()}}


async def test_an_unchanged_issue_is_304_and_a_changed_one_has_a_new_tag(
    client: httpx.AsyncClient, world: World
) -> None:
    url, read = await _issue(client, world)
    tag = read.headers["etag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 10
    assert "ETag" in read.headers["access-control-expose-headers"]  # browsers may read it
    for held in (tag, f'"other", {tag}', f"W/{tag}", "*", f'"a,b",{tag}'):
        unchanged = await client.get(url, headers=_with(world.member.headers, If_None_Match=held))
        assert unchanged.status_code == 304, held
        assert unchanged.content == b"" and "content-type" not in unchanged.headers
        assert unchanged.headers["etag"] == tag and unchanged.headers["x-request-id"]
    patched = await client.patch(url, json={"priority": "HIGH"}, headers=world.member.headers)
    assert patched.status_code == 200 and patched.headers["etag"] != tag
    changed = await client.get(url, headers=_with(world.member.headers, If_None_Match=tag))
    assert changed.status_code == 200 and changed.json()["priority"] == "HIGH"
    assert changed.headers["etag"] == patched.headers["etag"]


async def test_an_api_key_gets_the_same_tags(client: httpx.AsyncClient, world: World) -> None:
    url, read = await _issue(client, world)
    raw, _ = await create_api_key(world.project, ["issues:read", "issues:write"])
    by_key = await client.get(url, headers=key_headers(raw))
    assert by_key.headers["etag"] == read.headers["etag"]
    held = _with(key_headers(raw), If_None_Match=read.headers["etag"])
    assert (await client.get(url, headers=held)).status_code == 304
    written = await client.patch(
        url,
        json={"title": "By key"},
        headers=_with(key_headers(raw), If_Match=read.headers["etag"]),
    )
    assert written.status_code == 200, written.text


async def test_a_stale_patch_or_delete_is_412_and_changes_nothing(
    client: httpx.AsyncClient, world: World
) -> None:
    url, read = await _issue(client, world)
    stale = read.headers["etag"]
    first = await client.patch(
        url, json={"title": "First"}, headers=_with(world.member.headers, If_Match=stale)
    )
    assert first.status_code == 200
    entries = len(await audit_entries(first.json()["id"]))
    for method, body in (("PATCH", {"title": "Second"}), ("DELETE", None)):
        refused = await client.request(
            method, url, json=body, headers=_with(world.member.headers, If_Match=stale)
        )
        assert refused.status_code == 412, refused.text
        assert refused.json() == {
            "error": "The resource changed since the entity tag in If-Match (read it again)",
            "code": "PRECONDITION_FAILED",
        }
        assert refused.headers["etag"] == first.headers["etag"]
    for weak in (f"W/{first.headers['etag']}", '"nope"'):  # If-Match compares strongly
        refused = await client.patch(
            url, json={"title": "Third"}, headers=_with(world.member.headers, If_Match=weak)
        )
        assert refused.status_code == 412
    read_back = await client.get(url, headers=world.member.headers)
    assert read_back.json() == first.json()
    assert len(await audit_entries(first.json()["id"])) == entries
    deleted = await client.delete(
        url, headers=_with(world.member.headers, If_Match=f'"x", {first.headers["etag"]}')
    )
    assert deleted.status_code == 200
    assert (await client.get(url, headers=world.member.headers)).status_code == 404


async def test_if_match_star_and_if_none_match_on_writes(
    client: httpx.AsyncClient, world: World
) -> None:
    """``*`` holds when the resource exists; a missing one answers its 404 as before.
    ``If-None-Match`` on a write: 412 when it names the current tag (or ``*``)."""
    url, read = await _issue(client, world)
    star = _with(world.member.headers, If_Match="*")
    assert (await client.patch(url, json={"title": "Star"}, headers=star)).status_code == 200
    missing = await client.patch(f"{url}x", json={"title": "Star"}, headers=star)
    assert missing.status_code == 404 and missing.json()["code"] == "NOT_FOUND"
    current = (await client.get(url, headers=world.member.headers)).headers["etag"]
    for held in (current, "*"):
        refused = await client.patch(
            url, json={"title": "No"}, headers=_with(world.member.headers, If_None_Match=held)
        )
        assert refused.status_code == 412 and refused.json()["code"] == "PRECONDITION_FAILED"
    old = _with(world.member.headers, If_None_Match=read.headers["etag"])
    assert (await client.patch(url, json={"title": "Yes"}, headers=old)).status_code == 200


@pytest.mark.parametrize(
    "value",
    ["abc", '"unterminated', 'W/ "x"', '"a" "b"', '*, "a"', '"a"; x', ",", '"tab\there"', 'w/"x"'],
)
async def test_a_malformed_tag_is_400_and_writes_nothing(
    client: httpx.AsyncClient, world: World, value: str
) -> None:
    url, read = await _issue(client, world)
    for name in ("If-Match", "If-None-Match"):
        refused = await client.patch(
            url, json={"title": "Never"}, headers={**world.member.headers, name: value}
        )
        assert refused.status_code == 400, (name, value, refused.text)
        assert refused.json()["code"] == "VALIDATION_FAILED"
        assert refused.json()["details"][0]["field"] == name
        on_read = await client.get(url, headers={**world.member.headers, name: value})
        assert on_read.status_code == 400
    assert (await client.get(url, headers=world.member.headers)).json() == read.json()


async def test_the_reader_refusals_come_first(client: httpx.AsyncClient, world: World) -> None:
    """A conditional write reads the resource as its GET does, for the same caller: a key
    without the read scope is told so; a stranger gets the 404 of the read."""
    url, read = await _issue(client, world)
    raw, _ = await create_api_key(world.project, ["issues:write"])
    refused = await client.patch(
        url, json={"title": "Blind"}, headers=_with(key_headers(raw), If_Match=read.headers["etag"])
    )
    assert refused.status_code == 403 and refused.json()["code"] == "API_KEY_SCOPE"
    assert (
        await client.patch(url, json={"title": "Blind"}, headers=key_headers(raw))
    ).status_code == 200


async def test_a_conditional_read_costs_no_statement_more(
    client: httpx.AsyncClient, world: World
) -> None:
    url, read = await _issue(client, world)
    with QueryCounter() as plain:
        await client.get(url, headers=world.member.headers)
    with QueryCounter() as conditional:
        held = _with(world.member.headers, If_None_Match=read.headers["etag"])
        assert (await client.get(url, headers=held)).status_code == 304
    assert conditional.count == plain.count
