"""Password reset through the e-mail actually sent, and change-password."""

from datetime import timedelta

import orjson
from sqlalchemy import select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import AuditLog
from tests.conftest import ORIGIN
from tests.factories import link_in, read_mails
from tests.identity.helpers import (
    STRONG,
    auth,
    cookie_of,
    query_param,
    set_cookies,
    sign_in,
    signed_up,
    unique_email,
)

NEW = "N3w-Secret-Pass!"


async def _request_reset(client, email, **extra):
    response = await client.post("/api/auth/request-password-reset", json={"email": email, **extra})
    assert response.status_code == 200, response.text
    assert response.json() == {"status": True}


async def test_reset_flow_through_the_mail(client, outbox):
    email, cookie = await signed_up(client)
    other = cookie_of(await sign_in(client, email))
    await _request_reset(client, email)
    [mail] = [m for m in read_mails(outbox, to=email) if m["Subject"] == "Reset your password"]
    link = link_in(mail)
    assert link.startswith("http://127.0.0.1:8000/account/reset-password?token=")
    token = query_param(link, "token")

    weak = await client.post(
        "/api/auth/reset-password", json={"token": token, "newPassword": "weak"}
    )
    assert weak.status_code == 400 and weak.json()["details"][0]["field"] == "newPassword"

    done = await client.post("/api/auth/reset-password", json={"token": token, "newPassword": NEW})
    assert done.status_code == 200 and done.json() == {"status": True}
    # Every session of the user ended.
    for old in (cookie, other):
        assert (await client.get("/api/auth/get-session", headers=auth(old))).json() is None
    assert (await sign_in(client, email)).status_code == 401
    signed = await sign_in(client, email, NEW)
    assert signed.status_code == 200
    # Receiving the link proved the address.
    assert signed.json()["user"]["emailVerified"] is True

    reused = await client.post(
        "/api/auth/reset-password", json={"token": token, "newPassword": "An0ther-Pass!!"}
    )
    assert reused.status_code == 400
    assert reused.json()["code"] == "INVALID_TOKEN" and reused.json()["message"]
    assert (await sign_in(client, email, NEW)).status_code == 200

    async with database.sessionmaker() as db:
        actions = (
            await db.execute(
                select(AuditLog.action).where(AuditLog.entity_id == signed.json()["user"]["id"])
            )
        ).scalars()
        assert {"user.created", "user.password_reset"} <= set(actions)


async def test_reset_link_expires_after_an_hour(client, outbox):
    email, _ = await signed_up(client)
    await _request_reset(client, email)
    token = query_param(link_in(read_mails(outbox, to=email)[-1]), "token")
    clock.set_now(clock.now() + timedelta(minutes=61))
    expired = await client.post(
        "/api/auth/reset-password", json={"token": token, "newPassword": NEW}
    )
    assert expired.status_code == 410
    assert expired.json()["code"] == "EXPIRED"
    clock.set_now(None)
    assert (await sign_in(client, email)).status_code == 200


async def test_reset_for_an_unknown_email_sends_nothing(client, outbox):
    unknown = unique_email("Ghost")
    await _request_reset(client, unknown)
    assert read_mails(outbox, to=unknown.lower()) == []


async def test_reset_redirect_to(client, outbox):
    email, _ = await signed_up(client)
    await _request_reset(client, email, redirectTo="/auth/reset?step=2")
    link = link_in(read_mails(outbox, to=email)[-1])
    assert link.startswith("http://127.0.0.1:8000/auth/reset?step=2&token=")
    await _request_reset(client, email, redirectTo="http://127.0.0.1:8000/r")
    assert link_in(read_mails(outbox, to=email)[-1]).startswith("http://127.0.0.1:8000/r?token=")
    for bad in (
        "https://evil.example/reset",
        "//evil.example",
        "http://127.0.0.1:8000@evil.example/",
    ):
        for address in (email, unique_email()):
            response = await client.post(
                "/api/auth/request-password-reset", json={"email": address, "redirectTo": bad}
            )
            assert response.status_code == 400, bad
            assert response.json()["details"][0]["field"] == "redirectTo"


async def test_unknown_reset_token_is_400(client):
    response = await client.post(
        "/api/auth/reset-password", json={"token": "not-a-token", "newPassword": NEW}
    )
    assert response.status_code == 400 and response.json()["code"] == "INVALID_TOKEN"


async def test_change_password_keeps_other_sessions_unless_asked(client):
    email, cookie = await signed_up(client)
    other = cookie_of(await sign_in(client, email))

    wrong = await client.post(
        "/api/auth/change-password",
        json={"currentPassword": "Wrong-Passw0rd!", "newPassword": NEW},
        headers=auth(cookie),
    )
    assert wrong.status_code == 400 and wrong.json()["code"] == "INVALID_PASSWORD"
    weak = await client.post(
        "/api/auth/change-password",
        json={"currentPassword": STRONG, "newPassword": "short"},
        headers=auth(cookie),
    )
    assert weak.status_code == 400 and weak.json()["code"] == "VALIDATION_FAILED"

    changed = await client.post(
        "/api/auth/change-password",
        json={"currentPassword": STRONG, "newPassword": NEW},
        headers=auth(cookie),
    )
    assert changed.status_code == 200
    assert changed.json()["token"] is None and changed.json()["user"]["email"] == email
    assert set_cookies(changed) == []
    assert (await client.get("/api/auth/get-session", headers=auth(other))).json() is not None
    assert (await sign_in(client, email)).status_code == 401
    assert (await sign_in(client, email, NEW)).status_code == 200


async def test_change_password_revoking_other_sessions_rotates_the_cookie(client):
    email, cookie = await signed_up(client)
    other = cookie_of(await sign_in(client, email))
    # Two days on, the old cookie's sliding refresh is due in the same request.
    clock.set_now(clock.now() + timedelta(days=2))
    changed = await client.post(
        "/api/auth/change-password",
        json={"currentPassword": STRONG, "newPassword": NEW, "revokeOtherSessions": True},
        headers=auth(cookie),
    )
    assert changed.status_code == 200, changed.text
    # The old cookie's refresh and the new cookie: the new one comes last, so it wins.
    assert len(set_cookies(changed)) == 2
    fresh = cookie_of(changed)
    assert fresh != cookie
    for old in (cookie, other):
        assert (await client.get("/api/auth/get-session", headers=auth(old))).json() is None
    current = await client.get("/api/auth/get-session", headers=auth(fresh))
    assert current.json()["session"]["id"] == changed.json()["token"]


async def test_password_routes_need_a_session(client):
    response = await client.post(
        "/api/auth/change-password", json={"currentPassword": STRONG, "newPassword": NEW}
    )
    assert response.status_code == 401
    assert response.json() == {
        "error": "Unauthorized",
        "code": "UNAUTHORIZED",
        "message": "Unauthorized",
    }


async def test_reset_mail_goes_out_after_the_response(app, client, outbox):
    """Delivery runs once the response is sent, so the response time of a reset request does
    not tell whether the address has an account (SMTP can take seconds)."""
    email, _ = await signed_up(client)
    body = orjson.dumps({"email": email})
    mails_when_answered: list[object] | None = None

    def resets() -> list[object]:
        return [m for m in read_mails(outbox, to=email) if m["Subject"] == "Reset your password"]

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        nonlocal mails_when_answered
        if message["type"] == "http.response.body" and not message.get("more_body"):
            mails_when_answered = resets()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/auth/request-password-reset",
        "raw_path": b"/api/auth/request-password-reset",
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"origin", ORIGIN.encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    await app(scope, receive, send)
    assert mails_when_answered == []
    assert len(resets()) == 1
