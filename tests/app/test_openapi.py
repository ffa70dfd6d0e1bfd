async def test_openapi_is_served_with_both_security_schemes(client) -> None:  # type: ignore[no-untyped-def]
    response = await client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"] == "3.1.0"
    assert schema["info"]["version"] == "1.0.0"
    schemes = schema["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {"type": "apiKey", "in": "header", "name": "x-api-key"}
    assert schemes["SessionCookie"] == {
        "type": "apiKey",
        "in": "cookie",
        "name": "auth.session_token",
    }
    assert "ErrorBody" in schema["components"]["schemas"]


async def test_docs_page_is_served(client) -> None:  # type: ignore[no-untyped-def]
    response = await client.get("/api/v1/docs")
    assert response.status_code == 200
    assert "openapi.json" in response.text


async def test_record_creates_link_to_the_routes_of_the_record_they_made(client) -> None:  # type: ignore[no-untyped-def]
    paths = (await client.get("/api/v1/openapi.json")).json()["paths"]
    operation_ids = {op["operationId"] for item in paths.values() for op in item.values()}
    project = "/api/v1/projects/{projectId}"

    def links(collection: str) -> dict[str, dict[str, object]]:
        return paths[f"{project}/{collection}"]["post"]["responses"]["200"]["links"]  # type: ignore[no-any-return]

    for collection, id_name in [
        ("issues", "issueId"),
        ("rfi", "rfiId"),
        ("punch", "punchId"),
        ("field-reports", "reportId"),
        ("folders", "folderId"),
    ]:
        record = f"{project}/{collection}/{{{id_name}}}"
        expected = {
            op["operationId"]
            for path, item in paths.items()
            if path == record or path.startswith(f"{record}/")
            for op in item.values()
        }
        assert expected and set(links(collection)) == expected
        for link in links(collection).values():
            assert link["operationId"] in operation_ids
            assert link["parameters"] == {
                id_name: "$response.body#/id",
                "projectId": "$request.path.projectId",
            }
    issue_links = {link["operationId"] for link in links("issues").values()}
    comments = paths[f"{project}/issues/{{issueId}}/comments"]
    assert {comments["get"]["operationId"], comments["post"]["operationId"]} <= issue_links
    assert (
        "links" not in paths["/api/v1/workspaces/{workspaceId}/members"]["post"]["responses"]["200"]
    )


async def test_every_component_has_a_clean_name_and_its_own_title(client) -> None:  # type: ignore[no-untyped-def]
    # FastAPI names two models of one class name after their modules
    # (`plumbline__issue__schemas__UploadTarget`); client generators refuse the duplicate titles.
    schemas = (await client.get("/api/v1/openapi.json")).json()["components"]["schemas"]
    assert [name for name in schemas if "__" in name] == []
    titles: dict[str, list[str]] = {}
    for name, schema in schemas.items():
        titles.setdefault(schema.get("title", name), []).append(name)
    assert {title: names for title, names in titles.items() if len(names) > 1} == {}
    assert all(schema.get("title", name) == name for name, schema in schemas.items())
