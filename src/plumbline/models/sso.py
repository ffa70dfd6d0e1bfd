"""Single sign-on and provisioning: a workspace's OpenID provider and its domains, the sign-ins
in flight, the links of users to a provider's subjects, SCIM tokens, users and groups."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class SsoConfig(IdMixin, Base):
    """A workspace's OpenID provider (one per workspace). The client secret is Fernet-encrypted
    with a key derived from the secret key (``kit.crypto.encrypt``)."""

    __tablename__ = "sso_configs"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), unique=True
    )
    issuer: Mapped[str] = mapped_column(String(2048))
    client_id: Mapped[str] = mapped_column(String(500))
    client_secret: Mapped[str] = mapped_column(Text)
    required: Mapped[bool] = mapped_column(default=False)
    default_role: Mapped[str] = mapped_column(String(20))
    # The value of the ``plumbline-verification=`` TXT record that proves a domain.
    verification_token: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class SsoDomain(IdMixin, Base):
    """An e-mail domain a workspace's provider signs in; one workspace per domain.
    ``verified_at`` is set once the TXT record (or the server's trusted domains) proves it."""

    __tablename__ = "sso_domains"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), index=True
    )
    domain: Mapped[str] = mapped_column(String(253), unique=True)
    verified_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class SsoLogin(IdMixin, Base):
    """One sign-in in flight: the hash of its ``state``, its nonce and PKCE verifier; used once,
    within ten minutes."""

    __tablename__ = "sso_logins"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), index=True
    )
    state_hash: Mapped[str] = mapped_column(String(64), unique=True)
    nonce: Mapped[str] = mapped_column(String(128))
    code_verifier: Mapped[str] = mapped_column(Text)  # encrypted
    redirect_to: Mapped[str | None] = mapped_column(String(2000))
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class ExternalIdentity(IdMixin, Base):
    """A user as a provider knows them: the ID token's ``iss`` and ``sub``."""

    __tablename__ = "external_identities"
    __table_args__ = (UniqueConstraint("issuer", "subject"),)

    user_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    workspace_id: Mapped[str] = mapped_column(IdType)
    issuer: Mapped[str] = mapped_column(String(2048))
    subject: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime]
    last_sign_in_at: Mapped[datetime | None]


class ScimToken(IdMixin, Base):
    """A workspace's SCIM bearer token, stored as its SHA-256."""

    __tablename__ = "scim_tokens"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str | None] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class ScimUser(IdMixin, Base):
    """A user the workspace's provider provisions: the SCIM ``User`` (its id is this row's id).
    ``active`` false keeps the row while the user has no membership and no session."""

    __tablename__ = "scim_users"
    __table_args__ = (
        UniqueConstraint("workspace_id", "user_id"),
        Index("ix_scim_users_workspace_user_name_key", "workspace_id", "user_name_key"),
        Index("ix_scim_users_workspace_external_id", "workspace_id", "external_id"),
    )

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    # The account, once the provider has sent an e-mail address (none: no access yet).
    user_id: Mapped[str | None] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    user_name: Mapped[str] = mapped_column(String(320))
    # userName as SCIM compares it (``scim.documents.user_name_key``: NFC, lower case): the
    # providers' ``userName eq`` lookups and the uniqueness check find it through the index.
    user_name_key: Mapped[str] = mapped_column(Text)
    external_id: Mapped[str | None] = mapped_column(String(255))
    active: Mapped[bool] = mapped_column(default=True)
    # The rest of the resource as the provider sent it: name, displayName, emails.
    attributes: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class ScimGroup(IdMixin, Base):
    """A group the provider pushes. A group named like a
    workspace role (``ADMIN``, ``MANAGER``, ``MEMBER``) gives its active members that role;
    ``members`` are ``{"value": <scim_users or scim_groups id>, "type": "User" | "Group"}``."""

    __tablename__ = "scim_groups"

    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE"), index=True
    )
    display_name: Mapped[str] = mapped_column(String(255))
    external_id: Mapped[str | None] = mapped_column(String(255))
    members: Mapped[list[dict[str, str]]] = mapped_column(JSONType, default=list)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
