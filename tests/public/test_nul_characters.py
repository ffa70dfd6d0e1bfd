"""NUL characters (which PostgreSQL refuses in text) are refused with 400 wherever they come in."""


async def test_nul_in_the_path_or_query_is_refused(client, world) -> None:  # type: ignore[no-untyped-def]
    in_path = await client.get("/api/v1/projects/abc%00def", headers=world.owner.headers)
    assert in_path.status_code == 400
    assert in_path.json()["code"] == "BAD_REQUEST"
    in_query = await client.get(
        f"/api/v1/projects/{world.project.id}/issues?q=a%00b", headers=world.owner.headers
    )
    assert in_query.status_code == 400


async def test_nul_in_a_json_field_is_refused_and_nothing_is_written(client, world) -> None:  # type: ignore[no-untyped-def]
    url = f"/api/v1/projects/{world.project.id}/issues"
    response = await client.post(url, json={"title": "Leak\u0000"}, headers=world.owner.headers)
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_FAILED"
    nested = await client.patch(
        f"/api/v1/projects/{world.project.id}/punch/bulk",
        json={"ids": ["x"], "assigneeIds": ["a\u0000"]},
        headers=world.owner.headers,
    )
    assert nested.status_code == 400
    assert (await client.get(url, headers=world.owner.headers)).json() == []
