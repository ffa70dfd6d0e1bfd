"""SCIM Groups; one named ADMIN, MANAGER or MEMBER gives its members that role."""

from __future__ import annotations

from typing import Any

from scim2_models import (
    Context,
    Group,
)
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, diff
from plumbline.kit import clock
from plumbline.models import ScimGroup
from plumbline.scim.access import Access
from plumbline.scim.auth import ScimCaller
from plumbline.scim.documents import (
    ACTOR,
    ROLE_GROUPS,
    base_url,
    dump,
    group_doc,
    listed,
    parse,
    patched,
    response_parameters,
)
from plumbline.scim.errors import invalid_value


class Groups(Access):
    async def list_groups(
        self, db: AsyncSession, caller: ScimCaller, query: dict[str, str]
    ) -> dict[str, Any]:
        base = base_url(caller.workspace.id)
        docs = [group_doc(r, base) for r in await self._groups(db, caller.workspace.id)]
        return listed(Group, docs, query)

    async def read_group(
        self, db: AsyncSession, caller: ScimCaller, group_id: str, query: dict[str, str]
    ) -> dict[str, Any]:
        doc = group_doc(await self._group(db, caller, group_id), base_url(caller.workspace.id))
        return dump(Group, doc, response_parameters(Group, query))

    # ---- users

    async def _members(
        self, db: AsyncSession, caller: ScimCaller, model: Any, own_id: str | None
    ) -> list[dict[str, str]]:
        named = {str(member.value or "") for member in model.members or []}
        users = await self._user_ids(db, caller.workspace.id, named)
        groups = {r.id for r in await self._groups(db, caller.workspace.id)} - {own_id}
        found: list[dict[str, str]] = []
        for member in model.members or []:
            value = str(member.value or "")
            if value in users:
                kind = "User"
            elif value in groups:
                kind = "Group"
            else:
                raise invalid_value(f"No User or Group {value} in this workspace")
            if all(m["value"] != value for m in found):
                found.append({"value": value, "type": kind})
                if member.display:
                    found[-1]["display"] = str(member.display)[:255]
        return found

    async def _write_group(
        self,
        db: AsyncSession,
        caller: ScimCaller,
        row: ScimGroup,
        model: Any,
        *,
        created: bool = False,
    ) -> None:
        if not model.display_name:
            raise invalid_value("displayName is required")
        before = {
            "displayName": row.display_name,
            "externalId": row.external_id,
            "members": [m["value"] for m in row.members or []],
        }
        old_members = {m["value"] for m in row.members or [] if m["type"] == "User"}
        was_role = ROLE_GROUPS.get((row.display_name or "").strip().upper())
        row.display_name = model.display_name
        row.external_id = model.external_id
        row.members = await self._members(db, caller, model, row.id)
        row.updated_at = clock.now()
        await db.flush()
        new_members = {m["value"] for m in row.members if m["type"] == "User"}
        if was_role or ROLE_GROUPS.get(row.display_name.strip().upper()):
            await self._apply_roles(db, caller, old_members | new_members)
        after = {
            "displayName": row.display_name,
            "externalId": row.external_id,
            "members": [m["value"] for m in row.members],
        }
        changes = diff({} if created else before, after)
        if created or changes:
            await audit_as(
                db,
                ACTOR,
                ("scim_group", row.id),
                "scim.group_created" if created else "scim.group_updated",
                changes,
                workspace_id=caller.workspace.id,
            )

    async def create_group(self, db: AsyncSession, caller: ScimCaller, body: Any) -> dict[str, Any]:
        model = parse(Group, body, Context.RESOURCE_CREATION_REQUEST)
        now = clock.now()
        row = ScimGroup(
            workspace_id=caller.workspace.id,
            display_name="",
            members=[],
            created_at=now,
            updated_at=now,
        )
        db.add(row)
        await db.flush()
        await self._write_group(db, caller, row, model, created=True)
        return group_doc(row, base_url(caller.workspace.id))

    async def replace_group(
        self, db: AsyncSession, caller: ScimCaller, group_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._group(db, caller, group_id)
        model = parse(Group, body, Context.RESOURCE_REPLACEMENT_REQUEST)
        await self._write_group(db, caller, row, model)
        return group_doc(row, base_url(caller.workspace.id))

    async def patch_group(
        self, db: AsyncSession, caller: ScimCaller, group_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._group(db, caller, group_id)
        base = base_url(caller.workspace.id)
        model = patched(Group, group_doc(row, base), body)
        await self._write_group(db, caller, row, model)
        return group_doc(row, base)

    async def delete_group(self, db: AsyncSession, caller: ScimCaller, group_id: str) -> None:
        row = await self._group(db, caller, group_id)
        members = {m["value"] for m in row.members if m["type"] == "User"}
        was_role = ROLE_GROUPS.get(row.display_name.strip().upper())
        for group in await self._groups(db, caller.workspace.id):
            if group.id != row.id and any(m["value"] == row.id for m in group.members):
                group.members = [m for m in group.members if m["value"] != row.id]
        await db.delete(row)
        await db.flush()
        if was_role:
            await self._apply_roles(db, caller, members)
        await audit_as(
            db,
            ACTOR,
            ("scim_group", row.id),
            "scim.group_deleted",
            {"displayName": [row.display_name, None]},
            workspace_id=caller.workspace.id,
        )
