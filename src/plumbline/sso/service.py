"""A workspace's OpenID provider: set, read, remove; its domains and their proof."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, diff
from plumbline.authz.workspace import WorkspaceContext
from plumbline.config import settings
from plumbline.errors import InvalidField, NotConfigured, found
from plumbline.kit import clock, crypto
from plumbline.models import SsoConfig, SsoDomain
from plumbline.sso import dns, repository
from plumbline.sso.errors import (
    ClientSecretRequired,
    DomainNotProved,
    DomainTaken,
    SsoNotConfigured,
)
from plumbline.sso.schemas import SsoConfigPut

SECRET_PURPOSE = "sso:client-secret"  # noqa: S105 - a key-derivation label
LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def seal(secret: str) -> str:
    return crypto.encrypt(secret, SECRET_PURPOSE)


def unseal(sealed: str) -> str:
    secret = crypto.decrypt(sealed, SECRET_PURPOSE)
    if secret is None:  # sealed under another secret key
        raise NotConfigured("The client secret was sealed with another secret key: set it again")
    return secret


def base_url() -> str:
    return settings.public_url.rstrip("/")


def redirect_uri() -> str:
    return f"{base_url()}/api/auth/sso/callback"


def check_issuer(issuer: str) -> str:
    """An https URL (http only on loopback, for a provider on the same machine)."""
    parts = urlsplit(issuer)
    secure = parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK)
    if not parts.hostname or not secure or parts.query or parts.fragment:
        raise InvalidField("issuer", "must be the provider's https URL (its issuer identifier)")
    return issuer.rstrip("/")


def domain_json(domain: SsoDomain, token: str) -> dict[str, Any]:
    return {
        "domain": domain.domain,
        "verified": domain.verified_at is not None,
        "verifiedAt": clock.iso(domain.verified_at),
        "txtRecordName": dns.record_name(domain.domain),
        "txtRecordValue": dns.record_value(token),
    }


def config_json(config: SsoConfig, domains: list[SsoDomain], workspace_slug: str) -> dict[str, Any]:
    return {
        "workspaceId": config.workspace_id,
        "issuer": config.issuer,
        "clientId": config.client_id,
        "domains": [domain_json(d, config.verification_token) for d in domains],
        "required": config.required,
        "defaultRole": config.default_role,
        "redirectUri": redirect_uri(),
        "signInUrl": f"{base_url()}/api/auth/sso/{workspace_slug}",
        "scimBaseUrl": f"{base_url()}/scim/v2/{config.workspace_id}",
        "createdAt": clock.iso(config.created_at),
        "updatedAt": clock.iso(config.updated_at),
    }


def _audited(config: SsoConfig, domains: list[str]) -> dict[str, Any]:
    return {
        "issuer": config.issuer,
        "clientId": config.client_id,
        "domains": sorted(domains),
        "required": config.required,
        "defaultRole": config.default_role,
    }


class SsoService:
    async def read(self, db: AsyncSession, ctx: WorkspaceContext) -> dict[str, Any]:
        """The configuration without its secret (404 when there is none)."""
        config = found(await repository.config(db, ctx.workspace.id), SsoNotConfigured())
        domains = await repository.domains(db, ctx.workspace.id)
        return config_json(config, domains, ctx.workspace.slug)

    async def put(
        self, db: AsyncSession, ctx: WorkspaceContext, body: SsoConfigPut
    ) -> dict[str, Any]:
        """Create or replace the configuration; new domains start unverified unless the server
        trusts them (``PLUMBLINE_SSO_TRUSTED_DOMAINS``); a domain another workspace holds: 409."""
        workspace_id = ctx.workspace.id
        issuer = check_issuer(body.issuer)
        wanted = sorted(set(body.domains))
        taken = [
            d for d in await repository.domains_named(db, wanted) if d.workspace_id != workspace_id
        ]
        if taken:
            raise DomainTaken(domain=taken[0].domain)
        now = clock.now()
        config = await repository.config(db, workspace_id)
        existing = {d.domain: d for d in await repository.domains(db, workspace_id)}
        before = _audited(config, list(existing)) if config is not None else None
        if config is None:
            if body.client_secret is None:
                raise ClientSecretRequired()
            config = SsoConfig(
                workspace_id=workspace_id,
                verification_token=crypto.random_token(24),
                created_by=ctx.user_id,
                created_at=now,
            )
            db.add(config)
        config.issuer = issuer
        config.client_id = body.client_id
        if body.client_secret is not None:
            config.client_secret = seal(body.client_secret)
        config.required = body.required
        config.default_role = body.default_role
        config.updated_at = now
        dropped = [d for d in existing if d not in wanted]
        if dropped:
            await repository.delete_domains(db, workspace_id, dropped)
        trusted = settings.trusted_domains
        for name in wanted:
            if name not in existing:
                db.add(
                    SsoDomain(
                        workspace_id=workspace_id,
                        domain=name,
                        verified_at=now if name in trusted else None,
                        created_at=now,
                    )
                )
        await db.flush()
        after = _audited(config, wanted)
        changes = diff(before or {}, after)
        if body.client_secret is not None:
            changes["clientSecret"] = ["(set)" if before else None, "(set)"]
        await audit_change(
            db,
            ctx,
            ("sso_config", config.id),
            "sso.configured" if before is None else "sso.updated",
            changes,
        )
        return config_json(config, await repository.domains(db, workspace_id), ctx.workspace.slug)

    async def delete(self, db: AsyncSession, ctx: WorkspaceContext) -> None:
        """Remove the provider and its domains (links of users to it stay, unused)."""
        config = found(await repository.config(db, ctx.workspace.id), SsoNotConfigured())
        domains = [d.domain for d in await repository.domains(db, ctx.workspace.id)]
        await repository.delete_domains(db, ctx.workspace.id, None)
        await db.delete(config)
        await audit_change(
            db, ctx, ("sso_config", config.id), "sso.removed", diff(_audited(config, domains), {})
        )
        await db.flush()

    async def verify_domain(
        self, db: AsyncSession, ctx: WorkspaceContext, name: str
    ) -> dict[str, Any]:
        """Prove ``name`` by its TXT record (or the server's trusted domains); 400 when the
        record is missing or carries another value."""
        config = found(await repository.config(db, ctx.workspace.id), SsoNotConfigured())
        domain = found(
            next(
                (
                    d
                    for d in await repository.domains(db, ctx.workspace.id)
                    if d.domain == name.lower()
                ),
                None,
            ),
            "Domain not found",
        )
        if domain.verified_at is None:
            proved = domain.domain in settings.trusted_domains or await dns.proves(
                domain.domain, config.verification_token
            )
            if not proved:
                raise DomainNotProved(txtRecordName=dns.record_name(domain.domain))
            domain.verified_at = clock.now()
            await audit_change(
                db,
                ctx,
                ("sso_config", config.id),
                "sso.domain_verified",
                {"domain": [None, domain.domain]},
            )
            await db.flush()
        return domain_json(domain, config.verification_token)


sso = SsoService()
