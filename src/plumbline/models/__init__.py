"""ORM models, one module per aggregate, all re-exported here (Alembic reads this)."""

from plumbline.models.api_key import ApiKey
from plumbline.models.audit import AuditLog
from plumbline.models.cloud import CloudAuthorization, CloudConnection
from plumbline.models.field_report import FieldReport
from plumbline.models.file import (
    Attachment,
    File,
    FileLock,
    FileVersion,
    Folder,
    Upload,
    ViewerState,
)
from plumbline.models.issue import Issue, IssueComment
from plumbline.models.job import Job
from plumbline.models.notification import Notification
from plumbline.models.project import Project, ProjectCounter, ProjectMember
from plumbline.models.proposal import Proposal
from plumbline.models.punch import PunchItem, PunchItemAssignee
from plumbline.models.rfi import Rfi, RfiAssignee, RfiMessage
from plumbline.models.user import AuthSession, User, UserToken
from plumbline.models.workspace import EmailInvite, Invite, Membership, Workspace

__all__ = [
    "ApiKey",
    "Attachment",
    "AuditLog",
    "AuthSession",
    "CloudAuthorization",
    "CloudConnection",
    "EmailInvite",
    "FieldReport",
    "File",
    "FileLock",
    "FileVersion",
    "Folder",
    "Invite",
    "Issue",
    "IssueComment",
    "Job",
    "Membership",
    "Notification",
    "Project",
    "ProjectCounter",
    "ProjectMember",
    "Proposal",
    "PunchItem",
    "PunchItemAssignee",
    "Rfi",
    "RfiAssignee",
    "RfiMessage",
    "Upload",
    "User",
    "UserToken",
    "ViewerState",
    "Workspace",
]
