"""ORM models, one module per aggregate, all re-exported here (Alembic reads this)."""

from plumbline.models.api_key import ApiKey
from plumbline.models.audit import AuditLog
from plumbline.models.file import (
    Attachment,
    File,
    FileLock,
    FileVersion,
    Folder,
    Upload,
    ViewerState,
)
from plumbline.models.notification import Notification
from plumbline.models.outbox import OutboxMessage
from plumbline.models.project import Project, ProjectCounter, ProjectMember
from plumbline.models.user import AuthSession, User, UserToken
from plumbline.models.workspace import EmailInvite, Invite, Membership, Workspace

__all__ = [
    "ApiKey",
    "Attachment",
    "AuditLog",
    "AuthSession",
    "EmailInvite",
    "File",
    "FileLock",
    "FileVersion",
    "Folder",
    "Invite",
    "Membership",
    "Notification",
    "OutboxMessage",
    "Project",
    "ProjectCounter",
    "ProjectMember",
    "Upload",
    "User",
    "UserToken",
    "ViewerState",
    "Workspace",
]
