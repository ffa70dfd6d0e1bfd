"""Member rules: who may grant which role, the last SUPER_ADMIN, seats, project access."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, audit_change, created
from plumbline.auth.principal import Principal
from plumbline.authz.permissions import Permission, Role
from plumbline.authz.plans import seat_limit
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import Forbidden, InvalidField, found
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.member import repository
from plumbline.member.errors import LastSuperAdmin, SeatLimitReached
from plumbline.models import Membership, ProjectMember, Workspace

ADMIN_ROLES = (Role.ADMIN.value, Role.SUPER_ADMIN.value)
INTERNAL = "INTERNAL"


def member_dict(row: Row[Any], named: dict[str, list[str]]) -> dict[str, Any]:
    """``projectIds`` is null for an unrestricted internal member."""
    listed = row.is_external or row.restricted
    return {
        "userId": row.user_id,
        "name": row.name,
        "email": row.email,
        "role": row.role,
        "isExternal": row.is_external,
        "projectIds": named.get(row.user_id, []) if listed else None,
        "joinedAt": clock.iso(row.joined_at),
    }


def require_can_grant(ctx: WorkspaceContext, *roles: str) -> None:
    """Only a SUPER_ADMIN grants, changes or removes the SUPER_ADMIN role."""
    if Role.SUPER_ADMIN.value in roles and ctx.role != Role.SUPER_ADMIN.value:
        raise Forbidden("Only a super admin can grant or remove the super admin role")


async def require_projects(
    db: AsyncSession, workspace_id: str, project_ids: Sequence[str]
) -> list[str]:
    """The ids, deduplicated and sorted, when all are live projects of the workspace (else 400)."""
    wanted = sorted(set(project_ids))
    found = await repository.live_project_ids(db, workspace_id, wanted)
    missing = [p for p in wanted if p not in found]
    if missing:
        raise InvalidField("projectIds", f"not projects of this workspace: {', '.join(missing)}")
    return wanted


class MemberService:
    async def list_members(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Members, newest first; two queries whatever the page size."""
        if ctx.membership.is_external:
            raise Forbidden()
        rows, headers = page.finish(await repository.list_members(db, ctx.workspace.id, page))
        named = await repository.project_ids_by_user(
            db, ctx.workspace.id, [r.user_id for r in rows]
        )
        return [member_dict(row, named) for row in rows], headers

    async def read(self, db: AsyncSession, workspace_id: str, user_id: str) -> dict[str, Any]:
        """One member of the workspace with the projects they are named on (404 otherwise)."""
        row = found(await repository.member_row(db, workspace_id, user_id), "Member not found")
        named = await repository.project_ids_by_user(db, workspace_id, [user_id])
        return member_dict(row, named)

    async def check_seat(self, db: AsyncSession, workspace: Workspace) -> None:
        """402 when the plan's internal seats are all taken (externals use no seat)."""
        limit = seat_limit(workspace)
        if limit is None:
            return
        await repository.lock_workspace(db, workspace.id)
        if await repository.count_internal(db, workspace.id) >= limit:
            raise SeatLimitReached(
                f"The {workspace.plan} plan includes {limit} seats and all are in use",
                seatLimit=limit,
            )

    async def join(
        self,
        db: AsyncSession,
        workspace: Workspace,
        user_id: str,
        *,
        role: str,
        principal: Principal | str,
        action: str,
        kind: str = INTERNAL,
        project_ids: Sequence[str] = (),
    ) -> Membership:
        """Make a non-member a member: internal (restricted to ``project_ids`` when given) or an
        external collaborator with ``kind`` as the project role on each of ``project_ids``."""
        external = kind != INTERNAL
        if not external:
            await self.check_seat(db, workspace)
        now = clock.now()
        joined = Membership(
            workspace_id=workspace.id,
            user_id=user_id,
            role=role,
            is_external=external,
            restricted=not external and bool(project_ids),
            joined_at=now,
        )
        db.add(joined)
        for project_id in project_ids:
            db.add(
                ProjectMember(
                    project_id=project_id,
                    user_id=user_id,
                    workspace_id=workspace.id,
                    project_role=kind if external else None,
                    created_at=now,
                )
            )
        await audit_as(
            db,
            principal,
            ("member", user_id),
            action,
            created(
                {
                    "role": role,
                    "isExternal": external,
                    "projectRole": kind if external else None,
                    "projectIds": sorted(project_ids) or None,
                }
            ),
            workspace_id=workspace.id,
        )
        await db.flush()
        return joined

    async def _target(self, db: AsyncSession, ctx: WorkspaceContext, user_id: str) -> Membership:
        return found(
            await repository.membership(db, ctx.workspace.id, user_id, lock=True),
            "Member not found",
        )

    async def _keep_a_super_admin(self, db: AsyncSession, target: Membership) -> None:
        if target.role == Role.SUPER_ADMIN.value and not target.is_external:
            await repository.lock_workspace(db, target.workspace_id)
            if (
                await repository.count_internal(db, target.workspace_id, Role.SUPER_ADMIN.value)
                <= 1
            ):
                raise LastSuperAdmin()

    async def change_role(
        self, db: AsyncSession, ctx: WorkspaceContext, user_id: str, role: str
    ) -> dict[str, Any]:
        """Only roles the caller may grant; externals stay MEMBER; a super admin always remains."""
        target = await self._target(db, ctx, user_id)
        require_can_grant(ctx, target.role, role)
        if target.is_external and role != Role.MEMBER.value:
            raise InvalidField("role", "external collaborators hold the MEMBER role")
        if role != target.role:
            if role != Role.SUPER_ADMIN.value:
                await self._keep_a_super_admin(db, target)
            changes: dict[str, list[Any]] = {"role": [target.role, role]}
            target.role = role
            if role in ADMIN_ROLES and target.restricted:
                # Admins see every project: the restriction no longer applies.
                await repository.delete_project_members(db, ctx.workspace.id, user_id)
                target.restricted = False
                changes["restricted"] = [True, False]
            await audit_change(db, ctx, ("member", user_id), "member.role_changed", changes)
            await db.flush()
        return await self.read(db, ctx.workspace.id, user_id)

    async def remove(self, db: AsyncSession, ctx: WorkspaceContext, user_id: str) -> None:
        """Remove a member (MEMBERS_MANAGE), or leave the workspace (any member, for themselves)."""
        target = await self._target(db, ctx, user_id)
        leaving = user_id == ctx.user_id
        if not leaving:
            ctx.require(Permission.MEMBERS_MANAGE)
            require_can_grant(ctx, target.role)
        await self._keep_a_super_admin(db, target)
        await repository.delete_project_members(db, ctx.workspace.id, user_id)
        await db.delete(target)
        await audit_change(
            db,
            ctx,
            ("member", user_id),
            "member.left" if leaving else "member.removed",
            {"role": [target.role, None], "isExternal": [target.is_external, None]},
        )
        await db.flush()

    async def set_project_access(
        self,
        db: AsyncSession,
        ctx: WorkspaceContext,
        user_id: str,
        project_ids: list[str] | None,
    ) -> dict[str, Any]:
        """Restrict an internal member to named projects (null lifts it), or set the projects of
        an external collaborator (who keeps the project role held on each)."""
        target = await self._target(db, ctx, user_id)
        wanted = (
            None
            if project_ids is None
            else await require_projects(db, ctx.workspace.id, project_ids)
        )
        existing = await repository.project_members(db, ctx.workspace.id, user_id)
        before = (
            sorted(pm.project_id for pm in existing)
            if target.is_external or target.restricted
            else None
        )
        now = clock.now()
        if target.is_external:
            if not wanted:
                raise InvalidField("projectIds", "external collaborators need at least one project")
            held = {pm.project_id: pm.project_role for pm in existing}
            project_role = next((pm.project_role for pm in existing if pm.project_role), None)
            added: list[str] = [p for p in wanted if p not in held]
            if added and project_role is None:
                raise InvalidField("projectIds", "this collaborator has no project role to extend")
            dropped = [p for p in held if p not in wanted]
            if dropped:
                await repository.delete_project_members(db, ctx.workspace.id, user_id, dropped)
            new_rows = [(p, project_role) for p in added]
        else:
            if wanted is not None and target.role in ADMIN_ROLES:
                raise InvalidField("projectIds", "admins and super admins see every project")
            await repository.delete_project_members(db, ctx.workspace.id, user_id)
            target.restricted = wanted is not None
            new_rows = [(p, None) for p in wanted or []]
        for project_id, project_role in new_rows:
            db.add(
                ProjectMember(
                    project_id=project_id,
                    user_id=user_id,
                    workspace_id=ctx.workspace.id,
                    project_role=project_role,
                    created_at=now,
                )
            )
        if before != wanted:
            await audit_change(
                db,
                ctx,
                ("member", user_id),
                "member.project_access_changed",
                {"projectIds": [before, wanted]},
            )
        await db.flush()
        return await self.read(db, ctx.workspace.id, user_id)


member = MemberService()
