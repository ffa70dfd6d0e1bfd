"""ORM models, one module per aggregate, all re-exported here (Alembic reads this)."""

from plumbline.models.api_key import ApiKey
from plumbline.models.audit import AuditLog
from plumbline.models.notification import Notification
from plumbline.models.outbox import OutboxMessage
from plumbline.models.project import Project, ProjectCounter, ProjectMember
from plumbline.models.user import AuthSession, User, UserToken
from plumbline.models.workspace import EmailInvite, Invite, Membership, Workspace

__all__ = [
    "ApiKey",
    "AuditLog",
    "AuthSession",
    "EmailInvite",
    "Invite",
    "Membership",
    "Notification",
    "OutboxMessage",
    "Project",
    "ProjectCounter",
    "ProjectMember",
    "User",
    "UserToken",
    "Workspace",
]
