async def test_health_reports_database(client):
    response = await client.get("/api/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["database"] == "ok" and body["version"] == "1.0.0"
    assert response.headers["x-request-id"]


async def test_request_id_is_echoed(client):
    response = await client.get("/api/v1/health", headers={"X-Request-Id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"


async def test_unknown_route_renders_error_body(client):
    response = await client.get("/api/v1/nope")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "code": "NOT_FOUND"}


async def test_body_over_one_mebibyte_is_refused(client):
    response = await client.post("/api/v1/health", content=b"x" * (1024 * 1024 + 1))
    assert response.status_code == 413
    assert response.json()["code"] == "PAYLOAD_TOO_LARGE"
