"""The one list of routers."""

from fastapi import APIRouter

from plumbline.api_key.endpoints import router as api_key_router
from plumbline.audit.endpoints import router as audit_router
from plumbline.dashboard.endpoints import router as dashboard_router
from plumbline.field_report.endpoints import router as field_report_router
from plumbline.file.endpoints.branding import public_router as branding_public_router
from plumbline.file.endpoints.branding import router as branding_router
from plumbline.file.endpoints.files import router as file_router
from plumbline.file.endpoints.folders import router as folder_router
from plumbline.file.endpoints.uploads import router as upload_router
from plumbline.identity.endpoints import me_router
from plumbline.identity.endpoints import router as identity_router
from plumbline.internal.endpoints import router as internal_router
from plumbline.issue.endpoints import router as issue_router
from plumbline.kit.storage.endpoints import router as storage_router
from plumbline.member.endpoints import router as member_router
from plumbline.notification.endpoints import router as notification_router
from plumbline.portal.invites import router as portal_invites_router
from plumbline.project.endpoints import router as project_router
from plumbline.public.endpoints import router as public_router
from plumbline.punch.endpoints import router as punch_router
from plumbline.rfi.endpoints import router as rfi_router
from plumbline.viewer.endpoints import router as viewer_router
from plumbline.workspace.endpoints import router as workspace_router

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(public_router)
api_router.include_router(viewer_router)
api_router.include_router(internal_router)
api_router.include_router(me_router)
api_router.include_router(notification_router)
api_router.include_router(issue_router)
api_router.include_router(punch_router)
api_router.include_router(field_report_router)
api_router.include_router(rfi_router)
api_router.include_router(workspace_router)
api_router.include_router(member_router)
api_router.include_router(portal_invites_router)
api_router.include_router(project_router)
api_router.include_router(api_key_router)
api_router.include_router(audit_router)
api_router.include_router(dashboard_router)
api_router.include_router(storage_router)
api_router.include_router(folder_router)
api_router.include_router(upload_router)
api_router.include_router(file_router)
api_router.include_router(branding_router)
api_router.include_router(branding_public_router)

auth_router = APIRouter(prefix="/api/auth")
auth_router.include_router(identity_router)
payments_router = APIRouter(prefix="/api/payments")
