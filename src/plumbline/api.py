"""The one list of routers, each mounted on the app at its prefix."""

from fastapi import APIRouter

from plumbline.api_key.endpoints import router as api_key_router
from plumbline.audit.endpoints import router as audit_router
from plumbline.billing.endpoints import router as billing_router
from plumbline.calendar_feed.endpoints import router as calendar_feed_router
from plumbline.cloud.endpoints import router as cloud_router
from plumbline.dashboard.endpoints import router as dashboard_router
from plumbline.drawing_ai.endpoints import router as drawing_ai_router
from plumbline.events.endpoints import materials_router as material_changes_router
from plumbline.events.endpoints import router as changes_router
from plumbline.field_report.endpoints import router as field_report_router
from plumbline.file.endpoints.branding import public_router as branding_public_router
from plumbline.file.endpoints.branding import router as branding_router
from plumbline.file.endpoints.files import router as file_router
from plumbline.file.endpoints.folders import router as folder_router
from plumbline.file.endpoints.storage import router as storage_router
from plumbline.file.endpoints.uploads import router as upload_router
from plumbline.home.endpoints import docs_router
from plumbline.home.endpoints import router as home_router
from plumbline.identity.endpoints import me_router
from plumbline.identity.endpoints import router as identity_router
from plumbline.internal.endpoints import proposal_reminders_router
from plumbline.internal.endpoints import router as internal_router
from plumbline.issue.endpoints import router as issue_router
from plumbline.material.endpoints import router as material_router
from plumbline.member.endpoints import router as member_router
from plumbline.notification.endpoints import router as notification_router
from plumbline.occupant.endpoints import portal_router as occupant_portal_router
from plumbline.occupant.endpoints import router as occupant_router
from plumbline.om.assets.endpoints import router as om_assets_router
from plumbline.om.costs.endpoints import rates_router as om_rates_router
from plumbline.om.costs.endpoints import router as om_costs_router
from plumbline.om.fm_dashboard.endpoints import router as fm_dashboard_router
from plumbline.om.inspections.endpoints import runs as inspection_run_router
from plumbline.om.inspections.endpoints import templates as inspection_template_router
from plumbline.om.maintenance.endpoints import router as om_maintenance_router
from plumbline.om.parts.endpoints import parts_router as om_parts_router
from plumbline.om.parts.endpoints import router as om_stock_router
from plumbline.om.purchasing.endpoints import router as om_orders_router
from plumbline.om.purchasing.endpoints import vendors_router as om_vendors_router
from plumbline.om.reliability.endpoints import router as om_reliability_router
from plumbline.pages import routers as page_routers
from plumbline.portal.invites import router as portal_invites_router
from plumbline.project.endpoints import router as project_router
from plumbline.proposal.drafts.endpoints import router as proposal_router
from plumbline.proposal.lifecycle.endpoints import router as proposal_lifecycle_router
from plumbline.proposal.portal.endpoints import router as proposal_portal_router
from plumbline.proposal.templates.endpoints import router as proposal_template_router
from plumbline.public.endpoints import router as public_router
from plumbline.punch.endpoints import router as punch_router
from plumbline.rfi.endpoints import router as rfi_router
from plumbline.schedule.endpoints import router as schedule_router
from plumbline.scim.endpoints import router as scim_router
from plumbline.scim.tokens import router as scim_tokens_router
from plumbline.sso.endpoints import auth_router as sso_auth_router
from plumbline.sso.endpoints import router as sso_router
from plumbline.viewer.endpoints import router as viewer_router
from plumbline.webhook.endpoints import router as webhook_router
from plumbline.workspace.endpoints import router as workspace_router

# Each router is included in the app itself: FastAPI matches a request once per nesting level
# (twice, counting the handle), so a parent /api/v1 router would double the routing work.
# FastAPI tries them in this order, each router passed over costing a request some work
# (benchmarks/README.md): the project records, where integrations and field crews send most
# requests, come first.
API_V1 = "/api/v1"
ROUTERS: tuple[tuple[str, APIRouter], ...] = (
    (API_V1, issue_router),
    (API_V1, punch_router),
    (API_V1, field_report_router),
    (API_V1, rfi_router),
    (API_V1, proposal_router),
    (API_V1, occupant_router),
    (API_V1, occupant_portal_router),
    (API_V1, om_assets_router),
    (API_V1, om_maintenance_router),
    (API_V1, om_parts_router),
    (API_V1, om_stock_router),
    (API_V1, om_costs_router),
    (API_V1, om_rates_router),
    (API_V1, om_vendors_router),
    (API_V1, om_orders_router),
    (API_V1, om_reliability_router),
    (API_V1, inspection_template_router),
    (API_V1, inspection_run_router),
    (API_V1, fm_dashboard_router),
    # The projects list, which every session of the web app calls, right after the project
    # records: 86 routes ahead of it instead of 159 (benchmarks/README.md, issue 28).
    (API_V1, project_router),
    (API_V1, proposal_lifecycle_router),
    (API_V1, proposal_portal_router),
    (API_V1, proposal_reminders_router),
    (API_V1, schedule_router),
    (API_V1, public_router),
    (API_V1, viewer_router),
    (API_V1, drawing_ai_router),
    (API_V1, internal_router),
    (API_V1, me_router),
    (API_V1, notification_router),
    (API_V1, workspace_router),
    (API_V1, member_router),
    (API_V1, material_changes_router),  # before the materials': "changes" is no material id
    (API_V1, material_router),
    (API_V1, portal_invites_router),
    (API_V1, api_key_router),
    (API_V1, webhook_router),
    (API_V1, calendar_feed_router),
    (API_V1, audit_router),
    (API_V1, changes_router),
    (API_V1, dashboard_router),
    (API_V1, storage_router),
    (API_V1, folder_router),
    (API_V1, upload_router),
    (API_V1, file_router),
    (API_V1, branding_router),
    (API_V1, branding_public_router),
    (API_V1, proposal_template_router),
    (API_V1, cloud_router),
    (API_V1, sso_router),
    (API_V1, scim_tokens_router),
    ("/api/auth", identity_router),
    ("/api/auth", sso_auth_router),
    ("", scim_router),
    ("/api/payments", billing_router),
    ("", home_router),
    ("", docs_router),
    *(("", router) for router in page_routers),
)
