async def test_preflight_from_a_trusted_origin_is_allowed(client) -> None:  # type: ignore[no-untyped-def]
    response = await client.options(
        "/api/v1/health",
        headers={"Origin": "http://127.0.0.1:8000", "Access-Control-Request-Method": "GET"},
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "http://127.0.0.1:8000"
    assert response.headers["access-control-allow-credentials"] == "true"


async def test_untrusted_origin_gets_no_cors_grant(client) -> None:  # type: ignore[no-untyped-def]
    response = await client.options(
        "/api/v1/health",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
    )
    assert "access-control-allow-origin" not in response.headers
