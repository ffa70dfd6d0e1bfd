"""ORM models, one module per aggregate, all re-exported here (Alembic reads this)."""

from plumbline.models.api_key import ApiKey
from plumbline.models.audit import AuditLog
from plumbline.models.billing import BillingEvent
from plumbline.models.calendar_feed import CalendarFeed
from plumbline.models.cloud import CloudAuthorization, CloudConnection
from plumbline.models.demo import DemoLink
from plumbline.models.digest import DigestRun, SchedulerLease
from plumbline.models.drawing_ai import SheetResult
from plumbline.models.event import EventLog, EventStream
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
from plumbline.models.idempotency import IdempotencyKey
from plumbline.models.issue import Issue, IssueComment
from plumbline.models.job import Job
from plumbline.models.material import Material
from plumbline.models.notification import Notification
from plumbline.models.occupant import OccupantLink, OccupantRequest
from plumbline.models.om import (
    Asset,
    MaintenanceCompletion,
    MaintenanceSchedule,
    MaintenanceWorkOrder,
    MeterReading,
)
from plumbline.models.om_cost import (
    Downtime,
    LabourRate,
    Part,
    PurchaseOrder,
    PurchaseOrderLine,
    StockLevel,
    StockLocation,
    StockMove,
    Vendor,
    WorkOrderCost,
)
from plumbline.models.om_inspection import InspectionRun, InspectionTemplate
from plumbline.models.project import Project, ProjectCounter, ProjectMember
from plumbline.models.proposal import Proposal
from plumbline.models.proposal_flow import (
    ProposalComment,
    ProposalMessage,
    ProposalReminder,
    ProposalRevision,
)
from plumbline.models.proposal_template import ProposalTemplate
from plumbline.models.punch import PunchItem, PunchItemAssignee
from plumbline.models.rfi import Rfi, RfiAssignee, RfiMessage
from plumbline.models.saved_view import SavedView
from plumbline.models.schedule import Schedule, ScheduleTask
from plumbline.models.sso import (
    ExternalIdentity,
    ScimGroup,
    ScimToken,
    ScimUser,
    SsoConfig,
    SsoDomain,
    SsoLogin,
)
from plumbline.models.user import AuthSession, User, UserToken
from plumbline.models.webhook import Webhook, WebhookDelivery
from plumbline.models.workspace import EmailInvite, Invite, Membership, Workspace

__all__ = [
    "ApiKey",
    "Asset",
    "Attachment",
    "AuditLog",
    "AuthSession",
    "BillingEvent",
    "CalendarFeed",
    "CloudAuthorization",
    "CloudConnection",
    "DemoLink",
    "DigestRun",
    "Downtime",
    "EmailInvite",
    "EventLog",
    "EventStream",
    "ExternalIdentity",
    "FieldReport",
    "File",
    "FileLock",
    "FileVersion",
    "Folder",
    "IdempotencyKey",
    "InspectionRun",
    "InspectionTemplate",
    "Invite",
    "Issue",
    "IssueComment",
    "Job",
    "LabourRate",
    "MaintenanceCompletion",
    "MaintenanceSchedule",
    "MaintenanceWorkOrder",
    "Material",
    "Membership",
    "MeterReading",
    "Notification",
    "OccupantLink",
    "OccupantRequest",
    "Part",
    "Project",
    "ProjectCounter",
    "ProjectMember",
    "Proposal",
    "ProposalComment",
    "ProposalMessage",
    "ProposalReminder",
    "ProposalRevision",
    "ProposalTemplate",
    "PunchItem",
    "PunchItemAssignee",
    "PurchaseOrder",
    "PurchaseOrderLine",
    "Rfi",
    "RfiAssignee",
    "RfiMessage",
    "SavedView",
    "Schedule",
    "ScheduleTask",
    "SchedulerLease",
    "ScimGroup",
    "ScimToken",
    "ScimUser",
    "SheetResult",
    "SsoConfig",
    "SsoDomain",
    "SsoLogin",
    "StockLevel",
    "StockLocation",
    "StockMove",
    "Upload",
    "User",
    "UserToken",
    "Vendor",
    "ViewerState",
    "Webhook",
    "WebhookDelivery",
    "WorkOrderCost",
    "Workspace",
]
