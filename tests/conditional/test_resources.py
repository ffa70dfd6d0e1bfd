"""Every resource with a single-resource GET and a PATCH, through HTTP: a stable ETag, 304,
the PATCH's ETag is the next GET's, and a stale PATCH or DELETE is 412 with nothing changed."""

from __future__ import annotations

import httpx

from tests.conditional.helpers import resources
from tests.factories import om_world


async def test_every_resource_answers_conditional_requests(client: httpx.AsyncClient) -> None:
    world = await om_world()
    headers = world.owner.headers
    checked = []
    for resource in await resources(client, world):
        label = resource.kind
        first = await client.get(resource.url, headers=headers)
        assert first.status_code == 200, (label, first.text)
        tag = first.headers["etag"]
        again = await client.get(resource.url, headers=headers)
        assert again.headers["etag"] == tag and again.content == first.content, label

        unchanged = await client.get(resource.url, headers={**headers, "If-None-Match": tag})
        assert unchanged.status_code == 304 and unchanged.content == b"", label
        assert unchanged.headers["etag"] == tag, label

        patched = await client.patch(
            resource.url, json=resource.change, headers={**headers, "If-Match": tag}
        )
        assert patched.status_code == 200, (label, patched.text)
        after = await client.get(resource.url, headers=headers)
        assert after.headers["etag"] != tag, label
        # The PATCH answers the resource as the GET does, so its tag is the next read's.
        assert patched.headers["etag"] == after.headers["etag"], label
        assert patched.json() == after.json(), label
        changed = await client.get(resource.url, headers={**headers, "If-None-Match": tag})
        assert changed.status_code == 200 and changed.content == after.content, label

        other = {field: f"{value} (stale)" for field, value in resource.change.items()}
        stale = await client.patch(resource.url, json=other, headers={**headers, "If-Match": tag})
        assert stale.status_code == 412, (label, stale.text)
        assert stale.json()["code"] == "PRECONDITION_FAILED", label
        assert stale.headers["etag"] == after.headers["etag"], label
        if resource.deletable:
            refused = await client.delete(resource.url, headers={**headers, "If-Match": tag})
            assert refused.status_code == 412, (label, refused.text)
        read_back = await client.get(resource.url, headers=headers)
        assert read_back.status_code == 200 and read_back.content == after.content, label
        checked.append(label)
    assert len(checked) == 11
