"""The workspace logo routes: upload and remove it, and serve it (and the e-mail icon) publicly."""

from typing import Annotated

from fastapi import Depends, Request, Response

from plumbline.auth.deps import Public
from plumbline.authz.permissions import Permission
from plumbline.authz.workspace import WorkspaceContext, workspace_access
from plumbline.db import DB, UoW
from plumbline.file.branding import branding as branding_service
from plumbline.file.endpoints import errors
from plumbline.file.schemas import LogoRead
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.routing import make_router

router = make_router(tags=["workspaces"])
public_router = make_router(tags=["public"], dependencies=[Public])

CanBrandWorkspace = Annotated[
    WorkspaceContext, Depends(workspace_access(Permission.WORKSPACE_UPDATE))
]
IMAGE = {"schema": {"type": "string", "format": "binary"}}


@router.put(
    "/workspaces/{workspaceId}/logo",
    response_model=LogoRead,
    responses=errors(413, 415),
    # One media type: generated clients cannot choose among several for a binary body
    # (openapi-python-client sends the last one whatever the bytes are).
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "A PNG, JPEG or WebP image (at most 2 MB), its type read from its"
            " bytes; sent as image/png, image/jpeg or image/webp, the type must match them.",
            "content": {"application/octet-stream": IMAGE},
        }
    },
)
async def set_logo(request: Request, ctx: CanBrandWorkspace, uow: UoW) -> ORJSONResponse:
    """Upload the workspace logo as the raw image body (PNG, JPEG or WebP)."""
    return ORJSONResponse(await branding_service.set_logo(uow, ctx, request))


@router.delete("/workspaces/{workspaceId}/logo", response_model=Ok)
async def remove_logo(ctx: CanBrandWorkspace, uow: UoW) -> ORJSONResponse:
    """Remove the workspace logo."""
    await branding_service.remove_logo(uow, ctx)
    return ORJSONResponse({"ok": True})


@public_router.get(
    "/public/workspaces/{workspaceId}/logo",
    response_class=Response,
    responses={
        200: {"content": {"image/png": IMAGE, "image/jpeg": IMAGE, "image/webp": IMAGE}},
        304: {"description": "Not modified"},
        **errors(416),
    },
)
async def public_logo(workspaceId: str, request: Request, db: DB) -> Response:
    """The workspace's logo image, or 404 when it has none."""
    return await branding_service.public_logo(request, db, workspaceId)


@public_router.get(
    "/public/brand/email-icon.png",
    response_class=Response,
    responses={200: {"content": {"image/png": IMAGE}}, 304: {"description": "Not modified"}},
)
async def email_icon(request: Request) -> Response:
    """The icon used in e-mails."""
    return branding_service.email_icon(request)
