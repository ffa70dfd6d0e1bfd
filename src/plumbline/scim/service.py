"""SCIM Users and Groups of a workspace. A User is a person of the workspace: active, a member
(joined with the role its groups give, else the SSO default role); inactive or deleted, no
membership at once, and no session unless they belong to another workspace (which the
provisioning never touches). A Group named ADMIN, MANAGER or MEMBER gives that role."""

from __future__ import annotations

from typing import Any

from scim2_models import (
    Group,
    User,
)
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.scim.auth import ScimCaller
from plumbline.scim.documents import (
    base_url,
    group_doc,
    listed_typed,
    search_query,
    user_doc,
)
from plumbline.scim.groups import Groups
from plumbline.scim.users import Users


class ScimService(Users, Groups):
    async def search(
        self, db: AsyncSession, caller: ScimCaller, kinds: tuple[str, ...], body: Any
    ) -> dict[str, Any]:
        """``POST .search`` on Users, Groups or the root (both)."""
        if kinds == ("User",):  # as a GET of /Users, which reads only what the filter can match
            return await self.list_users(db, caller, search_query(body))
        base = base_url(caller.workspace.id)
        docs: list[tuple[Any, dict[str, Any]]] = []
        types = tuple(t for t in (User, Group) if t.__name__ in kinds)
        if "User" in kinds:
            docs += [(User, user_doc(r, base)) for r in await self._users(db, caller.workspace.id)]
        if "Group" in kinds:
            groups = await self._groups(db, caller.workspace.id)
            docs += [(Group, group_doc(r, base)) for r in groups]
        return listed_typed(docs, search_query(body), types)


scim = ScimService()
