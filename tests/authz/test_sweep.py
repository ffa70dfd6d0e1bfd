"""The authorization sweep (issue 30, part 6): every route of the OpenAPI, called as each kind
of caller, answers what PRODUCT §3-4 and the route's declared access say.

``ROUTES`` names each route's rule (and its API-key scope); ``RULES`` gives each rule's answer
per caller. A route missing from ``ROUTES`` fails ``test_every_route_has_an_entry``. Bodies
are empty (``BODIES``: the few routes whose body names the project, workspace or upload get
the minimal one naming it): a refused caller is refused before the body is read, an allowed
caller may get a validation or state answer (400/409/410/412/413/415) but never 401/403/404/5xx.
A call that uses a row up (a delete, a revoke, an accepted invite) gets a fresh row of its own
(``R.fresh``). Run with ``-s`` to see the matrix (routes x callers, with the statuses).

The callers: anonymous; a forged cookie, cron secret and path token; the cron secret; a
signed-in MEMBER whose e-mail is not verified; the SUPER_ADMIN of another workspace; each
workspace role; each external kind on the project; API keys of another project of the
workspace, of the project without the route's scope, with only that scope, revoked, and a
valid key sent in the session cookie.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy import delete

from plumbline.authz.permissions import SCOPES
from plumbline.config import settings
from plumbline.db import database
from plumbline.kit import crypto, ratelimit
from plumbline.models import Membership
from tests.authz.sweep_call import Answer, stream_status
from tests.authz.sweep_world import MAKERS, Seed, connect_cloud, seed
from tests.cloud.standin import CLIENT_SECRET, StandIn
from tests.conftest import ORIGIN
from tests.factories import create_api_key, create_user

CALLERS = (
    "anon",
    "forged",
    "cron",
    "unverified",
    "outsider",
    "SUPER_ADMIN",
    "ADMIN",
    "MANAGER",
    "MEMBER",
    "CLIENT",
    "CONTRACTOR",
    "SUBCONTRACTOR",
    "key:other",
    "key:none",
    "key:scope",
    "key:revoked",
    "key:cookie",
)
SHORT = (
    *("anon", "forg", "cron", "unvf", "outs", "SA", "ADM", "MGR", "MBR"),
    *("CLI", "CON", "SUB", "kOth", "kNo", "kYes", "kRev", "kCk"),
)


@dataclass(frozen=True)
class R:
    rule: str
    scope: str | None = None
    # kinds of path parameter made anew for each allowed call ("kind", or "kind=maker")
    fresh: tuple[str, ...] = ()


ROUTES: dict[str, R] = {
    # Issues: the record is assigned to the CONTRACTOR; the SUBCONTRACTOR cannot see it.
    "GET P/issues": R("records list", "issues:read"),
    "POST P/issues": R("record create", "issues:write"),
    "POST P/issues/bulk": R("record create", "issues:write"),
    "GET P/issues/export.csv": R("records list", "issues:read"),
    "GET P/issues/{issueId}": R("assigned record read", "issues:read"),
    "PATCH P/issues/{issueId}": R("assigned record write", "issues:write"),
    "DELETE P/issues/{issueId}": R("assigned record delete", "issues:write", ("issue",)),
    "GET P/issues/{issueId}/comments": R("assigned record read", "issues:read"),
    "POST P/issues/{issueId}/comments": R("assigned record comment", "issues:write"),
    "POST P/issues/{issueId}/reference-photos/presign": R("assigned record write", "issues:write"),
    "POST P/issues/{issueId}/reference-photos/complete": R("assigned record write", "issues:write"),
    "DELETE P/issues/{issueId}/reference-photos/{photoId}": R(
        "assigned record write", "issues:write", ("issue_photo",)
    ),
    "GET P/punch": R("records list", "punch:read"),
    "POST P/punch": R("record create", "punch:write"),
    "GET P/punch/export.csv": R("records list", "punch:read"),
    "PATCH P/punch/bulk": R("record create", "punch:write"),
    "GET P/punch/{punchId}": R("assigned record read", "punch:read"),
    "PATCH P/punch/{punchId}": R("assigned record write", "punch:write"),
    "DELETE P/punch/{punchId}": R("assigned record delete", "punch:write", ("punch",)),
    "POST P/punch/{punchId}/reference-photos/presign": R("assigned record write", "punch:write"),
    "POST P/punch/{punchId}/reference-photos/complete": R("assigned record write", "punch:write"),
    "DELETE P/punch/{punchId}/reference-photos/{photoId}": R(
        "assigned record write", "punch:write", ("punch_photo",)
    ),
    # Field reports: contractors read them all, externals never write them.
    "GET P/field-reports": R("records list", "field-reports:read"),
    "POST P/field-reports": R("internal record write", "field-reports:write"),
    "POST P/field-reports/send-email": R("internal record write", "field-reports:write"),
    "GET P/field-reports/{reportId}": R("shared record read", "field-reports:read"),
    "PATCH P/field-reports/{reportId}": R("internal record write", "field-reports:write"),
    "DELETE P/field-reports/{reportId}": R(
        "internal record delete", "field-reports:write", ("report",)
    ),
    # RFIs: contractors see the RFIs they respond to (none here) and never create one.
    "GET P/rfi": R("records list", "rfi:read"),
    "POST P/rfi": R("internal record write", "rfi:write"),
    "GET P/rfi/export.csv": R("records list", "rfi:read"),
    "GET P/rfi/{rfiId}": R("internal record read", "rfi:read"),
    "PATCH P/rfi/{rfiId}": R("responder record write", "rfi:write"),
    "DELETE P/rfi/{rfiId}": R("responder record delete", "rfi:write", ("rfi",)),
    "GET P/rfi/{rfiId}/messages": R("internal record read", "rfi:read"),
    "POST P/rfi/{rfiId}/messages": R("hidden record comment", "rfi:write"),
    "POST P/rfi/{rfiId}/attachments/presign": R("responder record write", "rfi:write"),
    "POST P/rfi/{rfiId}/attachments/complete": R("responder record write", "rfi:write"),
    # Proposals: internal only (clients answer through the portal).
    "GET P/proposals": R("internal list", "proposals:read"),
    "POST P/proposals": R("internal record write", "proposals:write"),
    "GET P/proposals/analytics/summary": R("internal list", "proposals:read"),
    "GET P/proposals/{proposalId}": R("internal record read", "proposals:read"),
    "PATCH P/proposals/{proposalId}": R("internal record write", "proposals:write"),
    "DELETE P/proposals/{proposalId}": R(
        "internal record delete", "proposals:write", ("proposal",)
    ),
    "GET P/proposals/{proposalId}/pdf": R("internal record read", "proposals:read"),
    "POST P/proposals/{proposalId}/preview": R("internal record write", "proposals:write"),
    "POST P/proposals/{proposalId}/send": R("internal record write", "proposals:write"),
    "POST P/proposals/{proposalId}/resend": R("internal record write", "proposals:write"),
    "POST P/proposals/{proposalId}/duplicate": R("internal record write", "proposals:write"),
    "GET P/proposals/{proposalId}/revisions": R("internal record read", "proposals:read"),
    "GET P/proposals/{proposalId}/comments": R("internal record read", "proposals:read"),
    "POST P/proposals/{proposalId}/comments": R("internal record write", "proposals:write"),
    "GET P/proposals/{proposalId}/messages": R("internal record read", "proposals:read"),
    "POST P/proposals/{proposalId}/messages": R("internal record write", "proposals:write"),
    "GET /api/v1/public/proposals/{token}": R("public token"),
    "POST /api/v1/public/proposals/{token}/view": R("public token"),
    "POST /api/v1/public/proposals/{token}/accept": R("public token"),
    "POST /api/v1/public/proposals/{token}/decline": R("public token"),
    "POST /api/v1/public/proposals/{token}/request-changes": R("public token"),
    "GET /api/v1/public/proposals/{token}/messages": R("public token"),
    "POST /api/v1/public/proposals/{token}/messages": R("public token"),
    # Operations and maintenance: CLIENTs see none; setup is MANAGER+.
    "GET P/om/occupant-links": R("manager setup", "om:read"),
    "POST P/om/occupant-links": R("manager setup", "om:write"),
    "GET P/om/occupant-links/labels.pdf": R("manager setup", "om:read"),
    "GET P/om/occupant-links/{linkId}/qr.png": R("manager setup", "om:read"),
    "GET P/om/occupant-links/{linkId}/qr.svg": R("manager setup", "om:read"),
    "DELETE P/om/occupant-links/{linkId}": R("manager setup", "om:write", ("link",)),
    "GET /api/v1/occupant/{token}/meta": R("public token"),
    "POST /api/v1/occupant/{token}/submit": R("public token"),
    "POST /api/v1/occupant/{token}/issues/{issueId}/reference-photos/presign": R("public token"),
    "POST /api/v1/occupant/{token}/issues/{issueId}/reference-photos/complete": R("public token"),
    "GET /api/v1/occupant/requests/{token}": R("public token"),
    "GET P/om/assets": R("om read", "om:read"),
    "POST P/om/assets": R("manager setup", "om:write"),
    "POST P/om/assets/bulk": R("manager setup", "om:write"),
    "GET P/om/assets/{assetId}": R("om read", "om:read"),
    "PATCH P/om/assets/{assetId}": R("manager setup", "om:write"),
    "DELETE P/om/assets/{assetId}": R("manager setup", "om:write", ("asset",)),
    "POST P/om/assets/{assetId}/meter-readings": R("om work", "om:write"),
    "GET P/om/assets/{assetId}/meter-readings": R("om read", "om:read"),
    "GET P/om/maintenance": R("om read", "om:read"),
    "POST P/om/maintenance": R("manager setup", "om:write"),
    "POST P/om/maintenance/generate-work-orders": R("internal om work", "om:write"),
    "GET P/om/maintenance/{scheduleId}": R("om read", "om:read"),
    "PATCH P/om/maintenance/{scheduleId}": R("manager setup", "om:write"),
    "POST P/om/maintenance/{scheduleId}/complete": R("internal om work", "om:write"),
    "GET P/om/inspection-templates": R("om read", "om:read"),
    "POST P/om/inspection-templates": R("manager setup", "om:write"),
    "GET P/om/inspection-templates/{templateId}": R("om read", "om:read"),
    "PATCH P/om/inspection-templates/{templateId}": R("manager setup", "om:write"),
    "DELETE P/om/inspection-templates/{templateId}": R("manager setup", "om:write", ("itemplate",)),
    "GET P/om/inspection-runs": R("om read", "om:read"),
    "POST P/om/inspection-runs": R("om work", "om:write"),
    "GET P/om/inspection-runs/{runId}": R("om assigned read", "om:read"),
    "PATCH P/om/inspection-runs/{runId}": R("om assigned work", "om:write"),
    "DELETE P/om/inspection-runs/{runId}": R("om assigned delete", "om:write", ("run",)),
    "POST P/om/inspection-runs/{runId}/complete": R("om assigned work", "om:write", ("run",)),
    "POST P/om/inspection-runs/{runId}/photos/presign": R("om assigned work", "om:write"),
    "POST P/om/inspection-runs/{runId}/photos/complete": R("om assigned work", "om:write"),
    "GET P/om/inspection-runs/{runId}/report.pdf": R("om assigned read", "om:read"),
    "GET P/om/fm-dashboard": R("om read", "om:read"),
    "POST /api/v1/internal/proposal-reminders": R("cron"),
    "GET P/schedule": R("om read", "schedule:read"),
    "PUT P/schedule": R("manager setup", "schedule:write"),
    "GET P/schedule/export.csv": R("om read", "schedule:read"),
    # Parts, stock, purchasing, costs, downtime and reliability (issue 29): whoever works on
    # O&M reads stock and downtime and records stock used and downtime; a work order's costs
    # are read and written by whoever sees it (the CONTRACTOR's own); the project's money (cost
    # list, ledger, orders, reliability) is the team's; MANAGER+ sets parts, locations, vendors
    # and orders up, approves, receives and adjusts. The workspace's catalogue and vendors take
    # no project keys.
    "GET W/om/parts": R("workspace internal read"),
    "POST W/om/parts": R("workspace manager"),
    "GET W/om/parts/{partId}": R("workspace internal read"),
    "PATCH W/om/parts/{partId}": R("workspace manager"),
    "DELETE W/om/parts/{partId}": R("workspace manager", fresh=("part",)),
    "GET W/vendors": R("workspace internal read"),
    "POST W/vendors": R("workspace manager"),
    "GET W/vendors/{vendorId}": R("workspace internal read"),
    "PATCH W/vendors/{vendorId}": R("workspace manager"),
    "DELETE W/vendors/{vendorId}": R("workspace manager", fresh=("vendor",)),
    "GET W/om/labour-rates/{userId}": R("workspace internal read"),
    "PUT W/om/labour-rates/{userId}": R("workspace manager"),
    "GET P/om/stock-locations": R("om read", "om:read"),
    "POST P/om/stock-locations": R("manager setup", "om:write"),
    "GET P/om/stock": R("om read", "om:read"),
    "GET P/om/stock/moves": R("om money read", "om:read"),
    "GET P/om/stock/moves/export.csv": R("om money read", "om:read"),
    "POST P/om/stock/receipts": R("manager setup", "om:write"),
    "POST P/om/stock/transfers": R("om work", "om:write"),
    "POST P/om/stock/adjustments": R("manager setup", "om:write"),
    "GET P/om/purchase-orders": R("om money read", "om:read"),
    "POST P/om/purchase-orders": R("manager setup", "om:write"),
    "GET P/om/purchase-orders/{orderId}": R("om money read", "om:read"),
    "PATCH P/om/purchase-orders/{orderId}": R("manager setup", "om:write"),
    "GET P/om/purchase-orders/{orderId}/pdf": R("om money read", "om:read"),
    "POST P/om/purchase-orders/{orderId}/approve": R("manager setup", "om:write"),
    "POST P/om/purchase-orders/{orderId}/order": R("manager setup", "om:write"),
    "POST P/om/purchase-orders/{orderId}/email": R("manager setup", "om:write"),
    "POST P/om/purchase-orders/{orderId}/receive": R("manager setup", "om:write"),
    "POST P/om/purchase-orders/{orderId}/cancel": R("manager setup", "om:write"),
    "GET P/om/work-orders/{workOrderId}/costs": R("om work order", "om:read"),
    "POST P/om/work-orders/{workOrderId}/costs/parts": R("om work order", "om:write"),
    "POST P/om/work-orders/{workOrderId}/costs/labour": R("om work order", "om:write"),
    "POST P/om/work-orders/{workOrderId}/costs/timer/start": R("om work order", "om:write"),
    "POST P/om/work-orders/{workOrderId}/costs/timer/stop": R("om work order", "om:write"),
    "POST P/om/work-orders/{workOrderId}/costs/other": R("om work order", "om:write"),
    "DELETE P/om/work-orders/{workOrderId}/costs/{costId}": R(
        "om work order", "om:write", ("cost",)
    ),
    "GET P/om/costs": R("om money read", "om:read"),
    "GET P/om/costs/export.csv": R("om money read", "om:read"),
    "GET P/om/assets/{assetId}/downtime": R("om read", "om:read"),
    "POST P/om/assets/{assetId}/downtime": R("om work", "om:write"),
    "PATCH P/om/assets/{assetId}/downtime/{downtimeId}": R("om work", "om:write"),
    # MANAGER+ deletes an interval, or a member their own (the sweep's are the MANAGER's).
    "DELETE P/om/assets/{assetId}/downtime/{downtimeId}": R(
        "manager setup", "om:write", ("downtime",)
    ),
    "GET P/om/assets/{assetId}/reliability": R("om money read", "om:read"),
    "GET P/om/reliability": R("om money read", "om:read"),
    "GET P/om/reliability/export.csv": R("om money read", "om:read"),
    # SSO and SCIM tokens (issue 31): ADMIN+ configures them (enterprise plan). The configuration
    # is made anew for each allowed call (a DELETE removes it).
    "GET W/sso": R("workspace admin", fresh=("workspace=sso",)),
    "PUT W/sso": R("workspace admin"),
    "DELETE W/sso": R("workspace admin", fresh=("workspace=sso",)),
    "POST W/sso/domains/{domain}/verify": R("workspace admin", fresh=("workspace=sso",)),
    "POST W/scim-tokens": R("workspace admin"),
    "DELETE W/scim-tokens/{tokenId}": R("workspace admin", fresh=("scim_token",)),
    "GET /api/auth/sso": R("public"),
    "GET /api/auth/sso/{workspaceSlug}": R("sso start"),
    "GET /api/auth/sso/callback": R("public"),
    "GET /api/v1/health": R("public"),
    "GET /api/v1/ready": R("public"),
    "POST /api/v1/public/marketing/chat": R("public"),
    # Files and drawings: MEMBER+ read and upload, MANAGER+ manage; the project's CLIENT does
    # not see drawings (showDrawings off), contractors hold no file permission.
    "POST /api/v1/files/{fileVersionId}/lock": R("version session write"),
    "DELETE /api/v1/files/{fileVersionId}/lock": R("version session write"),
    "GET /api/v1/file-versions/{fileVersionId}/viewer-state": R("version read", "files:read"),
    "PUT /api/v1/file-versions/{fileVersionId}/viewer-state": R("version session write"),
    "GET /api/v1/file-versions/{fileVersionId}/viewer-collab/events": R("version session read"),
    "POST /api/v1/file-versions/{fileVersionId}/viewer-collab/heartbeat": R("version session read"),
    "POST /api/v1/file-versions/{fileVersionId}/viewer-collab/leave": R("version session read"),
    "POST /api/v1/file-versions/{fileVersionId}/viewer-collab/end-session": R(
        "version session host"
    ),
    "POST /api/v1/file-versions/{fileVersionId}/ai/sheet-summary": R("version session read"),
    "POST /api/v1/file-versions/{fileVersionId}/ai/chat": R("version session read"),
    "POST /api/v1/file-versions/{fileVersionId}/ai/takeoff-detect": R("version session read"),
    "GET /api/v1/file-versions/{fileVersionId}/ai/sheet-cache": R("version session read"),
    "GET /api/v1/internal/collab-metrics": R("cron"),
    "POST /api/v1/internal/maintenance": R("cron"),
    "POST /api/v1/internal/om-maintenance-reminders": R("cron"),
    "POST /api/v1/internal/om-inspection-reminders": R("cron"),
    "POST /api/v1/internal/om-work-order-aging-reminders": R("cron"),
    "GET /api/v1/me": R("me"),
    "PATCH /api/v1/me/viewer-presence": R("user"),
    "GET /api/v1/me/notifications": R("user"),
    "PATCH /api/v1/me/notifications/read": R("user"),
    "POST /api/v1/me/notifications/read-all": R("user"),
    "POST /api/v1/workspaces": R("user"),
    "GET W": R("workspace read"),
    "PATCH W": R("workspace admin"),
    "DELETE W": R("workspace owner", fresh=("workspace",)),
    "GET W/dashboard": R("workspace internal read"),
    "GET W/members": R("workspace internal read"),
    "POST W/members": R("workspace admin"),
    "PATCH W/members/{userId}": R("workspace admin"),
    "DELETE W/members/{userId}": R("workspace admin", fresh=("member",)),
    "PATCH W/members/{userId}/project-access": R("workspace admin"),
    "GET W/invites": R("workspace admin"),
    "POST W/invites": R("workspace admin"),
    "DELETE W/invites/{inviteId}": R("workspace admin", fresh=("invite",)),
    "GET W/email-invites": R("workspace admin"),
    "POST W/email-invites": R("workspace admin"),
    "POST W/email-invites/{inviteId}/resend": R("workspace admin"),
    "PATCH W/email-invites/{inviteId}": R("workspace admin"),
    "DELETE W/email-invites/{inviteId}": R("workspace admin", fresh=("email_invite",)),
    "GET W/materials/changes": R("workspace internal read"),
    "GET W/materials": R("workspace internal read"),
    "POST W/materials": R("workspace manager"),
    "POST W/materials/import": R("workspace manager"),
    "POST W/materials/bulk": R("workspace manager"),
    "GET W/materials/export.csv": R("workspace internal read"),
    "PATCH W/materials/{materialId}": R("workspace manager"),
    "DELETE W/materials/{materialId}": R("workspace manager", fresh=("material",)),
    "GET /api/v1/invites/{token}": R("public token"),
    "POST /api/v1/invites/{token}/accept": R("invite accept", fresh=("invite_token",)),
    "GET /api/v1/email-invites/{token}": R("public token"),
    "POST /api/v1/email-invites/{token}/accept": R(
        "invite accept (invitee only)", fresh=("email_invite_token=invitee_token",)
    ),
    "GET W/projects": R("workspace read"),
    "POST W/projects": R("workspace manager"),
    "GET P": R("project read", "project:read"),
    "PATCH P": R("project settings"),
    "DELETE P": R("project admin", fresh=("project",)),
    "GET P/session": R("project session"),
    "PATCH P/settings": R("project settings"),
    "GET P/team": R("project read", "project:read"),
    "DELETE P/members/{userId}": R("project admin", fresh=("project_member",)),
    "GET P/api-keys": R("project admin"),
    "POST P/api-keys": R("project admin"),
    "DELETE P/api-keys/{keyId}": R("project admin", fresh=("key",)),
    "GET P/webhooks": R("project integrations", "webhooks:read"),
    "POST P/webhooks": R("project integrations", "webhooks:write"),
    "GET P/webhooks/{webhookId}": R("project integrations", "webhooks:read"),
    "PATCH P/webhooks/{webhookId}": R("project integrations", "webhooks:write"),
    "DELETE P/webhooks/{webhookId}": R("project integrations", "webhooks:write", ("webhook",)),
    "POST P/webhooks/{webhookId}/rotate-secret": R("project integrations", "webhooks:write"),
    "POST P/webhooks/{webhookId}/test": R("project integrations", "webhooks:write"),
    "GET P/webhooks/{webhookId}/deliveries": R("project integrations", "webhooks:read"),
    "POST P/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": R(
        "project integrations", "webhooks:write"
    ),
    "GET /api/v1/me/calendar-feeds": R("user"),
    "POST /api/v1/me/calendar-feeds": R("user"),
    "DELETE /api/v1/me/calendar-feeds/{feedId}": R("owner's own", fresh=("me_feed",)),
    "GET P/calendar-feeds": R("project session"),
    "POST P/calendar-feeds": R("project team"),
    "DELETE P/calendar-feeds/{feedId}": R("feed revoke", fresh=("project_feed",)),
    "HEAD /api/v1/calendar/{token}.ics": R("public token"),
    "GET /api/v1/calendar/{token}.ics": R("public token"),
    "GET P/audit-logs": R("project audit", "audit:read"),
    "GET P/audit-logs/export": R("project audit export", "audit:read"),
    "GET P/changes": R("project internal read", "project:read"),
    "GET P/dashboard": R("project internal read", "project:read"),
    "PUT /api/v1/storage/upload/{token}": R("signed url"),
    "GET /api/v1/storage/object/{token}": R("signed url"),
    "GET P/folders": R("files list", "files:read"),
    "POST P/folders": R("files upload", "files:write"),
    "POST P/folders/apply-structure": R("files manage", "files:write"),
    "PATCH P/folders/{folderId}": R("folder rename", "files:write"),
    "DELETE P/folders/{folderId}": R("files manage", "files:write", ("folder",)),
    "POST P/uploads/preview": R("files upload", "files:write"),
    "POST /api/v1/files/presign-upload": R("files upload", "files:write"),
    "POST /api/v1/files/complete-upload": R("uploader's own", "files:write"),
    "GET P/files": R("files list", "files:read"),
    "PATCH P/files/{fileId}": R("file rename", "files:write"),
    "DELETE P/files/{fileId}": R("file manage", "files:write", ("file",)),
    "POST P/files/{fileId}/open": R("file read", "files:read"),
    "POST /api/v1/files/{fileId}/open": R("file read", "files:read"),
    "GET /api/v1/files/{fileId}/presign-read": R("file read", "files:read"),
    "GET /api/v1/files/{fileId}/content": R("file read", "files:read"),
    "GET /api/v1/files/{fileId}/resolved-revision": R("file read", "files:read"),
    "PUT W/logo": R("workspace admin"),
    "DELETE W/logo": R("workspace admin", fresh=("workspace=logo",)),
    "GET /api/v1/public/workspaces/{workspaceId}/logo": R("public", fresh=("workspace=logo",)),
    "GET /api/v1/public/brand/email-icon.png": R("public"),
    "GET W/proposal-templates": R("workspace internal read"),
    "POST W/proposal-templates": R("workspace manager"),
    "PATCH W/proposal-templates/{templateId}": R("workspace manager"),
    "DELETE W/proposal-templates/{templateId}": R("workspace manager", fresh=("ptemplate",)),
    "GET /api/v1/cloud/connections": R("user"),
    "GET /api/v1/cloud/{provider}/authorize": R("user"),
    "GET /api/v1/cloud/{provider}/callback": R("user"),
    "POST /api/v1/cloud/{provider}/browse": R("owner's own", fresh=("provider=cloud",)),
    "POST /api/v1/cloud/{provider}/open-link": R("owner's own", fresh=("provider=cloud",)),
    "POST /api/v1/cloud/{provider}/import": R("owner's own import", fresh=("provider=cloud",)),
    "DELETE /api/v1/cloud/{provider}": R("owner's own", fresh=("provider=cloud",)),
    "POST /api/auth/sign-up/email": R("public"),
    "POST /api/auth/sign-in/email": R("public"),
    "POST /api/auth/sign-out": R("auth sign-out"),
    "GET /api/auth/get-session": R("auth get-session"),
    "POST /api/auth/send-verification-email": R("public"),
    "GET /api/auth/verify-email": R("public"),
    "POST /api/auth/request-password-reset": R("public"),
    "POST /api/auth/reset-password": R("public"),
    "POST /api/auth/change-password": R("auth session"),
    "POST /api/auth/update-user": R("auth session"),
    "GET /api/auth/list-sessions": R("auth session"),
    "POST /api/auth/revoke-session": R("auth session-ending"),
    "POST /api/auth/revoke-other-sessions": R("auth session-ending"),
    "POST /api/auth/revoke-sessions": R("auth session-ending"),
    "POST /api/payments/checkout": R("billing"),
    "POST /api/payments/portal": R("billing"),
    "POST /api/payments/webhook": R("public"),
    "GET /api/payments/local/checkout/{token}": R("public token"),
    "POST /api/payments/local/checkout/{token}": R("public token"),
    "GET /api/payments/local/portal/{token}": R("public token"),
    "POST /api/payments/local/portal/{token}": R("public token"),
    "GET /": R("public"),
}

# Each rule's answer per caller, in the order of CALLERS. ok: 2xx/3xx, or 400/409/410/412/413/
# 415 (the body or the record's state refused) -- never 401/403/404/5xx; 401/404: exactly that
# (404 also for a record the caller cannot see, even with an empty body); 403: FORBIDDEN;
# NV: 403 EMAIL_NOT_VERIFIED; SCP: 403 API_KEY_SCOPE; PRJ: 403 API_KEY_PROJECT for a key of
# another project; KEY: 403 API_KEY_PROJECT, a route that takes no key; SIG: 403
# INVALID_SIGNATURE.
# Columns: anon fgd cron unvf outs | SA ADM MGR MBR | CLI CON SUB | kOth kNo kYes kRev kCk
SESSION = "401 401 401 NV 404"
KEYS = "PRJ SCP ok 401 401"
NO_KEYS = "KEY KEY KEY KEY 401"
RULES: dict[str, str] = {
    # project records
    "records list": f"{SESSION} ok ok ok ok 403 ok ok {KEYS}",
    "record create": f"{SESSION} ok ok ok ok 403 ok ok {KEYS}",
    "assigned record read": f"{SESSION} ok ok ok ok 404 ok 404 {KEYS}",
    "assigned record write": f"{SESSION} ok ok ok ok 403 ok 404 {KEYS}",
    "assigned record comment": f"{SESSION} ok ok ok ok 404 ok 404 {KEYS}",
    "assigned record delete": f"{SESSION} ok ok ok 403 403 403 404 {KEYS}",
    "shared record read": f"{SESSION} ok ok ok ok 404 ok ok {KEYS}",
    "internal record read": f"{SESSION} ok ok ok ok 404 404 404 {KEYS}",
    "internal record write": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    "internal record delete": f"{SESSION} ok ok ok 403 403 403 403 {KEYS}",
    "responder record write": f"{SESSION} ok ok ok ok 403 404 404 {KEYS}",
    "responder record delete": f"{SESSION} ok ok ok 403 403 404 404 {KEYS}",
    "hidden record comment": f"{SESSION} ok ok ok ok 404 404 404 {KEYS}",
    "internal list": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    # operations and maintenance, schedule
    "om read": f"{SESSION} ok ok ok ok 403 ok ok {KEYS}",
    "om work": f"{SESSION} ok ok ok ok 403 ok ok {KEYS}",
    "internal om work": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    "om money read": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    "om work order": f"{SESSION} ok ok ok ok 403 ok 404 {KEYS}",
    "om assigned read": f"{SESSION} ok ok ok ok 403 404 404 {KEYS}",
    "om assigned work": f"{SESSION} ok ok ok ok 403 404 404 {KEYS}",
    "om assigned delete": f"{SESSION} ok ok ok 403 403 404 404 {KEYS}",
    "manager setup": f"{SESSION} ok ok ok 403 403 403 403 {KEYS}",
    # files and drawings
    "files list": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    "files upload": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    "files manage": f"{SESSION} ok ok ok 403 403 403 403 {KEYS}",
    "file read": f"{SESSION} ok ok ok ok 404 403 403 {KEYS}",
    "file manage": f"{SESSION} ok ok ok 403 404 403 403 {KEYS}",
    # a MEMBER renames the files and folders they made (an empty change is no change)
    "file rename": f"{SESSION} ok ok ok ok 404 403 403 {KEYS}",
    "folder rename": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    # an upload is completed by whoever started it (the MANAGER here)
    "uploader's own": "401 401 401 NV 404 404 404 ok 404 404 404 404 404 404 404 401 401",
    "version read": f"{SESSION} ok ok ok ok 404 403 403 {KEYS}",
    "version session read": f"{SESSION} ok ok ok ok 404 403 403 {NO_KEYS}",
    "version session write": f"{SESSION} ok ok ok ok 404 403 403 {NO_KEYS}",
    "version session host": f"{SESSION} 403 403 403 403 404 403 403 {NO_KEYS}",
    # the project itself
    "project read": f"{SESSION} ok ok ok ok ok ok ok {KEYS}",
    "project session": f"{SESSION} ok ok ok ok ok ok ok {NO_KEYS}",
    "project settings": f"{SESSION} ok ok ok 403 403 403 403 {NO_KEYS}",
    "project admin": f"{SESSION} ok ok 403 403 403 403 403 {NO_KEYS}",
    "project audit": f"{SESSION} ok ok ok 403 403 403 403 {KEYS}",
    "project audit export": f"{SESSION} ok ok 403 403 403 403 403 PRJ SCP 403 401 401",
    "project integrations": f"{SESSION} ok ok 403 403 403 403 403 {KEYS}",
    "project internal read": f"{SESSION} ok ok ok ok 403 403 403 {KEYS}",
    # a project's calendar feed: the team subscribes, its maker or an ADMIN revokes it
    "project team": f"{SESSION} ok ok ok ok 403 403 403 {NO_KEYS}",
    "feed revoke": f"{SESSION} ok ok 404 404 404 404 404 {NO_KEYS}",
    # the workspace
    "workspace read": f"{SESSION} ok ok ok ok ok ok ok {NO_KEYS}",
    "workspace internal read": f"{SESSION} ok ok ok ok 403 403 403 {NO_KEYS}",
    "workspace manager": f"{SESSION} ok ok ok 403 403 403 403 {NO_KEYS}",
    "workspace admin": f"{SESSION} ok ok 403 403 403 403 403 {NO_KEYS}",
    "workspace owner": f"{SESSION} ok 403 403 403 403 403 403 {NO_KEYS}",
    "billing": f"{SESSION} ok 403 403 403 403 403 403 {NO_KEYS}",
    # the caller's own things
    "me": f"401 401 401 ok ok ok ok ok ok ok ok ok {NO_KEYS}",
    "user": f"401 401 401 NV ok ok ok ok ok ok ok ok {NO_KEYS}",
    "owner's own": f"401 401 401 NV 404 ok 404 404 404 404 404 404 {NO_KEYS}",
    # the project is checked first (externals may not add files), then the caller's connection
    "owner's own import": f"401 401 401 NV 404 ok 404 404 404 403 403 403 {NO_KEYS}",
    "invite accept": f"401 401 401 ok ok ok ok ok ok ok ok ok {NO_KEYS}",
    "invite accept (invitee only)": f"401 401 401 403 ok 403 403 403 403 403 403 403 {NO_KEYS}",
    "auth session": f"401 401 401 ok ok ok ok ok ok ok ok ok {NO_KEYS}",
    "auth session-ending": f"401 401 401 ok ok ok ok ok ok ok ok ok {NO_KEYS}",
    "auth sign-out": "ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok 401",
    "auth get-session": "ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok 401",
    # no session at all
    "public": "ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok",
    "public token": "ok 404 ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok",
    "signed url": "ok SIG ok ok ok ok ok ok ok ok ok ok ok ok ok ok ok",
    # The start of an SSO sign-in takes no session: the same answer for every caller. The
    # sweep's workspace names an issuer that never resolves (idp.example: a 502), so the
    # route is called for a workspace without SSO: 404 SSO_NOT_CONFIGURED for everyone
    # (tests/sso walk the sign-in against a real provider).
    "sso start": " ".join(["404"] * 17),
    "cron": "401 401 ok 401 401 401 401 401 401 401 401 401 401 401 401 401 401",
}

# The routes whose body names what they act on (the project, the workspace, the upload):
# the minimal body naming it, so that access, not validation, answers.
BODIES: dict[str, Any] = {
    "POST /api/v1/files/presign-upload": lambda s: {
        "fileName": "C-1.pdf",
        "contentType": "application/pdf",
        "sizeBytes": 10,
        "projectId": s.world.project.id,
    },
    "POST /api/v1/files/complete-upload": lambda s: {"uploadId": s.ids["upload_id"]},
    "POST /api/payments/checkout": lambda s: {"workspaceId": s.world.workspace.id, "plan": "pro"},
    "POST /api/payments/portal": lambda s: {"workspaceId": s.world.workspace.id},
    "POST /api/v1/cloud/{provider}/import": lambda s: {
        "itemId": s.ids["cloud_item"],
        "projectId": s.world.project.id,
    },
    "POST /api/v1/cloud/{provider}/open-link": lambda s: {"itemId": s.ids["cloud_item"]},
    # a cost line's body is validated before the work order is looked up (the SUBCONTRACTOR's
    # 404): complete ones, so the lookup decides
    "POST P/om/work-orders/{workOrderId}/costs/parts": lambda s: {
        "description": "Fuse 10A",
        "quantity": 1,
        "unitCost": "2.00",
    },
    "POST P/om/work-orders/{workOrderId}/costs/other": lambda s: {
        "category": "OTHER",
        "description": "Skip",
        "amount": "1.00",
    },
}

P = "/api/v1/projects/{projectId}"
W = "/api/v1/workspaces/{workspaceId}"
PARAMETER = re.compile(r"\{(\w+)\}")


def expand(key: str) -> tuple[str, str]:
    method, path = key.split(" ", 1)
    if path.startswith("P"):
        path = P + path[1:]
    elif path.startswith("W"):
        path = W + path[1:]
    return method, path


def route_key(method: str, path: str) -> str:
    return f"{method} {path.replace(P, 'P', 1).replace(W, 'W', 1)}"


TOKEN_KINDS = (
    ("/api/v1/invites/", "invite_token"),
    ("/api/v1/email-invites/", "email_invite_token"),
    ("/api/v1/occupant/requests/", "tracking_token"),
    ("/api/v1/occupant/", "link_token"),
    ("/api/v1/public/proposals/", "portal_token"),
    ("/api/v1/calendar/", "feed_token"),
    ("/api/v1/storage/upload/", "upload_token"),
    ("/api/v1/storage/object/", "object_token"),
    ("/api/payments/local/checkout/", "checkout_token"),
    ("/api/payments/local/portal/", "billing_portal_token"),
)
SIMPLE = {
    "projectId": "project",
    "workspaceId": "workspace",
    "punchId": "punch",
    "reportId": "report",
    "rfiId": "rfi",
    "proposalId": "proposal",
    "linkId": "link",
    "assetId": "asset",
    "scheduleId": "schedule",
    "runId": "run",
    "fileVersionId": "version",
    "fileId": "file",
    "materialId": "material",
    "keyId": "key",
    "webhookId": "webhook",
    "deliveryId": "delivery",
    "folderId": "folder",
    "provider": "provider",
    "partId": "part",
    "vendorId": "vendor",
    "orderId": "order",
    "workOrderId": "work_order",
    "costId": "cost",
    "downtimeId": "downtime",
    "tokenId": "scim_token",
    "domain": "sso_domain",
    "workspaceSlug": "workspace_slug",
}


def kind_of(path: str, name: str) -> str:
    """The kind of row a path parameter names on this route."""
    if name == "token":
        return next(kind for prefix, kind in TOKEN_KINDS if path.startswith(prefix))
    if name == "issueId":
        return "occupant_issue" if path.startswith("/api/v1/occupant/") else "issue"
    if name == "photoId":
        return "issue_photo" if "/issues/" in path else "punch_photo"
    if name == "templateId":
        return "ptemplate" if "proposal-templates" in path else "itemplate"
    if name == "inviteId":
        return "email_invite" if "email-invites" in path else "invite"
    if name == "userId":
        return "project_member" if path.startswith(P) else "member"
    if name == "feedId":
        return "me_feed" if path.startswith("/api/v1/me/") else "project_feed"
    return SIMPLE[name]


@dataclass
class Sweep:
    seed: Seed
    app: Any
    scoped: dict[tuple[str, str | None], str]

    async def key(self, which: str, scope: str | None) -> str:
        """A key of the project holding only ``scope`` ("key:scope"), or every scope but it
        ("key:none"); every scope when the route takes none."""
        if (which, scope) not in self.scoped:
            if scope is None:
                scopes = list(SCOPES)
            else:
                scopes = [scope] if which == "key:scope" else [s for s in SCOPES if s != scope]
            self.scoped[(which, scope)] = (await create_api_key(self.seed.world.project, scopes))[0]
        return self.scoped[(which, scope)]

    async def headers(self, caller: str, scope: str | None) -> dict[str, str]:
        s = self.seed
        if caller == "anon":
            return {}
        if caller == "forged":
            return {
                "Cookie": f"auth.session_token={crypto.random_token()}.forged",
                "x-service-cron-secret": "not-the-secret",
            }
        if caller == "cron":
            assert settings.cron_secret is not None
            return {"x-service-cron-secret": settings.cron_secret.get_secret_value()}
        if caller in ("key:none", "key:scope"):
            return {"x-api-key": await self.key(caller, scope)}
        if caller == "key:other":
            return {"x-api-key": s.keys["other"]}
        if caller == "key:revoked":
            return {"x-api-key": s.keys["revoked"]}
        if caller == "key:cookie":
            return {"Cookie": f"auth.session_token={s.keys['full']}"}
        return s.actors[caller].headers

    def url(self, path: str, caller: str, fresh: dict[str, str]) -> str:
        def value(m: re.Match[str]) -> str:
            kind = kind_of(path, m.group(1))
            if caller == "forged" and m.group(1) == "token":
                return crypto.random_token()
            if kind in fresh:
                return fresh[kind]
            if kind == "project":
                return self.seed.world.project.id
            if kind == "workspace":
                return self.seed.world.workspace.id
            return self.seed.ids[kind]

        return PARAMETER.sub(value, path)

    async def call(self, method: str, path: str, caller: str, route: R, allowed: bool) -> Answer:
        ratelimit.set_backend(ratelimit.MemoryBackend())
        fresh = {}
        if allowed:
            for spec in route.fresh:  # "kind" or "kind=maker"
                kind, _, maker = spec.partition("=")
                fresh[kind] = await MAKERS[maker or kind](self.seed)
        headers = await self.headers(caller, route.scope)
        if (
            route.rule.startswith(("auth session-ending", "auth sign-out"))
            and allowed
            and caller in self.seed.actors
        ):
            # Ending sessions would sign the sweep's callers out: a user of the same kind
            # (verified or not) with a session of its own stands in.
            stand_in = await create_user(verified=caller != "unverified")
            headers = stand_in.headers
        url = self.url(path, caller, fresh)
        if path.endswith("/viewer-collab/events"):
            return await stream_status(self.app, method, url, headers)
        body: dict[str, Any] | None = None if method in ("GET", "HEAD") else {}
        if (make_body := BODIES.get(route_key(method, path))) is not None:
            body = make_body(self.seed)
        response = await self.seed.client.request(method, url, json=body, headers=headers)
        answer = Answer.of(response.status_code, response.content)
        if allowed and route.rule.startswith("invite accept"):
            await leave_workspace(self.seed)
        return answer


async def leave_workspace(s: Seed) -> None:
    """The outsider stays an outsider after accepting an invite (the next routes need one)."""
    async with database.sessionmaker() as db:
        await db.execute(
            delete(Membership).where(
                Membership.workspace_id == s.world.workspace.id,
                Membership.user_id == s.actors["outsider"].id,
            )
        )
        await db.commit()


# --- the expected answers --------------------------------------------------------------------

ALLOWED = {400, 409, 410, 412, 413, 415}


def matches(expected: str, answer: Answer) -> bool:
    if expected == "ok":
        return answer.status < 400 or answer.status in ALLOWED
    if expected == "NV":
        return answer.status == 403 and answer.code == "EMAIL_NOT_VERIFIED"
    if expected == "SCP":
        return answer.status == 403 and answer.code == "API_KEY_SCOPE"
    if expected == "PRJ":
        return answer.status == 403 and answer.error == "This API key belongs to another project"
    if expected == "KEY":
        return answer.status == 403 and answer.code == "API_KEY_PROJECT"
    if expected == "SIG":
        return answer.status == 403 and answer.code == "INVALID_SIGNATURE"
    if expected == "403":
        return answer.status == 403 and answer.code == "FORBIDDEN"
    return str(answer.status) == expected


def shown(answer: Answer) -> str:
    """The answer in the matrix: its status, or the kind of 403 as RULES name them."""
    if answer.status == 403:
        return {
            "EMAIL_NOT_VERIFIED": "NV",
            "API_KEY_SCOPE": "SCP",
            "API_KEY_PROJECT": "PRJ"
            if answer.error == "This API key belongs to another project"
            else "KEY",
            "FORBIDDEN": "403",
            "INVALID_SIGNATURE": "SIG",
        }.get(answer.code or "", f"403{answer.code}")
    return str(answer.status)


MATRIX: dict[str, list[str]] = {}


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    server = StandIn().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
async def sweep(app: Any, standin: StandIn) -> AsyncIterator[Sweep]:
    from pydantic import SecretStr

    with pytest.MonkeyPatch.context() as patch:
        for name, value in standin.settings().items():
            patch.setattr(settings, name, value)
        for provider in ("google", "microsoft", "dropbox"):
            patch.setattr(settings, f"{provider}_client_secret", SecretStr(CLIENT_SECRET))
        patch.setattr(settings, "billing", "local")
        settings.outbox_dir.mkdir(parents=True, exist_ok=True)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url=ORIGIN, headers={"Origin": ORIGIN}
        ) as client:
            world = await seed(client, settings.outbox_dir)
            await connect_cloud(world, world.owner)
            yield Sweep(world, app, {})
    _print_matrix()


def _print_matrix() -> None:
    if not MATRIX:
        return
    width = max(len(k) for k in MATRIX)
    lines = [f"authorization sweep: {len(MATRIX)} routes x {len(CALLERS)} callers"]
    lines.append(" " * width + " " + " ".join(f"{c:>5}" for c in SHORT))
    for key, cells in MATRIX.items():
        lines.append(f"{key:<{width}} " + " ".join(f"{c:>5}" for c in cells))
    print("\n" + "\n".join(lines))


RULE_NAMES = sorted({r.rule for r in ROUTES.values()})


def test_every_route_has_an_entry(app: Any) -> None:
    """Every operation of the OpenAPI is in ROUTES (and nothing else is), under a rule of
    RULES with one answer per caller."""
    operations = {
        route_key(method.upper(), path)
        for path, item in app.openapi()["paths"].items()
        for method in item
    }
    missing = sorted(operations - set(ROUTES))
    assert missing == [], (
        "routes without an entry: add each to ROUTES in tests/authz/test_sweep.py, "
        f"under the rule of PRODUCT §3-4 it follows: {missing}"
    )
    assert sorted(set(ROUTES) - operations) == [], "ROUTES names routes the app no longer has"
    assert set(RULE_NAMES) == set(RULES), "every rule is used, and every route's rule exists"
    tokens = {"ok", "401", "403", "404", "NV", "SCP", "PRJ", "KEY", "SIG"}
    for rule, row in RULES.items():
        assert len(row.split()) == len(CALLERS), rule
        assert set(row.split()) <= tokens, rule


@pytest.mark.parametrize("rule", RULE_NAMES)
async def test_rule(sweep: Sweep, rule: str, record_property: Any) -> None:
    """Each route of ``rule`` called as each caller answers what the rule says: never a 5xx,
    never a 2xx where the rule refuses."""
    expected_row = RULES[rule].split()
    routes = [(key, route) for key, route in ROUTES.items() if route.rule == rule]
    assert routes
    wrong = []
    for key, route in routes:
        method, path = expand(key)
        cells = []
        for caller, expected in zip(CALLERS, expected_row, strict=True):
            answer = await sweep.call(method, path, caller, route, expected == "ok")
            right = matches(expected, answer) and answer.status < 500
            cells.append(shown(answer) + ("" if right else "!"))
            if not right:
                wrong.append(f"{key} as {caller}: {answer} (expected {expected})")
        MATRIX[key] = cells
    record_property("sweep", f"{len(routes)} routes x {len(CALLERS)} callers")
    assert wrong == []
