"""Invite tokens: look one up, accept it. Only the token's SHA-256 is stored."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.auth.principal import Principal, TokenGrant
from plumbline.auth.public_token import TokenLookup, TokenPurpose, resolve_token
from plumbline.errors import Expired, Forbidden, NotFound, found
from plumbline.kit import clock, crypto
from plumbline.member import repository
from plumbline.member.errors import InviteNotPending
from plumbline.member.service import member as member_service
from plumbline.models import EmailInvite, Invite, Workspace
from plumbline.notification.service import notification
from plumbline.snapshots import tracked

NOT_FOUND = "This invite does not exist or was revoked"
EXPIRED = "This invite has expired"
ACCEPTED = "This invite has already been accepted"

Lookup = Callable[[AsyncSession, str], Awaitable[tuple[Invite | EmailInvite, Workspace] | None]]


def _grant(purpose: str, lookup: Lookup) -> TokenLookup:
    async def grant(db: AsyncSession, token_hash: str) -> TokenGrant | None:
        found = await lookup(db, token_hash)
        if found is None:
            return None
        invite, workspace = found
        return TokenGrant(
            purpose=purpose,
            token_hash=invite.token_hash,
            workspace_id=workspace.id,
            project_id=None,
            subject_id=invite.id,
            expires_at=invite.expires_at,
            revoked_at=invite.revoked_at,
            # Link invites take many members; an e-mail invite is used once.
            used_at=invite.accepted_at if isinstance(invite, EmailInvite) else None,
            rows=(invite, workspace),
        )

    return grant


INVITE_LINK = TokenPurpose(
    "invite",
    _grant("invite", partial(repository.invite_by_token_hash, model=Invite)),
    unknown=NOT_FOUND,
    expired=EXPIRED,
)
EMAIL_INVITE = TokenPurpose(
    "email-invite",
    _grant("email-invite", partial(repository.invite_by_token_hash, model=EmailInvite)),
    unknown=NOT_FOUND,
    expired=EXPIRED,
    used=ACCEPTED,
)


def _check_live(invite: Invite | EmailInvite) -> None:
    if invite.revoked_at is not None:
        raise NotFound(NOT_FOUND)
    if invite.expires_at <= clock.now():
        raise Expired(EXPIRED)


class InviteTokenService:
    async def _link(self, db: AsyncSession, token: str) -> tuple[Invite, Workspace]:
        invite, workspace = (await resolve_token(db, INVITE_LINK, token)).require_token().rows
        return invite, workspace

    def preview_link(self, principal: Principal) -> dict[str, Any]:
        """What a link invite offers: the workspace and the role."""
        invite, workspace = principal.require_token().rows
        return {
            "workspaceName": workspace.name,
            "role": invite.role,
            "expiresAt": clock.iso(invite.expires_at),
        }

    async def accept_link(
        self, db: AsyncSession, principal: Principal, token: str
    ) -> dict[str, Any]:
        """Join with the link's role; a member already there keeps their role (idempotent)."""
        invite, workspace = await self._link(db, token)
        user = principal.require_user()
        existing = await repository.membership(db, workspace.id, user.id)
        if existing is not None:
            return {"workspaceId": workspace.id, "role": existing.role}
        await member_service.join(
            db, workspace, user.id, role=invite.role, principal=principal, action="invite.accepted"
        )
        await self._notify(db, workspace, invite.created_by, user.name, user.id)
        return {"workspaceId": workspace.id, "role": invite.role}

    async def _email(
        self, db: AsyncSession, token: str, *, lock: bool = False
    ) -> tuple[EmailInvite, Workspace]:
        return found(
            await repository.invite_by_token_hash(
                db, crypto.sha256_hex(token), EmailInvite, lock=lock
            ),
            NOT_FOUND,
        )

    def preview_email(self, principal: Principal) -> dict[str, Any]:
        """What an e-mail invite offers: the workspace, the role, the address and the kind."""
        invite, _ = principal.require_token().rows
        return {**self.preview_link(principal), "email": invite.email, "kind": invite.kind}

    async def accept_email(
        self, db: AsyncSession, principal: Principal, token: str
    ) -> dict[str, Any]:
        """Single use. The signed-in e-mail must be the invited one; accepting verifies it."""
        invite, workspace = await self._email(db, token, lock=True)
        user = principal.require_user()
        existing = await repository.membership(db, workspace.id, user.id)
        if invite.accepted_at is not None:
            if invite.accepted_by == user.id and existing is not None:
                return {"workspaceId": workspace.id, "role": existing.role}
            raise InviteNotPending(ACCEPTED)
        _check_live(invite)
        if user.email.strip().lower() != invite.email.lower():
            raise Forbidden("This invite was sent to another e-mail address")
        if not user.email_verified:
            (await tracked(db, user)).email_verified = True
        invite.accepted_at = clock.now()
        invite.accepted_by = user.id
        if existing is not None:
            await db.flush()
            return {"workspaceId": workspace.id, "role": existing.role}
        project_ids = sorted(
            await repository.live_project_ids(db, workspace.id, invite.project_ids)
        )
        await member_service.join(
            db,
            workspace,
            user.id,
            role=invite.role,
            principal=principal,
            action="email_invite.accepted",
            kind=invite.kind,
            project_ids=project_ids,
        )
        await self._notify(db, workspace, invite.created_by, user.name, user.id)
        return {"workspaceId": workspace.id, "role": invite.role}

    async def _notify(
        self,
        db: AsyncSession,
        workspace: Workspace,
        inviter_id: str | None,
        name: str,
        user_id: str,
    ) -> None:
        await notification.notify(
            db,
            [inviter_id],
            kind="INVITE_ACCEPTED",
            title=f"{name} joined {workspace.name}",
            href=f"/workspaces/{workspace.id}/members",
            workspace_id=workspace.id,
            actor_id=user_id,
        )


invite_tokens = InviteTokenService()
