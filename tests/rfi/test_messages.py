"""GET/POST /projects/{p}/rfi/{id}/messages: sanitised rich text, access, audit."""

from __future__ import annotations

import httpx

from tests.factories import World, audit_entries, create_api_key, key_headers, make_world
from tests.rfi.helpers import create_rfi, post_message, rfi_url

CASES = [
    ("<p>Hello <script>alert(1)</script>world</p>", "<p>Hello world</p>"),
    (
        '<p onclick="steal()" style="color:red" class="x">Kept <b>b</b> <strong>s</strong> '
        "<i>i</i> <em>e</em> <u>u</u> <code>c</code></p>",
        "<p>Kept <b>b</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <code>c</code></p>",
    ),
    (
        "<ul><li>one<li>two</ul><ol><li>first</li></ol>",
        "<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>",
    ),
    (
        "<blockquote>quoted</blockquote><pre>x = 1</pre>line<br>break",
        "<blockquote>quoted</blockquote><pre>x = 1</pre>line<br>break",
    ),
    (
        '<a href="https://example.com/a?b=1&c=2" target="_blank" onmouseover="x()">site</a> '
        '<a href="mailto:pm@example.com">mail</a> <a href="http://x.test">plain</a>',
        '<a href="https://example.com/a?b=1&amp;c=2">site</a> '
        '<a href="mailto:pm@example.com">mail</a> <a href="http://x.test">plain</a>',
    ),
    (
        '<a href="javascript:alert(1)">bad</a><a href="JaVa&#x09;Script:alert(1)">worse</a>',
        "badworse",
    ),
    ('<a href="data:text/html,<script>x</script>">data</a>', "data"),
    ('<img src="x" onerror="alert(1)"><div><span>nested</span></div>', "nested"),
    ("<style>p { color: red }</style><iframe src=//evil>inside</iframe>after", "after"),
    ("<svg><script>alert(1)</script><text>t</text></svg>ok", "ok"),
    ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
    ("<b>unclosed <i>tags", "<b>unclosed <i>tags</i></b>"),
    ("</b>stray</p> end", "stray end"),
    ("<!-- comment --><p>x</p>", "<p>x</p>"),
]


async def test_messages_are_sanitised(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    for raw, clean in CASES:
        message = await post_message(client, rfi, world.member, raw)
        assert message["body"] == clean, raw
    listed = await client.get(
        rfi_url(world.project.id, rfi["id"], "messages"), headers=world.member.headers
    )
    assert [m["body"] for m in reversed(listed.json())] == [clean for _, clean in CASES]


async def test_post_and_list_messages(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    first = await post_message(client, rfi, world.member, "<p>First</p>")
    second = await post_message(client, rfi, world.admin, "Second")
    assert set(first) == {
        "id",
        "rfiId",
        "projectId",
        "body",
        "createdBy",
        "authorName",
        "createdAt",
        "isOfficialResponse",
    }
    assert first["rfiId"] == rfi["id"] and first["projectId"] == world.project.id
    assert first["createdBy"] == world.member.id and first["authorName"] == "Mel Member"
    assert first["isOfficialResponse"] is False
    response = await client.get(
        rfi_url(world.project.id, rfi["id"], "messages"), headers=world.manager.headers
    )
    assert response.status_code == 200
    assert [m["id"] for m in response.json()] == [second["id"], first["id"]]
    assert response.json()[1] == first
    paged = await client.get(
        rfi_url(world.project.id, rfi["id"], "messages"),
        params={"limit": 1},
        headers=world.manager.headers,
    )
    assert [m["id"] for m in paged.json()] == [second["id"]] and "next" in paged.headers["link"]
    [entry] = [
        e
        for e in await audit_entries(rfi["id"])
        if e.action == "rfi.message_posted" and e.actor_user_id == world.admin.id
    ]
    assert entry.changes["messageId"] == [None, second["id"]]
    assert entry.changes["body"] == [None, "Second"]


async def test_message_refusals(client: httpx.AsyncClient, world: World) -> None:
    rfi = await create_rfi(client, world.project.id, world.member.headers)
    url = rfi_url(world.project.id, rfi["id"], "messages")
    for body in (
        {},
        {"body": ""},
        {"body": "<script>only()</script>"},
        {"body": "<p> </p>"},
        {"body": "x" * 50_001},
    ):
        response = await client.post(url, json=body, headers=world.member.headers)
        assert response.status_code == 400, body
    assert (await client.post(url, json={"body": "x"})).status_code == 401
    assert (await client.get(url)).status_code == 401
    missing = rfi_url(world.project.id, "nope", "messages")
    assert (
        await client.post(missing, json={"body": "x"}, headers=world.member.headers)
    ).status_code == 404
    assert (await client.get(missing, headers=world.member.headers)).status_code == 404
    other = await make_world()
    assert (
        await client.post(url, json={"body": "x"}, headers=other.owner.headers)
    ).status_code == 404
    assert (await client.get(url, headers=other.owner.headers)).status_code == 404

    read_only, _ = await create_api_key(world.project, ["rfi:read"])
    refused = await client.post(url, json={"body": "x"}, headers=key_headers(read_only))
    assert refused.status_code == 403
    assert refused.json()["error"] == "API key missing scope: rfi:write"
    assert (await client.get(url, headers=key_headers(read_only))).status_code == 200
    writer, _ = await create_api_key(world.project, ["rfi:write"])
    posted = await client.post(url, json={"body": "From the key"}, headers=key_headers(writer))
    assert posted.status_code == 200 and posted.json()["createdBy"] is None
    assert posted.json()["authorName"] == "API key"  # as issue comments name a key
    listed = await client.get(url, headers=world.member.headers)
    assert len(listed.json()) == 1 and listed.json()[0]["authorName"] == "API key"
