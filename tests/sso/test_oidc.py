"""OpenID Connect sign-in against real providers (oidc-provider, started by conftest)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
from sqlalchemy import func, select

from plumbline.db import database
from plumbline.kit import clock
from plumbline.models import AuditLog, AuthSession, ExternalIdentity, Membership, User
from tests.factories import PASSWORD, make_world
from tests.sso.conftest import (
    Providers,
    SsoWorld,
    configure,
    new_domain,
    sign_in,
    start,
    through_provider,
)


async def user_named(email: str) -> User | None:
    async with database.sessionmaker() as db:
        found = await db.execute(select(User).where(User.email == email))
        return found.scalar_one_or_none()


async def counts(user_id: str) -> tuple[int, ...]:
    """The user's memberships, sessions and provider links."""
    found = []
    async with database.sessionmaker() as db:
        for column in (Membership.user_id, AuthSession.user_id, ExternalIdentity.user_id):
            query = select(func.count()).select_from(column.class_).where(column == user_id)
            found.append((await db.execute(query)).scalar_one())
    return tuple(found)


async def nothing_written(email: str) -> None:
    """No user, hence no membership, session or link, for ``email``; no SSO audit entry."""
    assert await user_named(email) is None
    async with database.sessionmaker() as db:
        links = await db.execute(
            select(func.count()).where(ExternalIdentity.subject == f"sub-{email}")
        )
        assert links.scalar_one() == 0


async def test_first_sign_in_creates_the_user_joins_and_opens_a_session(
    anonymous: httpx.AsyncClient, sso_world: SsoWorld
) -> None:
    email = sso_world.email("first")
    location = await start(anonymous, f"/api/auth/sso/{sso_world.slug}?callbackURL=/projects")
    query = parse_qs(urlsplit(location).query)
    assert location.startswith(f"{sso_world.issuer}/auth?")
    assert query["response_type"] == ["code"]
    assert query["code_challenge_method"] == ["S256"]
    assert query["client_id"] == ["plumbline"]
    assert query["scope"] == ["openid email profile"]
    assert all(query[name][0] for name in ("state", "nonce", "code_challenge"))

    back = await through_provider(location, email)
    answer = await anonymous.get(back.removeprefix("http://127.0.0.1:8000"))
    assert answer.status_code == 302, answer.text
    assert answer.headers["location"] == "/projects"
    assert "auth.session_token=" in answer.headers["set-cookie"]

    me = await anonymous.get("/api/v1/me")
    assert me.status_code == 200, me.text
    assert me.json()["user"]["email"] == email
    assert me.json()["workspaces"] == [
        {
            "id": sso_world.world.workspace.id,
            "name": sso_world.world.workspace.name,
            "slug": sso_world.slug,
            "role": "MEMBER",
        }
    ]
    user = await user_named(email)
    assert user is not None and user.email_verified and user.password_hash is None
    assert user.name == "first (SSO)"
    assert await counts(user.id) == (1, 1, 1)
    session = await anonymous.get("/api/auth/get-session")
    assert session.json()["user"]["id"] == user.id

    async with database.sessionmaker() as db:
        actions = (
            await db.execute(
                select(AuditLog.action)
                .where(AuditLog.workspace_id == sso_world.world.workspace.id)
                .where(AuditLog.entity_id == user.id)
                .order_by(AuditLog.id)
            )
        ).scalars()
        assert list(actions) == ["user.created", "member.joined_sso", "user.sso_signed_in"]


async def test_second_sign_in_finds_the_link(
    client: httpx.AsyncClient, anonymous: httpx.AsyncClient, sso_world: SsoWorld
) -> None:
    email = sso_world.email()
    assert (await sign_in(client, sso_world, email)).status_code == 302
    user = await user_named(email)
    assert user is not None
    answer = await sign_in(anonymous, sso_world, email)
    assert answer.status_code == 302, answer.text
    assert await counts(user.id) == (1, 2, 1)
    assert (await anonymous.get("/api/v1/me")).json()["user"]["id"] == user.id


async def test_the_default_role_and_start_by_email(
    client: httpx.AsyncClient,
    anonymous: httpx.AsyncClient,
    providers: Providers,
    trusted: set[str],
) -> None:
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    answer = await configure(client, world, providers.good, [domain], defaultRole="MANAGER")
    assert answer.status_code == 200, answer.text
    email = f"boss@{domain}"
    location = await start(anonymous, f"/api/auth/sso?email={email}")
    back = await through_provider(location, email)
    assert (await anonymous.get(back.removeprefix("http://127.0.0.1:8000"))).status_code == 302
    me = (await anonymous.get("/api/v1/me")).json()
    assert me["workspaces"][0]["role"] == "MANAGER"

    unknown = await anonymous.get(f"/api/auth/sso?email=x@{new_domain()}")
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "SSO_NOT_CONFIGURED"
    assert (await anonymous.get("/api/auth/sso/no-such-workspace")).status_code == 404


async def test_an_existing_account_of_the_domain_is_linked(
    client: httpx.AsyncClient, sso_world: SsoWorld
) -> None:
    from tests.factories import create_user

    actor = await create_user(email_address=sso_world.email("existing"))
    answer = await sign_in(client, sso_world, actor.user.email)
    assert answer.status_code == 302, answer.text
    assert await counts(actor.id) == (1, 2, 1)


async def test_sso_required_refuses_passwords_of_the_domain_but_not_the_owners(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    from tests.factories import add_member, create_user

    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    owner = await create_user(email_address=f"owner@{domain}")
    staff = await create_user(email_address=f"staff@{domain}")
    await add_member(world.workspace, owner, "SUPER_ADMIN")
    await add_member(world.workspace, staff, "ADMIN")
    outsider = await create_user()

    answer = await configure(client, world, providers.good, [domain], required=True)
    assert answer.status_code == 200, answer.text

    async def password(email: str) -> httpx.Response:
        return await client.post(
            "/api/auth/sign-in/email", json={"email": email, "password": PASSWORD}
        )

    refused = await password(staff.user.email)
    assert refused.status_code == 403
    assert refused.json()["code"] == "SSO_REQUIRED"
    assert refused.json()["message"] == refused.json()["error"]
    assert "set-cookie" not in refused.headers
    assert await counts(staff.id) == (1, 1, 0)  # only the factory's session
    assert (await password(owner.user.email)).status_code == 200  # the recovery path
    assert (await password(outsider.user.email)).status_code == 200
    wrong = await client.post(
        "/api/auth/sign-in/email", json={"email": staff.user.email, "password": "Wrong-Pass-1"}
    )
    assert wrong.status_code == 401  # a wrong password says nothing about SSO

    # Not required: passwords work again.
    answer = await configure(client, world, providers.good, [domain], required=False)
    assert answer.status_code == 200
    assert (await password(staff.user.email)).status_code == 200


# ---- refusals: each with the right status and nothing written


async def test_a_signature_by_other_keys_is_refused(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    """The provider signs with its own key; its discovery names another provider's JWKS (the
    same key id, other key material): the signature does not verify."""
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    assert (await configure(client, world, providers.foreign_keys, [domain])).status_code == 200
    email = f"sig@{domain}"
    answer = await sign_in(client, SsoWorld(world, domain, providers.foreign_keys), email)
    assert answer.status_code == 401, answer.text
    assert answer.json()["code"] == "INVALID_ID_TOKEN"
    assert "signature" in answer.json()["reason"].lower()
    await nothing_written(email)


async def test_another_issuer_is_refused(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    assert (await configure(client, world, providers.other_issuer, [domain])).status_code == 200
    email = f"iss@{domain}"
    answer = await sign_in(client, SsoWorld(world, domain, providers.other_issuer), email)
    assert answer.status_code == 401, answer.text
    assert answer.json()["code"] == "INVALID_ID_TOKEN"
    assert "iss" in answer.json()["reason"]
    await nothing_written(email)


async def test_another_audience_is_refused(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    assert (await configure(client, world, providers.other_audience, [domain])).status_code == 200
    email = f"aud@{domain}"
    answer = await sign_in(client, SsoWorld(world, domain, providers.other_audience), email)
    assert answer.status_code == 401, answer.text
    assert "aud" in answer.json()["reason"]
    await nothing_written(email)


async def test_a_code_for_another_client_is_refused(
    client: httpx.AsyncClient, sso_world: SsoWorld
) -> None:
    """The authorization asked for client "other": the provider will not hand its code to us."""
    email = sso_world.email()
    answer = await sign_in(client, sso_world, email, client_id="other")
    assert answer.status_code == 502, answer.text
    assert answer.json()["code"] == "SSO_PROVIDER_ERROR"
    await nothing_written(email)


async def test_another_nonce_is_refused(client: httpx.AsyncClient, sso_world: SsoWorld) -> None:
    """The authorization request's nonce was changed on its way: the token carries that one."""
    email = sso_world.email()
    answer = await sign_in(client, sso_world, email, nonce="not-the-one-we-sent")
    assert answer.status_code == 401, answer.text
    assert "nonce" in answer.json()["reason"]
    await nothing_written(email)


async def test_an_expired_token_is_refused(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    world = await make_world()
    domain = new_domain()
    trusted.add(domain)
    assert (await configure(client, world, providers.short_lived, [domain])).status_code == 200
    email = f"late@{domain}"
    location = await start(client, f"/api/auth/sso/{world.workspace.slug}")
    back = await through_provider(location, email)
    clock.set_now(clock.now() + timedelta(minutes=5))  # the token lives 60 s, the state 10 min
    answer = await client.get(back.removeprefix("http://127.0.0.1:8000"))
    assert answer.status_code == 401, answer.text
    assert "expired" in answer.json()["reason"]
    await nothing_written(email)


async def test_a_replayed_state_is_refused(
    client: httpx.AsyncClient, anonymous: httpx.AsyncClient, sso_world: SsoWorld
) -> None:
    email = sso_world.email()
    location = await start(client, f"/api/auth/sso/{sso_world.slug}")
    back = (await through_provider(location, email)).removeprefix("http://127.0.0.1:8000")
    assert (await client.get(back)).status_code == 302
    user = await user_named(email)
    assert user is not None
    replay = await anonymous.get(back)
    assert replay.status_code == 400
    assert replay.json()["code"] == "INVALID_STATE"
    assert "set-cookie" not in replay.headers
    assert await counts(user.id) == (1, 1, 1)
    unknown = await anonymous.get("/api/auth/sso/callback?state=forged&code=x")
    assert unknown.status_code == 400


async def test_an_expired_state_is_refused(client: httpx.AsyncClient, sso_world: SsoWorld) -> None:
    email = sso_world.email()
    location = await start(client, f"/api/auth/sso/{sso_world.slug}")
    back = await through_provider(location, email)
    clock.set_now(clock.now() + timedelta(minutes=11))
    answer = await client.get(back.removeprefix("http://127.0.0.1:8000"))
    assert answer.status_code == 410
    assert answer.json()["code"] == "STATE_EXPIRED"
    await nothing_written(email)


async def test_an_email_outside_the_verified_domains_is_refused(
    client: httpx.AsyncClient, providers: Providers, trusted: set[str]
) -> None:
    world = await make_world()
    proved, unproved = new_domain(), new_domain()
    trusted.add(proved)
    answer = await configure(client, world, providers.good, [proved, unproved])
    assert answer.status_code == 200
    sso = SsoWorld(world, proved, providers.good)
    for email in (f"out@{new_domain()}", f"unproved@{unproved}"):
        answer = await sign_in(client, sso, email)
        assert answer.status_code == 403, answer.text
        assert answer.json()["code"] == "EMAIL_DOMAIN_NOT_ALLOWED"
        await nothing_written(email)
