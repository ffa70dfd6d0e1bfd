"""``/workspaces/{workspaceId}/members``, ``invites`` and ``email-invites``."""

from plumbline.authz.workspace import WorkspaceMember
from plumbline.db import DB, UoW
from plumbline.kit.pagination import Page
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.member.auth import CanManageMembers
from plumbline.member.invite_service import invite_service
from plumbline.member.schemas import (
    EmailInviteCreate,
    EmailInviteRead,
    EmailInviteUpdate,
    InviteCreate,
    InviteRead,
    MemberRead,
    MemberUpdate,
    ProjectAccessUpdate,
)
from plumbline.member.service import member as member_service
from plumbline.routing import make_router

router = make_router(tags=["members"])
BASE = "/workspaces/{workspaceId}"


@router.get(f"{BASE}/members", response_model=list[MemberRead])
async def list_members(ctx: WorkspaceMember, db: DB, page: Page) -> ORJSONResponse:
    """List the workspace's members (internal members only)."""
    return ORJSONResponse.page(await member_service.list_members(db, ctx, page))


@router.post(f"{BASE}/members", response_model=EmailInviteRead)
async def add_member(body: EmailInviteCreate, ctx: CanManageMembers, uow: UoW) -> ORJSONResponse:
    """Add someone by e-mail: an e-mail invite they accept, whether or not they have an account."""
    return ORJSONResponse(await invite_service.create_email(uow, ctx, body))


@router.patch(f"{BASE}/members/{{userId}}", response_model=MemberRead)
async def change_member_role(
    userId: str, body: MemberUpdate, ctx: CanManageMembers, db: DB
) -> ORJSONResponse:
    """Change a member's role."""
    return ORJSONResponse(await member_service.change_role(db, ctx, userId, body.role))


@router.delete(f"{BASE}/members/{{userId}}", response_model=Ok)
async def remove_member(userId: str, ctx: WorkspaceMember, db: DB) -> ORJSONResponse:
    """Remove a member, or leave the workspace when it is yourself."""
    await member_service.remove(db, ctx, userId)
    return ORJSONResponse({"ok": True})


@router.patch(f"{BASE}/members/{{userId}}/project-access", response_model=MemberRead)
async def set_project_access(
    userId: str, body: ProjectAccessUpdate, ctx: CanManageMembers, db: DB
) -> ORJSONResponse:
    """Restrict a member to named projects, or lift the restriction with null."""
    return ORJSONResponse(
        await member_service.set_project_access(db, ctx, userId, body.project_ids)
    )


@router.get(f"{BASE}/invites", response_model=list[InviteRead])
async def list_invites(ctx: CanManageMembers, db: DB, page: Page) -> ORJSONResponse:
    """List live invite links (their tokens are never shown again)."""
    return ORJSONResponse.page(await invite_service.list_links(db, ctx, page))


@router.post(f"{BASE}/invites", response_model=InviteRead)
async def create_invite(body: InviteCreate, ctx: CanManageMembers, db: DB) -> ORJSONResponse:
    """Create an invite link; its URL is shown only in this response."""
    return ORJSONResponse(await invite_service.create_link(db, ctx, body))


@router.delete(f"{BASE}/invites/{{inviteId}}", response_model=Ok)
async def revoke_invite(inviteId: str, ctx: CanManageMembers, db: DB) -> ORJSONResponse:
    """Revoke an invite link."""
    await invite_service.revoke_link(db, ctx, inviteId)
    return ORJSONResponse({"ok": True})


@router.get(f"{BASE}/email-invites", response_model=list[EmailInviteRead])
async def list_email_invites(ctx: CanManageMembers, db: DB, page: Page) -> ORJSONResponse:
    """List e-mail invites (pending, expired and accepted)."""
    return ORJSONResponse.page(await invite_service.list_email(db, ctx, page))


@router.post(f"{BASE}/email-invites", response_model=EmailInviteRead)
async def send_email_invite(
    body: EmailInviteCreate, ctx: CanManageMembers, uow: UoW
) -> ORJSONResponse:
    """Invite someone by e-mail, as an internal member or an external collaborator."""
    return ORJSONResponse(await invite_service.create_email(uow, ctx, body))


@router.post(f"{BASE}/email-invites/{{inviteId}}/resend", response_model=EmailInviteRead)
async def resend_email_invite(inviteId: str, ctx: CanManageMembers, uow: UoW) -> ORJSONResponse:
    """Send a pending invite again with a new link."""
    return ORJSONResponse(await invite_service.resend_email(uow, ctx, inviteId))


@router.patch(f"{BASE}/email-invites/{{inviteId}}", response_model=EmailInviteRead)
async def update_email_invite(
    inviteId: str, body: EmailInviteUpdate, ctx: CanManageMembers, db: DB
) -> ORJSONResponse:
    """Change a pending invite's role, kind, projects or expiry."""
    return ORJSONResponse(await invite_service.update_email(db, ctx, inviteId, body))


@router.delete(f"{BASE}/email-invites/{{inviteId}}", response_model=Ok)
async def revoke_email_invite(inviteId: str, ctx: CanManageMembers, db: DB) -> ORJSONResponse:
    """Revoke a pending e-mail invite."""
    await invite_service.revoke_email(db, ctx, inviteId)
    return ORJSONResponse({"ok": True})
