"""The account pages over plain HTTP: refused links, the CSRF and origin checks, ``next=``,
rate limits and field errors as pages; outcomes through the JSON API."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx

from plumbline.kit import clock
from tests.factories import link_in, read_mails
from tests.identity.helpers import COOKIE, STRONG, query_param, sign_in, sign_up, unique_email

NEW = "Fresh-Passw0rd!"


async def csrf_of(client: httpx.AsyncClient, url: str) -> str:
    """The form's CSRF value (its cookie stays in the client's jar)."""
    page = await client.get(url)
    assert page.status_code == 200, page.text
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def is_page(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/html")
    return response.text


async def signed_up_mail(client: httpx.AsyncClient, outbox) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    response, email = await sign_up(client)
    assert response.status_code == 200
    client.cookies.clear()
    [mail] = read_mails(outbox, to=email)
    return email, link_in(mail)


async def test_the_verification_link_opens_a_page_that_says_what_happened(client, outbox):
    email, link = await signed_up_mail(client, outbox)
    assert link.startswith("http://127.0.0.1:8000/account/verify-email?token=")
    path = link.removeprefix("http://127.0.0.1:8000")
    assert "Your e-mail address is verified" in is_page(await client.get(path), 200)
    assert (await sign_in(client, email)).json()["user"]["emailVerified"] is True
    assert "already been used" in is_page(await client.get(path), 400)
    assert "doesn&#39;t work" in is_page(await client.get("/account/verify-email?token=nope"), 400)
    assert "doesn&#39;t work" in is_page(await client.get("/account/verify-email"), 400)

    other, other_link = await signed_up_mail(client, outbox)
    clock.set_now(clock.now() + timedelta(hours=24, minutes=1))
    expired = is_page(await client.get(other_link.removeprefix("http://127.0.0.1:8000")), 410)
    assert "This link has expired" in expired and 'action="/account/verify-email"' in expired
    clock.set_now(None)
    assert (await sign_in(client, other)).json()["user"]["emailVerified"] is False
    # The page's form asks for a new link, answering the same for any address.
    csrf = re.search(r'name="csrf" value="([^"]+)"', expired).group(1)  # type: ignore[union-attr]
    for address in (other, unique_email("Nobody")):
        sent = await client.post("/account/verify-email", data={"csrf": csrf, "email": address})
        assert "Check your inbox" in is_page(sent, 200)
    assert len(read_mails(outbox, to=other)) == 2


async def test_reset_password_from_the_mail_link_with_the_json_rules(client, outbox):
    email, _ = await signed_up_mail(client, outbox)
    csrf = await csrf_of(client, "/account/forgot-password")
    asked = await client.post("/account/forgot-password", data={"csrf": csrf, "email": email})
    assert "Check your inbox" in is_page(asked, 200)
    [mail] = [m for m in read_mails(outbox, to=email) if m["Subject"] == "Reset your password"]
    link = link_in(mail)
    assert link.startswith("http://127.0.0.1:8000/account/reset-password?token=")
    token = query_param(link, "token")
    form = is_page(await client.get(link.removeprefix("http://127.0.0.1:8000")), 200)
    assert 'name="newPassword"' in form and 'name="confirmPassword"' in form

    def post(new: str, again: str, token: str = token) -> dict[str, str]:
        return {"csrf": csrf, "token": token, "newPassword": new, "confirmPassword": again}

    mismatch = is_page(await client.post("/account/reset-password", data=post(NEW, NEW + "x")), 400)
    assert 'aria-describedby="f-confirmPassword-error"' in mismatch
    weak = is_page(await client.post("/account/reset-password", data=post("weak", "weak")), 400)
    assert 'id="f-newPassword-error"' in weak and "Must be 10 to 128 characters" in weak
    assert (await sign_in(client, email)).status_code == 200  # nothing changed yet
    done = await client.post("/account/reset-password", data=post(NEW, NEW))
    assert "Your password has been changed" in is_page(done, 200)
    assert (await sign_in(client, email)).status_code == 401
    assert (await sign_in(client, email, NEW)).status_code == 200
    # Used: another tab's submit changes nothing.
    again = await client.post("/account/reset-password", data=post(STRONG, STRONG))
    assert "already been used" in is_page(again, 400)
    assert (await sign_in(client, email, NEW)).status_code == 200
    assert "already been used" in is_page(
        await client.get(f"/account/reset-password?token={token}"), 400
    )
    unknown = await client.get("/account/reset-password?token=nope")
    assert "doesn&#39;t work" in is_page(unknown, 400)
    nothing = await client.get("/account/reset-password")
    assert nothing.status_code == 303 and nothing.headers["location"] == "/account/forgot-password"


async def test_an_expired_reset_link_says_so_before_the_form(client, outbox):
    email, _ = await signed_up_mail(client, outbox)
    await client.post("/api/auth/request-password-reset", json={"email": email})
    link = link_in(read_mails(outbox, to=email)[-1]).removeprefix("http://127.0.0.1:8000")
    clock.set_now(clock.now() + timedelta(hours=1, minutes=1))
    assert "Reset links work for one hour" in is_page(await client.get(link), 410)


async def test_sign_in_sets_the_cookie_as_the_json_route_does_and_follows_next(client):
    _, email = await sign_up(client)
    client.cookies.clear()
    csrf = await csrf_of(client, "/account/sign-in?next=/account/invite/abc")
    wrong = await client.post(
        "/account/sign-in",
        data={
            "csrf": csrf,
            "email": email,
            "password": "Wrong-Passw0rd!",
            "next": "/account/invite/abc",
        },
    )
    page = is_page(wrong, 401)
    assert 'aria-describedby="f-password-error"' in page and "Invalid email or password" in page
    assert 'name="next" value="/account/invite/abc"' in page
    signed = await client.post(
        "/account/sign-in",
        data={
            "csrf": csrf,
            "email": email,
            "password": STRONG,
            "rememberMe": "1",
            "next": "/account/invite/abc",
        },
    )
    assert signed.status_code == 303 and signed.headers["location"] == "/account/invite/abc"
    [cookie] = [h for h in signed.headers.get_list("set-cookie") if h.startswith(COOKIE)]
    assert "HttpOnly" in cookie and "Max-Age=2592000" in cookie and "SameSite=lax" in cookie
    session = await client.get("/api/auth/get-session")
    assert session.json()["user"]["email"] == email
    home = is_page(await client.get("/account/"), 200)
    assert email in home and "Sign out" in home
    out_csrf = re.search(r'name="csrf" value="([^"]+)"', home).group(1)  # type: ignore[union-attr]
    out = await client.post("/account/sign-out", data={"csrf": out_csrf})
    assert out.status_code == 303 and out.headers["location"] == "/account/sign-in"
    assert (await client.get("/api/auth/get-session")).json() is None
    assert (await client.get("/account/")).headers[
        "location"
    ] == "/account/sign-in?next=%2Faccount%2F"


async def test_forms_without_the_csrf_token_or_from_another_site_are_refused(client):
    _, email = await sign_up(client)
    client.cookies.clear()
    data = {"email": email, "password": STRONG}
    assert "Reload the page" in is_page(await client.post("/account/sign-in", data=data), 403)
    csrf = await csrf_of(client, "/account/sign-in")
    forged = await client.post("/account/sign-in", data={**data, "csrf": csrf + "x"})
    assert forged.status_code == 403 and COOKIE not in forged.headers.get("set-cookie", "")
    elsewhere = await client.post(
        "/account/sign-in", data={**data, "csrf": csrf}, headers={"Origin": "https://evil.example"}
    )
    assert is_page(elsewhere, 403) and COOKIE not in elsewhere.headers.get("set-cookie", "")
    as_json = await client.post("/account/sign-in", json={**data, "csrf": csrf})
    assert as_json.status_code == 400 and "<h1" in as_json.text


async def test_next_must_be_a_path_on_this_site(client):
    _, email = await sign_up(client)
    client.cookies.clear()
    for bad in ("https://evil.example/x", "//evil.example/x", "/\\evil.example", "javascript:x"):
        page = await client.get("/account/sign-in", params={"next": bad})
        assert "must be a path on this site" in is_page(page, 400), bad
        assert (await client.get("/account/sign-up", params={"next": bad})).status_code == 400
    nul = await client.get("/account/sign-in?next=/%00")  # refused before any route: still a page
    assert "Invalid characters in the URL" in is_page(nul, 400)
    csrf = await csrf_of(client, "/account/sign-in")
    posted = await client.post(
        "/account/sign-in",
        data={"csrf": csrf, "email": email, "password": STRONG, "next": "//evil.example"},
    )
    assert posted.status_code == 400 and COOKIE not in posted.headers.get("set-cookie", "")


async def test_the_sign_in_form_has_the_json_routes_rate_limit(client):
    _, email = await sign_up(client)
    client.cookies.clear()
    csrf = await csrf_of(client, "/account/sign-in")
    data = {"csrf": csrf, "email": email, "password": "Wrong-Passw0rd!"}
    for _ in range(10):
        assert (await client.post("/account/sign-in", data=data)).status_code == 401
    limited = await client.post("/account/sign-in", data={**data, "password": STRONG})
    assert "Too many attempts" in is_page(limited, 429)
    assert int(limited.headers["retry-after"]) > 0
    assert (await sign_in(client, email)).status_code == 429  # the same counter


async def test_sign_up_shows_field_errors_and_escapes_what_was_typed(client, outbox):
    csrf = await csrf_of(client, "/account/sign-up")
    script = "<script>alert(1)</script>"
    bad = await client.post(
        "/account/sign-up",
        data={"csrf": csrf, "name": script, "email": "not-an-address", "password": "short"},
    )
    page = is_page(bad, 400)
    assert script not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'aria-describedby="f-email-error"' in page
    email = unique_email("Page")
    weak = await client.post(
        "/account/sign-up", data={"csrf": csrf, "name": "Pat", "email": email, "password": "short"}
    )
    assert 'aria-describedby="f-password-hint f-password-error"' in is_page(weak, 400)
    assert read_mails(outbox, to=email.lower()) == []
    made = await client.post(
        "/account/sign-up",
        data={
            "csrf": csrf,
            "name": script,
            "email": email,
            "password": STRONG,
            "next": "/account/",
        },
    )
    assert made.status_code == 303 and made.headers["location"] == "/account/"
    me = (await client.get("/api/v1/me")).json()
    assert me["user"] == {"id": me["user"]["id"], "name": script, "email": email.lower()}
    home = is_page(await client.get("/account/"), 200)
    assert "not verified yet" in home and "&lt;script&gt;" in home
    [mail] = read_mails(outbox, to=email.lower())
    assert "/account/verify-email?token=" in link_in(mail)
    taken = await client.post(
        "/account/sign-up", data={"csrf": csrf, "name": "Pat", "email": email, "password": STRONG}
    )
    assert "already exists" in is_page(taken, 409)


async def test_the_reset_form_has_the_json_routes_mail_limit_and_says_the_same_for_anyone(
    client, outbox
):
    csrf = await csrf_of(client, "/account/forgot-password")
    nobody = unique_email("Nobody")
    for _ in range(5):
        asked = await client.post("/account/forgot-password", data={"csrf": csrf, "email": nobody})
        assert "Check your inbox" in is_page(asked, 200)
    limited = await client.post("/account/forgot-password", data={"csrf": csrf, "email": nobody})
    assert "Too many attempts" in is_page(limited, 429)
    assert read_mails(outbox, to=nobody.lower()) == []
    bad = await client.post("/account/forgot-password", data={"csrf": csrf, "email": "x"})
    assert 'aria-describedby="f-email-error"' in is_page(bad, 400)
