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
