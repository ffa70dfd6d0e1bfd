"""Link and e-mail invites: create, list, resend, change, revoke. Tokens are stored hashed."""

from __future__ import annotations

from datetime import timedelta
from html import escape
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, audit_stamp, created, diff
from plumbline.authz.permissions import Role
from plumbline.authz.workspace import WorkspaceContext
from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.errors import InvalidField, found
from plumbline.kit import clock, crypto
from plumbline.kit.mail import Mail
from plumbline.kit.pagination import PageParams
from plumbline.mail.tasks import queue
from plumbline.member import repository
from plumbline.member.errors import AlreadyMember, DuplicateInvite, InviteNotPending
from plumbline.member.schemas import EmailInviteCreate, EmailInviteUpdate, InviteCreate
from plumbline.member.service import (
    ADMIN_ROLES,
    INTERNAL,
    require_can_grant,
    require_projects,
)
from plumbline.models import EmailInvite, Invite

DEFAULT_DAYS = 14
TOKEN_BYTES = 32


def link_url(token: str) -> str:
    """The account page, which tells a link invite from an e-mail invite by its token."""
    return f"{settings.public_url.rstrip('/')}/account/invite/{token}"


def invite_dict(invite: Invite, token: str | None = None) -> dict[str, Any]:
    return {
        "id": invite.id,
        "role": invite.role,
        "expiresAt": clock.iso(invite.expires_at),
        "createdAt": clock.iso(invite.created_at),
        "url": link_url(token) if token else None,
    }


def email_invite_dict(invite: EmailInvite) -> dict[str, Any]:
    return {
        "id": invite.id,
        "email": invite.email,
        "role": invite.role,
        "kind": invite.kind,
        "projectIds": list(invite.project_ids),
        "expiresAt": clock.iso(invite.expires_at),
        "acceptedAt": clock.iso(invite.accepted_at),
        "createdAt": clock.iso(invite.created_at),
        "lastSentAt": clock.iso(invite.last_sent_at),
        "sendCount": invite.send_count,
    }


def new_token() -> tuple[str, str]:
    """A fresh token and the hash that is stored."""
    token = crypto.random_token(TOKEN_BYTES)
    return token, crypto.sha256_hex(token)


def _terms(invite: EmailInvite) -> dict[str, Any]:
    """What ``update_email`` may change, as the audit log compares it."""
    return {
        "role": invite.role,
        "kind": invite.kind,
        "projectIds": list(invite.project_ids),
        "expiresAt": invite.expires_at,
    }


def _invite_mail(invite: EmailInvite, token: str, workspace_name: str, inviter: str | None) -> Mail:
    url = link_url(token)
    who = inviter or "A teammate"
    expires = clock.iso(invite.expires_at)
    text = (
        f"Accept the invitation: {url}\n\n"
        f"{who} invited you to join {workspace_name} on Plumbline.\n"
        f"Sign in or create an account with {invite.email} to accept. "
        f"The link expires at {expires}.\n"
    )
    html = (
        f"<p>{escape(who)} invited you to join <strong>{escape(workspace_name)}</strong> "
        f"on Plumbline.</p>"
        f'<p><a href="{escape(url)}">Accept the invitation</a></p>'
        f"<p>Sign in or create an account with {escape(invite.email)} to accept. "
        f"The link expires at {escape(expires or '')}.</p>"
    )
    return Mail(
        to=[invite.email],
        subject=f"{who} invited you to {workspace_name} on Plumbline",
        text=text,
        html=html,
    )


class InviteService:
    # Link invites

    async def list_links(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Live (unrevoked) link invites, newest first; tokens are never shown again."""
        rows, headers = page.finish(
            await repository.list_invites(db, Invite, ctx.workspace.id, page)
        )
        return [invite_dict(row) for row in rows], headers

    async def create_link(
        self, db: AsyncSession, ctx: WorkspaceContext, data: InviteCreate
    ) -> dict[str, Any]:
        """The response carries the only copy of the link's token."""
        require_can_grant(ctx, data.role)
        token, token_hash = new_token()
        now = clock.now()
        invite = Invite(
            workspace_id=ctx.workspace.id,
            role=data.role,
            token_hash=token_hash,
            expires_at=now + timedelta(days=data.expires_in_days),
            created_by=ctx.user_id,
            created_at=now,
        )
        db.add(invite)
        await db.flush()
        await audit_change(
            db,
            ctx,
            ("invite", invite.id),
            "invite.created",
            created({"role": invite.role, "expiresAt": invite.expires_at}),
        )
        return invite_dict(invite, token)

    async def revoke_link(self, db: AsyncSession, ctx: WorkspaceContext, invite_id: str) -> None:
        """Revoke a link invite of the workspace (404 for another workspace's)."""
        invite = found(
            await repository.invite(db, Invite, ctx.workspace.id, invite_id), "Invite not found"
        )
        await _revoke(db, ctx, invite, "invite")

    # E-mail invites

    async def list_email(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Unrevoked e-mail invites (pending, expired and accepted), newest first."""
        rows, headers = page.finish(
            await repository.list_invites(db, EmailInvite, ctx.workspace.id, page)
        )
        return [email_invite_dict(row) for row in rows], headers

    async def _check_terms(
        self, db: AsyncSession, ctx: WorkspaceContext, role: str, kind: str, project_ids: list[str]
    ) -> list[str]:
        """Validate role, kind and projects together; returns the cleaned project ids."""
        require_can_grant(ctx, role)
        if kind != INTERNAL:
            if role != Role.MEMBER.value:
                raise InvalidField("role", "external collaborators hold the MEMBER role")
            if not project_ids:
                raise InvalidField("projectIds", "required for external collaborators")
        elif project_ids and role in ADMIN_ROLES:
            raise InvalidField("projectIds", "admins and super admins see every project")
        return await require_projects(db, ctx.workspace.id, project_ids)

    def _send(
        self, uow: UnitOfWork, ctx: WorkspaceContext, invite: EmailInvite, token: str
    ) -> None:
        inviter = ctx.principal.user.name if ctx.principal.user else None
        queue(uow, _invite_mail(invite, token, ctx.workspace.name, inviter))

    async def create_email(
        self, uow: UnitOfWork, ctx: WorkspaceContext, data: EmailInviteCreate
    ) -> dict[str, Any]:
        """Invite one address; the accept link goes out by e-mail after the commit."""
        db = uow.session
        role = data.role or Role.MEMBER.value
        project_ids = await self._check_terms(db, ctx, role, data.kind, data.project_ids)
        now = clock.now()
        if await repository.is_member_email(db, ctx.workspace.id, data.email):
            raise AlreadyMember("This e-mail already belongs to a member of the workspace")
        if await repository.pending_email_invite_exists(db, ctx.workspace.id, data.email, now):
            raise DuplicateInvite()
        token, token_hash = new_token()
        invite = EmailInvite(
            workspace_id=ctx.workspace.id,
            email=data.email,
            role=role,
            kind=data.kind,
            project_ids=project_ids,
            token_hash=token_hash,
            expires_at=now + timedelta(days=data.expires_in_days),
            send_count=1,
            last_sent_at=now,
            created_by=ctx.user_id,
            created_at=now,
        )
        db.add(invite)
        await db.flush()
        await audit_change(
            db,
            ctx,
            ("email_invite", invite.id),
            "email_invite.created",
            created(
                {
                    "email": invite.email,
                    "role": invite.role,
                    "kind": invite.kind,
                    "projectIds": project_ids or None,
                    "expiresAt": invite.expires_at,
                }
            ),
        )
        self._send(uow, ctx, invite, token)
        return email_invite_dict(invite)

    async def _pending(
        self, db: AsyncSession, ctx: WorkspaceContext, invite_id: str
    ) -> EmailInvite:
        invite = found(
            await repository.invite(db, EmailInvite, ctx.workspace.id, invite_id, lock=True),
            "Invite not found",
        )
        if invite.accepted_at is not None or invite.revoked_at is not None:
            raise InviteNotPending()
        return invite

    async def resend_email(
        self, uow: UnitOfWork, ctx: WorkspaceContext, invite_id: str
    ) -> dict[str, Any]:
        """A new token (the old link stops working) and a new e-mail. The expiry is renewed to at
        least 14 days from now; a longer one is kept."""
        db = uow.session
        invite = await self._pending(db, ctx, invite_id)
        require_can_grant(ctx, invite.role)
        now = clock.now()
        if await repository.pending_email_invite_exists(
            db, ctx.workspace.id, invite.email, now, exclude_id=invite.id
        ):
            raise DuplicateInvite()
        token, invite.token_hash = new_token()
        invite.expires_at = max(invite.expires_at, now + timedelta(days=DEFAULT_DAYS))
        invite.send_count += 1
        invite.last_sent_at = now
        await audit_change(
            db,
            ctx,
            ("email_invite", invite.id),
            "email_invite.resent",
            {"sendCount": [invite.send_count - 1, invite.send_count]},
        )
        await db.flush()
        self._send(uow, ctx, invite, token)
        return email_invite_dict(invite)

    async def update_email(
        self, db: AsyncSession, ctx: WorkspaceContext, invite_id: str, data: EmailInviteUpdate
    ) -> dict[str, Any]:
        """Change a pending invite's role, kind, projects or expiry (from now); the link stays."""
        invite = await self._pending(db, ctx, invite_id)
        require_can_grant(ctx, invite.role)
        role = data.role or invite.role
        kind = data.kind or invite.kind
        if data.kind is not None and data.kind != INTERNAL and data.role is None:
            role = Role.MEMBER.value
        wanted = invite.project_ids if data.project_ids is None else data.project_ids
        project_ids = await self._check_terms(db, ctx, role, kind, list(wanted))
        before = _terms(invite)
        invite.role, invite.kind, invite.project_ids = role, kind, project_ids
        if data.expires_in_days is not None:
            invite.expires_at = clock.now() + timedelta(days=data.expires_in_days)
        changes = diff(before, _terms(invite))
        if changes:
            await audit_change(
                db, ctx, ("email_invite", invite.id), "email_invite.updated", changes
            )
        await db.flush()
        return email_invite_dict(invite)

    async def revoke_email(self, db: AsyncSession, ctx: WorkspaceContext, invite_id: str) -> None:
        """Revoke a pending e-mail invite (409 once accepted or revoked)."""
        invite = await self._pending(db, ctx, invite_id)
        await _revoke(db, ctx, invite, "email_invite")


async def _revoke(
    db: AsyncSession, ctx: WorkspaceContext, invite: Invite | EmailInvite, entity: str
) -> None:
    require_can_grant(ctx, invite.role)
    invite.revoked_at = now = clock.now()
    await audit_stamp(db, ctx, (entity, invite.id), f"{entity}.revoked", "revokedAt", now)
    await db.flush()


invite_service = InviteService()
