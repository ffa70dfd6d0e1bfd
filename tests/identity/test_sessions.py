"""list-sessions, revoke-session, revoke-other-sessions, revoke-sessions, update-user."""

from tests.identity.helpers import auth, cookie_of, set_cookies, sign_in, signed_up


async def _sessions(client, cookie):
    response = await client.get("/api/auth/list-sessions", headers=auth(cookie))
    assert response.status_code == 200, response.text
    return response.json()


async def test_list_sessions_shows_ids_never_cookie_secrets(client):
    email, first = await signed_up(client)
    second = cookie_of(await sign_in(client, email, rememberMe=False))
    sessions = await _sessions(client, first)
    assert len(sessions) == 2
    assert all(s["token"] == s["id"] for s in sessions)
    assert sessions[0]["id"] > sessions[1]["id"]  # newest first
    listing = (await client.get("/api/auth/list-sessions", headers=auth(first))).text
    for cookie in (first, second):
        secret = cookie.rsplit(".", 1)[0]
        assert secret not in listing


async def test_revoke_session_only_touches_the_callers_sessions(client):
    email, first = await signed_up(client)
    second = cookie_of(await sign_in(client, email))
    _, stranger = await signed_up(client)
    [stranger_session] = await _sessions(client, stranger)
    second_id = (await client.get("/api/auth/get-session", headers=auth(second))).json()["session"][
        "id"
    ]

    foreign = await client.post(
        "/api/auth/revoke-session", json={"token": stranger_session["id"]}, headers=auth(first)
    )
    assert foreign.status_code == 404 and foreign.json()["message"] == "Session not found"
    assert (await client.get("/api/auth/get-session", headers=auth(stranger))).json()

    revoked = await client.post(
        "/api/auth/revoke-session", json={"token": second_id}, headers=auth(first)
    )
    assert revoked.status_code == 200 and revoked.json() == {"status": True}
    assert set_cookies(revoked) == []
    assert (await client.get("/api/auth/get-session", headers=auth(second))).json() is None
    again = await client.post(
        "/api/auth/revoke-session", json={"token": second_id}, headers=auth(first)
    )
    assert again.status_code == 404
    bad = await client.post("/api/auth/revoke-session", json={"token": ""}, headers=auth(first))
    assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_FAILED"


async def test_revoking_the_current_session_clears_the_cookie(client):
    _, cookie = await signed_up(client)
    [mine] = await _sessions(client, cookie)
    response = await client.post(
        "/api/auth/revoke-session", json={"token": mine["id"]}, headers=auth(cookie)
    )
    assert response.status_code == 200
    assert "Max-Age=0" in set_cookies(response)[-1]
    assert (await client.get("/api/auth/get-session", headers=auth(cookie))).json() is None


async def test_revoke_other_sessions_keeps_the_current_one(client):
    email, first = await signed_up(client)
    second = cookie_of(await sign_in(client, email))
    third = cookie_of(await sign_in(client, email))
    _, stranger = await signed_up(client)
    response = await client.post("/api/auth/revoke-other-sessions", headers=auth(second))
    assert response.status_code == 200 and response.json() == {"status": True}
    assert len(await _sessions(client, second)) == 1
    for gone in (first, third):
        assert (await client.get("/api/auth/get-session", headers=auth(gone))).json() is None
    assert (await client.get("/api/auth/get-session", headers=auth(stranger))).json()


async def test_revoke_sessions_ends_every_session(client):
    email, first = await signed_up(client)
    second = cookie_of(await sign_in(client, email))
    response = await client.post("/api/auth/revoke-sessions", headers=auth(first))
    assert response.status_code == 200 and response.json() == {"status": True}
    assert "Max-Age=0" in set_cookies(response)[-1]
    for gone in (first, second):
        assert (await client.get("/api/auth/get-session", headers=auth(gone))).json() is None


async def test_session_routes_need_a_session(client):
    for method, path in (
        ("GET", "/api/auth/list-sessions"),
        ("POST", "/api/auth/revoke-other-sessions"),
        ("POST", "/api/auth/revoke-sessions"),
    ):
        response = await client.request(method, path)
        assert response.status_code == 401, path
        assert response.json()["code"] == "UNAUTHORIZED"


async def test_sign_out_without_a_session_still_clears_the_cookie(client):
    response = await client.post("/api/auth/sign-out")
    assert response.status_code == 200 and response.json() == {"success": True}
    assert "Max-Age=0" in set_cookies(response)[-1]


async def test_update_user_changes_name_and_image(client):
    _, cookie = await signed_up(client)
    response = await client.post(
        "/api/auth/update-user",
        json={"name": " Robin Site ", "image": "https://cdn.example.com/a.png"},
        headers=auth(cookie),
    )
    assert response.status_code == 200 and response.json() == {"status": True}
    user = (await client.get("/api/auth/get-session", headers=auth(cookie))).json()["user"]
    assert user["name"] == "Robin Site" and user["image"] == "https://cdn.example.com/a.png"

    cleared = await client.post("/api/auth/update-user", json={"image": None}, headers=auth(cookie))
    assert cleared.status_code == 200
    user = (await client.get("/api/auth/get-session", headers=auth(cookie))).json()["user"]
    assert user["name"] == "Robin Site" and user["image"] is None

    for bad in ({"name": ""}, {"image": "javascript:alert(1)"}, {"name": "x" * 201}):
        refused = await client.post("/api/auth/update-user", json=bad, headers=auth(cookie))
        assert refused.status_code == 400, bad
        assert refused.json()["code"] == "VALIDATION_FAILED"
    assert (await client.post("/api/auth/update-user", json={"name": "Z"})).status_code == 401
