"""Small helpers for the identity tests: sign up, sign in and read the session cookie."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx

from plumbline.kit.ids import new_id

STRONG = "Str0ng-Passw0rd!"
COOKIE = "auth.session_token"


def unique_email(prefix: str = "Person") -> str:
    return f"{prefix}-{new_id()}@Example.COM"


def set_cookies(response: httpx.Response) -> list[str]:
    """The Set-Cookie headers for the session cookie, in order."""
    return [h for h in response.headers.get_list("set-cookie") if h.startswith(f"{COOKIE}=")]


def cookie_of(response: httpx.Response) -> str:
    """The session cookie's value as the browser would keep it (the last Set-Cookie wins)."""
    cookies = set_cookies(response)
    assert cookies, f"no session cookie in {response.headers}"
    return cookies[-1].split(";", 1)[0].split("=", 1)[1].strip('"')


def auth(cookie: str) -> dict[str, str]:
    return {"Cookie": f"{COOKIE}={cookie}"}


def query_param(link: str, name: str) -> str:
    return parse_qs(urlsplit(link).query)[name][0]


async def sign_up(
    client: httpx.AsyncClient,
    email: str | None = None,
    *,
    password: str = STRONG,
    name: str = "Pat Builder",
    **extra: object,
) -> tuple[httpx.Response, str]:
    email = email or unique_email()
    response = await client.post(
        "/api/auth/sign-up/email",
        json={"name": name, "email": email, "password": password, **extra},
    )
    return response, email.lower()


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = STRONG, **extra: object
) -> httpx.Response:
    return await client.post(
        "/api/auth/sign-in/email", json={"email": email, "password": password, **extra}
    )


async def signed_up(client: httpx.AsyncClient, **extra: object) -> tuple[str, str]:
    """A new account's (e-mail, cookie)."""
    response, email = await sign_up(client, **extra)
    assert response.status_code == 200, response.text
    return email, cookie_of(response)
