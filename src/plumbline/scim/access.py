"""What provisioning changes: memberships, roles and sessions of the workspace's people."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as
from plumbline.authz.permissions import Role
from plumbline.identity import repository as identity_repo
from plumbline.member import repository as member_repo
from plumbline.member.service import member as member_service
from plumbline.models import Membership, ScimGroup, ScimUser
from plumbline.scim.auth import ScimCaller
from plumbline.scim.documents import (
    ACTOR,
    ROLE_GROUPS,
)
from plumbline.scim.errors import ScimError, not_found
from plumbline.sso import repository as sso_repo


class Access:
    async def _users(
        self, db: AsyncSession, workspace_id: str, meeting: ColumnElement[bool] | None = None
    ) -> list[ScimUser]:
        """The workspace's Users in id order; only those ``meeting`` a condition when given."""
        query = select(ScimUser).where(ScimUser.workspace_id == workspace_id)
        if meeting is not None:
            query = query.where(meeting)
        return list((await db.execute(query.order_by(ScimUser.id))).scalars())

    async def _user_page(
        self, db: AsyncSession, workspace_id: str, start: int, count: int
    ) -> tuple[list[ScimUser], int]:
        """The ``count`` Users from the ``start``-th (1-based, id order), and how many there are."""
        owned = ScimUser.workspace_id == workspace_id
        total = await db.scalar(select(func.count()).select_from(ScimUser).where(owned))
        query = select(ScimUser).where(owned).order_by(ScimUser.id).offset(start - 1).limit(count)
        return list((await db.execute(query)).scalars()), total or 0

    async def _user_ids(self, db: AsyncSession, workspace_id: str, ids: set[str]) -> set[str]:
        """Those of ``ids`` that are Users of the workspace (asked a thousand at a time: a
        group may name more people than a statement takes parameters)."""
        asked, found = sorted(ids), set[str]()
        for at in range(0, len(asked), 1000):
            query = select(ScimUser.id).where(
                ScimUser.workspace_id == workspace_id, ScimUser.id.in_(asked[at : at + 1000])
            )
            found.update((await db.execute(query)).scalars())
        return found

    async def _memberships(
        self, db: AsyncSession, workspace_id: str, scim_user_ids: list[str]
    ) -> list[tuple[str, Membership]]:
        """The active Users of ``scim_user_ids`` that have an account and a membership of the
        workspace: (User id, membership), in User id order."""
        query = (
            select(ScimUser.id, Membership)
            .join(
                Membership,
                and_(
                    Membership.workspace_id == ScimUser.workspace_id,
                    Membership.user_id == ScimUser.user_id,
                ),
            )
            .where(
                ScimUser.workspace_id == workspace_id,
                ScimUser.id.in_(scim_user_ids),
                ScimUser.active.is_(True),
            )
            .order_by(ScimUser.id)
        )
        return [(row[0], row[1]) for row in await db.execute(query)]

    async def _groups(self, db: AsyncSession, workspace_id: str) -> list[ScimGroup]:
        query = (
            select(ScimGroup).where(ScimGroup.workspace_id == workspace_id).order_by(ScimGroup.id)
        )
        return list((await db.execute(query)).scalars())

    async def _user(self, db: AsyncSession, caller: ScimCaller, user_id: str) -> ScimUser:
        row = await db.get(ScimUser, user_id)
        if row is None or row.workspace_id != caller.workspace.id:
            raise not_found(f"User {user_id} not found")
        return row

    async def _group(self, db: AsyncSession, caller: ScimCaller, group_id: str) -> ScimGroup:
        row = await db.get(ScimGroup, group_id)
        if row is None or row.workspace_id != caller.workspace.id:
            raise not_found(f"Group {group_id} not found")
        return row

    async def _roles(self, db: AsyncSession, workspace_id: str) -> Callable[[str], str]:
        """The role a User's groups give (its highest role group), or the workspace's default
        role when it is in none: the groups and the configuration read once."""
        ranks: dict[str, int] = {}
        for group in await self._groups(db, workspace_id):
            rank = ROLE_GROUPS.get(group.display_name.strip().upper(), 0)
            if not rank:
                continue
            for member in group.members:
                ranks[member["value"]] = max(ranks.get(member["value"], 0), rank)
        config = await sso_repo.config(db, workspace_id)
        default = config.default_role if config is not None else Role.MEMBER.value
        by_rank = {rank: role for role, rank in ROLE_GROUPS.items()}

        def role_of(scim_user_id: str) -> str:
            rank = ranks.get(scim_user_id)
            return by_rank[rank] if rank else default

        return role_of

    async def _activate(self, db: AsyncSession, caller: ScimCaller, row: ScimUser) -> None:
        if row.user_id is None:
            return
        if await sso_repo.membership(db, caller.workspace.id, row.user_id) is not None:
            return
        role = (await self._roles(db, caller.workspace.id))(row.id)
        await member_service.join(
            db,
            caller.workspace,
            row.user_id,
            role=role,
            principal=ACTOR,
            action="member.provisioned",
        )

    async def _deactivate(self, db: AsyncSession, caller: ScimCaller, user_id: str) -> None:
        """No membership of the workspace from this request on (the last SUPER_ADMIN stays);
        no session either when it was the only workspace the person belongs to. Sessions are
        the person's, not the workspace's: one workspace's provider never signs them out of
        another, nor touches their membership or role there."""
        membership = await member_repo.membership(db, caller.workspace.id, user_id, lock=True)
        if membership is not None:
            if membership.role == Role.SUPER_ADMIN.value and not membership.is_external:
                await member_repo.lock_workspace(db, caller.workspace.id)
                if (
                    await member_repo.count_internal(
                        db, caller.workspace.id, Role.SUPER_ADMIN.value
                    )
                    <= 1
                ):
                    raise ScimError(
                        409, "The workspace's last SUPER_ADMIN cannot be deactivated", "mutability"
                    )
            await member_repo.delete_project_members(db, caller.workspace.id, user_id)
            await db.delete(membership)
            await audit_as(
                db,
                ACTOR,
                ("member", user_id),
                "member.deprovisioned",
                {"role": [membership.role, None]},
                workspace_id=caller.workspace.id,
            )
        if not await member_repo.belongs_elsewhere(db, user_id, caller.workspace.id):
            ended = await identity_repo.delete_sessions(db, user_id)
            await audit_as(
                db,
                ACTOR,
                ("user", user_id),
                "user.sessions_revoked",
                {"sessions": [ended, 0], "via": [None, "scim"]},
                workspace_id=caller.workspace.id,
            )
        await db.flush()

    # ---- groups

    async def _apply_roles(
        self, db: AsyncSession, caller: ScimCaller, scim_user_ids: set[str]
    ) -> None:
        """The role each active member's groups give now (SUPER_ADMINs are left as they are):
        the members read a thousand at a time with their memberships, the groups once."""
        role_of = await self._roles(db, caller.workspace.id)
        asked = sorted(scim_user_ids)
        for at in range(0, len(asked), 1000):
            for scim_user_id, membership in await self._memberships(
                db, caller.workspace.id, asked[at : at + 1000]
            ):
                role = role_of(scim_user_id)
                if membership.role == Role.SUPER_ADMIN.value or role == membership.role:
                    continue
                await audit_as(
                    db,
                    ACTOR,
                    ("member", membership.user_id),
                    "member.role_changed",
                    {"role": [membership.role, role]},
                    workspace_id=caller.workspace.id,
                )
                membership.role = role
                if role in (Role.ADMIN.value,) and membership.restricted:
                    await member_repo.delete_project_members(
                        db, caller.workspace.id, membership.user_id
                    )
                    membership.restricted = False
        await db.flush()
