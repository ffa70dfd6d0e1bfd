"""Sign-up → verification e-mail → verify → sign-in → get-session → sign-out, over HTTP."""

from datetime import timedelta

import pytest

from plumbline.kit import clock
from tests.factories import link_in, read_mails
from tests.identity.helpers import (
    STRONG,
    auth,
    cookie_of,
    query_param,
    set_cookies,
    sign_in,
    sign_up,
    signed_up,
    unique_email,
)


async def test_full_flow_from_sign_up_to_sign_out(client, outbox):
    response, email = await sign_up(client, unique_email("Flow"))
    assert response.status_code == 200, response.text
    body = response.json()
    user = body["user"]
    assert set(user) == {"id", "name", "email", "emailVerified", "image", "createdAt", "updatedAt"}
    assert user["email"] == email and email == email.lower()
    assert user["emailVerified"] is False and user["createdAt"].endswith("Z")
    signup_cookie = cookie_of(response)
    assert "Max-Age=2592000" in set_cookies(response)[-1]
    assert "HttpOnly" in set_cookies(response)[-1]
    # The body's token is the session's id, never the secret in the cookie.
    assert body["token"] not in signup_cookie

    # Signed in but unverified: /me works, verified-only routes refuse.
    me = await client.get("/api/v1/me", headers=auth(signup_cookie))
    assert me.status_code == 200 and me.json()["user"]["email"] == email
    refused = await client.get("/api/v1/me/notifications", headers=auth(signup_cookie))
    assert refused.status_code == 403
    assert refused.json() == {"error": "Email verification required", "code": "EMAIL_NOT_VERIFIED"}

    [mail] = read_mails(outbox, to=email)
    assert mail["Subject"] == "Verify your e-mail address"
    link = link_in(mail)
    # Without a callbackURL the link opens the account page (tests/pages); the JSON route
    # takes the same token.
    assert link.startswith("http://127.0.0.1:8000/account/verify-email?token=")
    json_link = "/api/auth/verify-email?token=" + query_param(link, "token")
    verified = await client.get(json_link)
    assert verified.status_code == 200 and verified.json() == {"status": True}
    again = await client.get(json_link)
    assert again.status_code == 400
    assert again.json()["code"] == "INVALID_TOKEN"
    assert again.json()["message"] == again.json()["error"]

    signed = await sign_in(client, email.upper())
    assert signed.status_code == 200, signed.text
    signed_body = signed.json()
    assert signed_body["redirect"] is False and signed_body["url"] is None
    assert signed_body["user"]["emailVerified"] is True
    cookie = cookie_of(signed)
    assert signed.headers["RateLimit-Limit"] == "10"

    current = await client.get("/api/auth/get-session", headers=auth(cookie))
    assert current.status_code == 200
    session = current.json()["session"]
    assert set(session) == {
        "id",
        "userId",
        "token",
        "expiresAt",
        "ipAddress",
        "userAgent",
        "createdAt",
        "updatedAt",
    }
    assert session["id"] == session["token"] == signed_body["token"]
    assert session["userId"] == user["id"]
    assert current.json()["user"]["emailVerified"] is True
    notifications = await client.get("/api/v1/me/notifications", headers=auth(cookie))
    assert notifications.status_code == 200 and notifications.json() == []

    out = await client.post("/api/auth/sign-out", headers=auth(cookie))
    assert out.status_code == 200 and out.json() == {"success": True}
    assert "Max-Age=0" in set_cookies(out)[-1]
    gone = await client.get("/api/auth/get-session", headers=auth(cookie))
    assert gone.status_code == 200 and gone.json() is None
    # The sign-up session is a separate one and still alive.
    still = await client.get("/api/auth/get-session", headers=auth(signup_cookie))
    assert still.json()["session"]["id"] == body["token"]


async def test_get_session_is_null_without_a_valid_cookie(client):
    anonymous = await client.get("/api/auth/get-session")
    assert anonymous.status_code == 200 and anonymous.text == "null"
    forged = await client.get("/api/auth/get-session", headers=auth("made-up.signature"))
    assert forged.status_code == 200 and forged.json() is None


async def test_api_key_in_the_cookie_is_refused(client):
    response = await client.get("/api/auth/get-session", headers=auth("psk_abcdefghijkl"))
    assert response.status_code == 401
    assert response.json()["error"] == "API keys must be sent in the x-api-key header"
    assert response.json()["message"] == response.json()["error"]


async def test_remember_me_false_gives_a_browser_session_cookie(client):
    email, _ = await signed_up(client)
    response = await sign_in(client, email, rememberMe=False)
    assert response.status_code == 200
    [header] = set_cookies(response)
    assert "max-age" not in header.lower() and "expires" not in header.lower()
    current = await client.get("/api/auth/get-session", headers=auth(cookie_of(response)))
    assert current.json()["session"]["id"] == response.json()["token"]


async def test_sign_up_with_a_taken_email_is_409_in_any_case(client):
    email, _ = await signed_up(client)
    response, _ = await sign_up(client, email.upper())
    assert response.status_code == 409
    assert response.json() == {
        "error": "User already exists",
        "code": "USER_ALREADY_EXISTS",
        "message": "User already exists",
    }
    assert set_cookies(response) == []


@pytest.mark.parametrize(
    "password",
    [
        "Sh0rt!pw",  # too short
        "alllowercase1!",
        "ALLUPPERCASE1!",
        "NoDigitsHere!!",
        "NoSymbols12345",
        "Aa1!" + "x" * 125,  # 129 characters
    ],
)
async def test_sign_up_refuses_weak_passwords(client, password):
    response, email = await sign_up(client, password=password)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED" and body["message"] == body["error"]
    assert body["details"][0]["field"] == "password"
    # Nothing was written: the address is still free.
    retry, _ = await sign_up(client, email)
    assert retry.status_code == 200


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "Pat", "email": "not-an-email", "password": STRONG}, "email"),
        ({"name": "  ", "email": "a@example.com", "password": STRONG}, "name"),
        ({"email": "a@example.com", "password": STRONG}, "name"),
        (
            {"name": "Pat", "email": "a@example.com", "password": STRONG, "image": "javascript:x"},
            "image",
        ),
    ],
)
async def test_sign_up_validates_fields(client, payload, field):
    response = await client.post("/api/auth/sign-up/email", json=payload)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "VALIDATION_FAILED" and body["message"] == body["error"]
    assert body["details"][0]["field"] == field


async def test_wrong_password_and_unknown_email_get_the_same_401(client):
    email, _ = await signed_up(client)
    wrong = await sign_in(client, email, "Wrong-Passw0rd!")
    unknown = await sign_in(client, unique_email("Nobody"))
    expected = {
        "error": "Invalid email or password",
        "code": "INVALID_EMAIL_OR_PASSWORD",
        "message": "Invalid email or password",
    }
    assert (wrong.status_code, wrong.json()) == (401, expected)
    assert (unknown.status_code, unknown.json()) == (401, expected)
    assert set_cookies(wrong) == []


async def test_verify_email_redirects_to_the_callback_url(client, outbox):
    _, email = await sign_up(client, callbackURL="/welcome?from=mail")
    link = link_in(read_mails(outbox, to=email)[-1])
    assert "callbackURL=%2Fwelcome%3Ffrom%3Dmail" in link
    response = await client.get(link)
    assert response.status_code == 302
    assert response.headers["location"] == "/welcome?from=mail"
    reused = await client.get(link)
    assert reused.status_code == 302
    assert reused.headers["location"] == "/welcome?from=mail&error=invalid_token"
    signed = await sign_in(client, email)
    assert signed.json()["user"]["emailVerified"] is True


async def test_expired_verification_link_answers_410(client, outbox):
    _, email = await sign_up(client)
    page_link = link_in(read_mails(outbox, to=email)[-1])
    link = page_link.replace("/account/verify-email", "/api/auth/verify-email")
    clock.set_now(clock.now() + timedelta(hours=24, minutes=1))
    expired = await client.get(link)
    assert expired.status_code == 410
    assert expired.json()["code"] == "EXPIRED" and expired.json()["message"]
    redirected = await client.get(f"{link}&callbackURL=%2Fwelcome")
    assert redirected.status_code == 302
    assert redirected.headers["location"] == "/welcome?error=token_expired"
    clock.set_now(None)
    signed = await sign_in(client, email)
    assert signed.json()["user"]["emailVerified"] is False


async def test_untrusted_callback_urls_are_refused(client, outbox):
    for bad in ("https://evil.example/welcome", "//evil.example/x", "javascript:alert(1)"):
        response, email = await sign_up(client, callbackURL=bad)
        assert response.status_code == 400, bad
        assert response.json()["details"][0]["field"] == "callbackURL"
        assert read_mails(outbox, to=email) == []
    trusted, email = await sign_up(client, callbackURL="http://127.0.0.1:8000/app")
    assert trusted.status_code == 200
    link = link_in(read_mails(outbox, to=email)[-1])
    bad_redirect = await client.get(f"{link}&callbackURL=https%3A%2F%2Fevil.example")
    assert bad_redirect.status_code == 400
    assert bad_redirect.json()["details"][0]["field"] == "callbackURL"
    # The refused attempt did not spend the token.
    assert (await client.get(link)).status_code == 302


async def test_unknown_verification_token_is_400(client):
    response = await client.get("/api/auth/verify-email", params={"token": "nope"})
    assert response.status_code == 400 and response.json()["code"] == "INVALID_TOKEN"
    missing = await client.get("/api/auth/verify-email")
    assert missing.status_code == 400 and missing.json()["code"] == "VALIDATION_FAILED"


async def test_send_verification_email_answers_the_same_for_everyone(client, outbox):
    email, _ = await signed_up(client)
    unknown = unique_email("Ghost").lower()
    for address in (email, unknown):
        response = await client.post(
            "/api/auth/send-verification-email",
            json={"email": address, "callbackURL": "/done"},
        )
        assert response.status_code == 200 and response.json() == {"status": True}
    mails = read_mails(outbox, to=email)
    assert len(mails) == 2 and "callbackURL=%2Fdone" in link_in(mails[-1])
    assert read_mails(outbox, to=unknown) == []
    # Both links work until one is used; verifying retires the other.
    first, second = link_in(mails[0]), link_in(mails[1])
    first = first.replace(
        "/account/verify-email", "/api/auth/verify-email"
    )  # sign-up's, no callback
    assert (await client.get(second)).status_code == 302
    assert (await client.get(first)).json()["code"] == "INVALID_TOKEN"
    # A verified account gets no more verification e-mails.
    await client.post("/api/auth/send-verification-email", json={"email": email})
    assert len(read_mails(outbox, to=email)) == 2


async def test_sign_in_rate_limit_answers_429_on_the_eleventh_attempt(client):
    email, _ = await signed_up(client)
    for attempt in range(10):
        response = await sign_in(client, email, "Wrong-Passw0rd!")
        assert response.status_code == 401, attempt
    limited = await sign_in(client, email)  # even the right password
    assert limited.status_code == 429
    body = limited.json()
    assert body["code"] == "RATE_LIMITED" and body["message"] == body["error"]
    assert int(limited.headers["Retry-After"]) >= 1
    assert limited.headers["RateLimit-Limit"] == "10"
    assert limited.headers["RateLimit-Remaining"] == "0"
    assert int(limited.headers["RateLimit-Reset"]) >= 1


async def test_sign_in_rate_limit_counts_per_email_and_per_ip(app):
    import httpx

    def client_from(ip: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=(ip, 1234)),
            base_url="http://127.0.0.1:8000",
            headers={"Origin": "http://127.0.0.1:8000"},
        )

    async with client_from("10.0.0.1") as first, client_from("10.0.0.2") as second:
        email, _ = await signed_up(first)
        for _ in range(10):
            assert (await sign_in(first, email, "Wrong-Passw0rd!")).status_code == 401
        # Another IP, same e-mail: the e-mail's budget is spent.
        assert (await sign_in(second, email)).status_code == 429
        # Same IP, another e-mail: the IP's budget is spent.
        assert (await sign_in(first, unique_email())).status_code == 429


async def test_public_auth_posts_refuse_a_foreign_origin(client):
    email, _ = await signed_up(client)
    foreign = await client.post(
        "/api/auth/sign-in/email",
        json={"email": email, "password": STRONG},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert foreign.json()["code"] == "INVALID_ORIGIN" and foreign.json()["message"]
    # Non-browser clients send no Origin at all; they may sign in.
    del client.headers["Origin"]
    plain = await sign_in(client, email)
    assert plain.status_code == 200


async def test_cookie_authenticated_post_without_a_trusted_origin_is_403(client):
    _, cookie = await signed_up(client)
    del client.headers["Origin"]
    bare = await client.post("/api/auth/update-user", json={"name": "X"}, headers=auth(cookie))
    assert bare.status_code == 403 and bare.json()["message"] == "Invalid origin"
    foreign = await client.post(
        "/api/auth/sign-out", headers={**auth(cookie), "Origin": "https://evil.example"}
    )
    assert foreign.status_code == 403
    # Referer from the trusted origin stands in for Origin.
    referred = await client.post(
        "/api/auth/update-user",
        json={"name": "Via Referer"},
        headers={**auth(cookie), "Referer": "http://127.0.0.1:8000/settings"},
    )
    assert referred.status_code == 200
    session = await client.get("/api/auth/get-session", headers=auth(cookie))
    assert session.json()["user"]["name"] == "Via Referer"
    # One check for both kinds of request: origins compare case-insensitively here too.
    shouted = await client.post(
        "/api/auth/update-user",
        json={"name": "Shouted"},
        headers={**auth(cookie), "Origin": "HTTP://127.0.0.1:8000"},
    )
    assert shouted.status_code == 200
