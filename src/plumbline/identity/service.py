"""Identity rules: accounts, passwords, sessions, one-time e-mail tokens, the current user."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, created, diff
from plumbline.auth.principal import Principal
from plumbline.auth.session import create_session, session_from_cookie
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidField, NotFound
from plumbline.identity import repository as repo
from plumbline.identity import schemas
from plumbline.identity.errors import (
    InvalidCredentials,
    InvalidPassword,
    InvalidToken,
    TokenExpired,
    TokenUsed,
    UserAlreadyExists,
)
from plumbline.identity.links import (
    reset_link,
    reset_mail,
    trusted_url,
    verification_mail,
    verify_link,
    with_query,
)
from plumbline.kit import clock, crypto, ratelimit
from plumbline.mail.tasks import queue
from plumbline.models import AuthSession, User, UserToken
from plumbline.snapshots import tracked
from plumbline.sso import policy as sso_policy

VERIFY_EMAIL = "verify_email"
RESET_PASSWORD = "reset_password"  # noqa: S105 - a token purpose, not a secret
VERIFY_TTL = timedelta(hours=24)
RESET_TTL = timedelta(hours=1)
SIGN_IN_LIMIT, SIGN_IN_WINDOW = 10, 60
# Verification and reset e-mails: enough for a user who retries, too few to bomb an inbox.
MAIL_PER_ADDRESS, MAIL_PER_IP, MAIL_WINDOW = 5, 30, 600
POLICY_TEXT = (
    "must be 10 to 128 characters with a lower-case letter, an upper-case letter, "
    "a digit and a symbol"
)


@dataclass
class SignedIn:
    """What a route needs to answer a sign-in: the body, and the secret for the cookie."""

    body: dict[str, Any]
    token: str | None = None
    remember: bool = True
    headers: dict[str, str] = field(default_factory=dict)


def user_json(user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "name": user.name,
        "email": user.email,
        "emailVerified": user.email_verified,
        "image": user.image,
        "createdAt": clock.iso(user.created_at),
        "updatedAt": clock.iso(user.updated_at),
    }


def session_json(session: Any) -> dict[str, Any]:
    """An AuthSession or a row of its columns; ``token`` is the id, never the secret."""
    return {
        "id": session.id,
        "userId": session.user_id,
        "token": session.id,
        "expiresAt": clock.iso(session.expires_at),
        "ipAddress": session.ip_address,
        "userAgent": session.user_agent,
        "createdAt": clock.iso(session.created_at),
        "updatedAt": clock.iso(session.updated_at),
    }


def check_password(password: str, field_name: str) -> None:
    """10 to 128 characters with a lower case and an upper case letter, a digit and a symbol."""
    ok = (
        10 <= len(password) <= 128
        and re.search(r"[a-z]", password)
        and re.search(r"[A-Z]", password)
        and re.search(r"[0-9]", password)
        and re.search(r"[^A-Za-z0-9]", password)
    )
    if not ok:
        raise InvalidField(field_name, POLICY_TEXT, error=f"Password {POLICY_TEXT}")


class IdentityService:
    async def _issue_token(self, db: AsyncSession, user: User, purpose: str, ttl: timedelta) -> str:
        raw = crypto.random_token()
        now = clock.now()
        await repo.add_token(
            db,
            UserToken(
                user_id=user.id,
                purpose=purpose,
                token_hash=crypto.sha256_hex(raw),
                email=user.email,
                expires_at=now + ttl,
                created_at=now,
            ),
        )
        return raw

    async def _queue_verification(
        self, uow: UnitOfWork, user: User, callback_url: str | None
    ) -> None:
        raw = await self._issue_token(uow.session, user, VERIFY_EMAIL, VERIFY_TTL)
        queue(uow, verification_mail(user, verify_link(raw, callback_url)))

    async def _mail_limits(self, request: Request, purpose: str, email: str) -> None:
        await ratelimit.hit(ratelimit.per_ip(request, purpose), MAIL_PER_IP, MAIL_WINDOW)
        await ratelimit.hit(f"{purpose}:email:{email}", MAIL_PER_ADDRESS, MAIL_WINDOW)

    async def sign_up(self, uow: UnitOfWork, request: Request, body: schemas.SignUp) -> SignedIn:
        """Create the account, send the verification e-mail and sign the new user in."""
        callback_url = trusted_url(body.callback_url, "callbackURL")
        check_password(body.password, "password")
        db = uow.session
        if await repo.user_by_email(db, body.email) is not None:
            raise UserAlreadyExists()
        now = clock.now()
        user = await repo.add_user(
            db,
            User(
                name=body.name,
                email=body.email,
                email_verified=False,
                image=body.image,
                password_hash=crypto.hash_password(body.password),
                created_at=now,
                updated_at=now,
            ),
        )
        await audit_as(
            db,
            "public",
            ("user", user.id),
            "user.created",
            created({"name": user.name, "email": user.email}),
        )
        await self._queue_verification(uow, user, callback_url)
        session, token = await create_session(db, user, request, remember=body.remember_me)
        return SignedIn({"token": session.id, "user": user_json(user)}, token, body.remember_me)

    async def sign_in(self, db: AsyncSession, request: Request, body: schemas.SignIn) -> SignedIn:
        """Same answer, and a similar time, whether or not the e-mail exists."""
        by_ip = await ratelimit.hit(
            ratelimit.per_ip(request, "sign-in"), SIGN_IN_LIMIT, SIGN_IN_WINDOW
        )
        by_email = await ratelimit.hit(f"sign-in:email:{body.email}", SIGN_IN_LIMIT, SIGN_IN_WINDOW)
        user = await repo.user_by_email(db, body.email)
        # Always verify (a dummy hash for unknown e-mails) so both failures take as long.
        valid = crypto.verify_password(user.password_hash if user else None, body.password)
        if user is None or not valid:
            raise InvalidCredentials()
        await sso_policy.allow_password(db, user)
        session, token = await create_session(db, user, request, remember=body.remember_me)
        tighter = min(by_ip, by_email, key=lambda v: v.remaining)
        return SignedIn(
            {"redirect": False, "token": session.id, "url": None, "user": user_json(user)},
            token,
            body.remember_me,
            tighter.headers(),
        )

    async def sign_out(self, db: AsyncSession, request: Request, cookie: str | None) -> None:
        """End the session the cookie names, if any (signing out twice is fine)."""
        found = await session_from_cookie(db, request, cookie)
        if found is not None:
            session = found[0]
            await repo.delete_session(db, session.user_id, session.id)

    async def get_session(
        self, db: AsyncSession, request: Request, cookie: str | None
    ) -> dict[str, Any] | None:
        """The cookie's live session and its user, or None."""
        found = await session_from_cookie(db, request, cookie)
        if found is None:
            return None
        session, user = found
        return {"session": session_json(session), "user": user_json(user)}

    async def send_verification_email(
        self, uow: UnitOfWork, request: Request, body: schemas.SendVerificationEmail
    ) -> None:
        """Sends only to an unverified account; answers the same either way (no enumeration)."""
        callback_url = trusted_url(body.callback_url, "callbackURL")
        await self._mail_limits(request, "verify-mail", body.email)
        user = await repo.user_by_email(uow.session, body.email)
        if user is not None and not user.email_verified:
            await self._queue_verification(uow, user, callback_url)

    async def _live_token(self, db: AsyncSession, purpose: str, raw: str) -> tuple[UserToken, User]:
        """Unknown → 400 INVALID_TOKEN, used → the same (as ``TokenUsed``), expired → 410."""
        found = await repo.token_with_user(db, purpose, crypto.sha256_hex(raw))
        if found is None:
            raise InvalidToken()
        token, user = found
        if token.used_at is not None:
            raise TokenUsed()
        if token.expires_at <= clock.now():
            raise TokenExpired()
        if token.email != user.email:
            raise InvalidToken()
        return token, user

    async def _redeem(self, db: AsyncSession, purpose: str, raw: str) -> User:
        """The token's user, once (a concurrent redeem loses as a used token)."""
        token, user = await self._live_token(db, purpose, raw)
        if not await repo.consume_token(db, token.id, clock.now()):
            raise TokenUsed()
        return user

    async def check_reset_token(self, db: AsyncSession, raw: str) -> None:
        """The reset token's refusal, if any, without using it (the page asks before the form)."""
        await self._live_token(db, RESET_PASSWORD, raw)

    async def verify_email(
        self, db: AsyncSession, token: str, callback_url: str | None
    ) -> str | None:
        """Where to redirect (callbackURL, with ``?error=`` on failure), or None to answer JSON."""
        callback = trusted_url(callback_url, "callbackURL")
        try:
            user = await self._redeem(db, VERIFY_EMAIL, token)
        except (InvalidToken, TokenExpired) as exc:
            if callback is None:
                raise
            reason = "token_expired" if isinstance(exc, TokenExpired) else "invalid_token"
            return with_query(callback, error=reason)
        if not user.email_verified:
            user.email_verified = True
            user.updated_at = clock.now()
            await audit_as(
                db,
                "public",
                ("user", user.id),
                "user.email_verified",
                {"emailVerified": [False, True]},
            )
        await repo.retire_tokens(db, user.id, VERIFY_EMAIL, clock.now())
        return callback

    async def request_password_reset(
        self, uow: UnitOfWork, request: Request, body: schemas.RequestPasswordReset
    ) -> None:
        """Answers the same whether or not the e-mail exists."""
        redirect_to = trusted_url(body.redirect_to, "redirectTo")
        await self._mail_limits(request, "reset-mail", body.email)
        user = await repo.user_by_email(uow.session, body.email)
        if user is None:
            return
        raw = await self._issue_token(uow.session, user, RESET_PASSWORD, RESET_TTL)
        queue(uow, reset_mail(user, reset_link(raw, redirect_to)))

    async def reset_password(self, db: AsyncSession, body: schemas.ResetPassword) -> None:
        """Sets the password and signs the user out everywhere; the link also proves the e-mail."""
        check_password(body.new_password, "newPassword")
        user = await self._redeem(db, RESET_PASSWORD, body.token)
        now = clock.now()
        user.password_hash = crypto.hash_password(body.new_password)
        user.email_verified = True
        user.updated_at = now
        await repo.retire_tokens(db, user.id, RESET_PASSWORD, now)
        await repo.delete_sessions(db, user.id)
        await audit_as(db, "public", ("user", user.id), "user.password_reset")

    async def change_password(
        self,
        db: AsyncSession,
        request: Request,
        principal: Principal,
        body: schemas.ChangePassword,
    ) -> SignedIn:
        """With ``revokeOtherSessions`` every session ends and a fresh one replaces the caller's."""
        user = await tracked(db, principal.require_user())
        check_password(body.new_password, "newPassword")
        await ratelimit.hit(f"change-password:{user.id}", SIGN_IN_LIMIT, SIGN_IN_WINDOW)
        if not crypto.verify_password(user.password_hash, body.current_password):
            raise InvalidPassword()
        user.password_hash = crypto.hash_password(body.new_password)
        user.updated_at = clock.now()
        await audit_as(db, principal, ("user", user.id), "user.password_changed")
        if not body.revoke_other_sessions:
            return SignedIn({"token": None, "user": user_json(user)})
        current = principal.session
        remember = current.remember if current else True
        await repo.delete_sessions(db, user.id)
        session, token = await create_session(db, user, request, remember=remember)
        return SignedIn({"token": session.id, "user": user_json(user)}, token, remember)

    async def update_user(
        self, db: AsyncSession, principal: Principal, body: schemas.UpdateUser
    ) -> None:
        """Change the caller's name or image; a change is audited."""
        user = await tracked(db, principal.require_user())
        given = body.model_fields_set
        before = {"name": user.name, "image": user.image}
        if "name" in given and body.name is not None:
            user.name = body.name
        if "image" in given:
            user.image = body.image
        changes = diff(before, {"name": user.name, "image": user.image})
        if changes:
            user.updated_at = clock.now()
            await audit_as(db, principal, ("user", user.id), "user.updated", changes)

    async def list_sessions(self, db: AsyncSession, principal: Principal) -> list[dict[str, Any]]:
        """The caller's live sessions (their ids, never their tokens)."""
        user = principal.require_user()
        return [session_json(row) for row in await repo.live_sessions(db, user.id, clock.now())]

    async def revoke_session(self, db: AsyncSession, principal: Principal, session_id: str) -> bool:
        """End one of the caller's sessions (404 for anyone else's); True when it was theirs now."""
        user = principal.require_user()
        current: AuthSession | None = principal.session
        if await repo.delete_session(db, user.id, session_id) == 0:
            raise NotFound("Session not found")
        return current is not None and current.id == session_id

    async def revoke_sessions(
        self, db: AsyncSession, principal: Principal, *, keep_current: bool
    ) -> None:
        """End every other session of the caller, and the current one unless kept; audited."""
        user = principal.require_user()
        current = principal.session
        kept = current.id if current is not None and keep_current else None
        await repo.delete_sessions(db, user.id, keep=kept)
        await audit_as(
            db,
            principal,
            ("user", user.id),
            "user.sessions_revoked",
            {"keptCurrent": [None, keep_current]},
        )

    async def me(self, db: AsyncSession, principal: Principal) -> dict[str, Any]:
        """The caller and the workspaces they belong to, with their role in each."""
        user = principal.require_user()
        workspaces = await repo.member_workspaces(db, user.id)
        return {
            "user": {"id": user.id, "name": user.name, "email": user.email},
            "workspaces": [
                {"id": w.id, "name": w.name, "slug": w.slug, "role": w.role} for w in workspaces
            ],
        }

    async def set_presence_hidden(
        self, db: AsyncSession, principal: Principal, hidden: bool
    ) -> dict[str, bool]:
        """Whether the caller's presence is hidden from other viewers of a drawing."""
        user = principal.require_user()
        if user.presence_hidden != hidden:
            user = await tracked(db, user)
            user.presence_hidden = hidden
            user.updated_at = clock.now()
        return {"hidden": hidden}


identity = IdentityService()
