"""SCIM Users and Groups of a workspace. A User is a person of the workspace: active, a member
(joined with the role its groups give, else the SSO default role); inactive or deleted, no
membership and no session, at once. A Group named ADMIN, MANAGER or MEMBER gives that role."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from scim2_models import (
    Context,
    EnterpriseUser,
    Group,
    PatchOp,
    ResponseParameters,
    ScimFilter,
    User,
)
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, created, diff
from plumbline.authz.permissions import Role
from plumbline.config import settings
from plumbline.identity import repository as identity_repo
from plumbline.kit import clock
from plumbline.member import repository as member_repo
from plumbline.member.service import member as member_service
from plumbline.models import ScimGroup, ScimUser
from plumbline.models import User as Account
from plumbline.scim.auth import ScimCaller
from plumbline.scim.discovery import MAX_RESULTS
from plumbline.scim.errors import ScimError, from_validation, invalid_value, not_found
from plumbline.sso import repository as sso_repo

# Requests may carry Entra's and Okta's enterprise attributes: accepted, not kept.
FullUser = User[EnterpriseUser]
ROLE_GROUPS = {"ADMIN": 3, "MANAGER": 2, "MEMBER": 1}
ACTOR = "scim"


def base_url(workspace_id: str) -> str:
    return f"{settings.public_url.rstrip('/')}/scim/v2/{workspace_id}"


def _kept(model: User[Any]) -> dict[str, Any]:
    dumped = model.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)
    kept = ("name", "displayName", "emails", "active")
    return {k: dumped[k] for k in kept if dumped.get(k) is not None}


def user_doc(row: ScimUser, base: str) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "id": row.id,
        "externalId": row.external_id,
        "userName": row.user_name,
        **row.attributes,  # "active" as the provider sent it (absent: active)
        "meta": {
            "resourceType": "User",
            "created": clock.iso(row.created_at),
            "lastModified": clock.iso(row.updated_at),
            "location": f"{base}/Users/{row.id}",
        },
    }


def group_doc(row: ScimGroup, base: str) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        "id": row.id,
        "externalId": row.external_id,
        "displayName": row.display_name,
        "members": [{**m, "$ref": f"{base}/{m['type']}s/{m['value']}"} for m in row.members],
        "meta": {
            "resourceType": "Group",
            "created": clock.iso(row.created_at),
            "lastModified": clock.iso(row.updated_at),
            "location": f"{base}/Groups/{row.id}",
        },
    }


def _parse(model: Any, body: Any, context: Context) -> Any:
    if not isinstance(body, dict):
        raise ScimError(400, "The body must be a JSON object", "invalidSyntax")
    try:
        return model.model_validate(body, scim_ctx=context)
    except ValidationError as exc:
        raise from_validation(exc) from exc


def _patched(model_type: Any, current: dict[str, Any], body: Any) -> Any:
    resource = model_type.model_validate(current)
    patch = _parse(PatchOp[model_type], body, Context.RESOURCE_PATCH_REQUEST)
    try:
        patch.patch(resource)
    except ValidationError as exc:
        raise from_validation(exc) from exc
    except Exception as exc:  # scim2-models' SCIMException family names its scimType
        scim_type = getattr(exc, "scim_type", None)
        if scim_type is None:
            raise
        raise ScimError(400, str(exc), str(scim_type)) from exc
    return resource


def dump(
    resource_type: Any, doc: dict[str, Any], params: ResponseParameters[Any] | None
) -> dict[str, Any]:
    """The resource with the ``attributes``/``excludedAttributes`` the client asked for."""
    if params is None or not (params.attributes or params.excluded_attributes):
        return {k: v for k, v in doc.items() if v is not None}
    model = resource_type.model_validate(doc)
    return dict(
        model.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE, response_parameters=params)
    )


def response_parameters(
    resource_type: Any, query: dict[str, str]
) -> ResponseParameters[Any] | None:
    raw = {k: query[k] for k in ("attributes", "excludedAttributes") if query.get(k)}
    if not raw:
        return None
    try:
        return ResponseParameters[resource_type].model_validate(raw)
    except ValidationError as exc:
        raise from_validation(exc) from exc


def page(query: dict[str, str]) -> tuple[int, int]:
    """``startIndex`` (1-based, below 1 counts as 1) and ``count`` (0 to the maximum)."""
    try:
        start = max(1, int(query.get("startIndex", "1")))
        count = min(MAX_RESULTS, max(0, int(query.get("count", str(MAX_RESULTS)))))
    except ValueError as exc:
        raise invalid_value("startIndex and count are integers") from exc
    return start, count


def listed(resource_type: Any, docs: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
    """A ListResponse of the documents matching ``filter``, one page of them."""
    return listed_typed([(resource_type, d) for d in docs], query, (resource_type,))


def listed_typed(
    docs: list[tuple[Any, dict[str, Any]]], query: dict[str, str], kinds: tuple[Any, ...]
) -> dict[str, Any]:
    """``listed`` over documents of several resource types (a search at the root)."""
    text = query.get("filter")
    if text:
        matching = []
        try:
            expressions = {kind: _filter(kind, text) for kind in kinds}
            for kind, doc in docs:
                if expressions[kind].match(kind.model_validate(doc)):
                    matching.append((kind, doc))
        except Exception as exc:
            raise ScimError(400, f"Invalid filter: {exc}", "invalidFilter") from exc
        docs = matching
    start, count = page(query)
    chosen = docs[start - 1 : start - 1 + count]
    return {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": len(docs),
        "startIndex": start,
        "itemsPerPage": len(chosen),
        "Resources": [dump(kind, d, response_parameters(kind, query)) for kind, d in chosen],
    }


def _filter(resource_type: Any, text: str) -> Any:
    return ScimFilter[resource_type](text)


def search_query(body: Any) -> dict[str, str]:
    """A SearchRequest body (``POST .search``) as the query parameters of a GET."""
    if not isinstance(body, dict):
        raise ScimError(400, "The body must be a JSON object", "invalidSyntax")
    query = {}
    for name in ("filter", "startIndex", "count", "attributes", "excludedAttributes"):
        value = body.get(name)
        if isinstance(value, list):
            value = ",".join(str(v) for v in value)
        if value is not None:
            query[name] = str(value)
    return query


class ScimService:
    # ---- reads

    async def _users(self, db: AsyncSession, workspace_id: str) -> list[ScimUser]:
        query = select(ScimUser).where(ScimUser.workspace_id == workspace_id).order_by(ScimUser.id)
        return list((await db.execute(query)).scalars())

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

    async def list_users(
        self, db: AsyncSession, caller: ScimCaller, query: dict[str, str]
    ) -> dict[str, Any]:
        base = base_url(caller.workspace.id)
        docs = [user_doc(r, base) for r in await self._users(db, caller.workspace.id)]
        return listed(User, docs, query)

    async def read_user(
        self, db: AsyncSession, caller: ScimCaller, user_id: str, query: dict[str, str]
    ) -> dict[str, Any]:
        doc = user_doc(await self._user(db, caller, user_id), base_url(caller.workspace.id))
        return dump(User, doc, response_parameters(User, query))

    async def list_groups(
        self, db: AsyncSession, caller: ScimCaller, query: dict[str, str]
    ) -> dict[str, Any]:
        base = base_url(caller.workspace.id)
        docs = [group_doc(r, base) for r in await self._groups(db, caller.workspace.id)]
        return listed(Group, docs, query)

    async def search(
        self, db: AsyncSession, caller: ScimCaller, kinds: tuple[str, ...], body: Any
    ) -> dict[str, Any]:
        """``POST .search`` on Users, Groups or the root (both)."""
        base = base_url(caller.workspace.id)
        docs: list[tuple[Any, dict[str, Any]]] = []
        types = tuple(t for t in (User, Group) if t.__name__ in kinds)
        if "User" in kinds:
            docs += [(User, user_doc(r, base)) for r in await self._users(db, caller.workspace.id)]
        if "Group" in kinds:
            groups = await self._groups(db, caller.workspace.id)
            docs += [(Group, group_doc(r, base)) for r in groups]
        return listed_typed(docs, search_query(body), types)

    async def read_group(
        self, db: AsyncSession, caller: ScimCaller, group_id: str, query: dict[str, str]
    ) -> dict[str, Any]:
        doc = group_doc(await self._group(db, caller, group_id), base_url(caller.workspace.id))
        return dump(Group, doc, response_parameters(Group, query))

    # ---- users

    async def create_user(self, db: AsyncSession, caller: ScimCaller, body: Any) -> dict[str, Any]:
        model = _parse(FullUser, body, Context.RESOURCE_CREATION_REQUEST)
        now = clock.now()
        row = ScimUser(
            workspace_id=caller.workspace.id,
            user_name=model.user_name,
            active=False,
            attributes={},
            created_at=now,
            updated_at=now,
        )
        db.add(row)
        await db.flush()  # its id, which the userName check leaves out
        await self._write_user(db, caller, row, model, created=True)
        return user_doc(row, base_url(caller.workspace.id))

    async def replace_user(
        self, db: AsyncSession, caller: ScimCaller, user_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._user(db, caller, user_id)
        model = _parse(FullUser, body, Context.RESOURCE_REPLACEMENT_REQUEST)
        await self._write_user(db, caller, row, model)
        return user_doc(row, base_url(caller.workspace.id))

    async def patch_user(
        self, db: AsyncSession, caller: ScimCaller, user_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._user(db, caller, user_id)
        base = base_url(caller.workspace.id)
        model = _patched(FullUser, user_doc(row, base), body)
        await self._write_user(db, caller, row, model)
        return user_doc(row, base)

    async def delete_user(self, db: AsyncSession, caller: ScimCaller, user_id: str) -> None:
        """The person leaves the workspace: membership and sessions end, the account stays."""
        row = await self._user(db, caller, user_id)
        if row.active and row.user_id is not None:
            await self._deactivate(db, caller, row.user_id)
        for group in await self._groups(db, caller.workspace.id):
            if any(m["value"] == row.id for m in group.members):
                group.members = [m for m in group.members if m["value"] != row.id]
                group.updated_at = clock.now()
        await db.delete(row)
        await audit_as(
            db,
            ACTOR,
            ("scim_user", row.id),
            "scim.user_deleted",
            {"userName": [row.user_name, None]},
            workspace_id=caller.workspace.id,
        )
        await db.flush()

    async def _account(self, db: AsyncSession, caller: ScimCaller, model: Any) -> Account | None:
        """The account the User names by e-mail (None without one): an existing account only
        within the workspace's verified domains (no workspace pulls in someone else's), else a
        new one, its e-mail taken as verified by the provider."""
        emails = list(model.emails or [])
        primary = next((e for e in emails if e.primary), emails[0] if emails else None)
        email = str(primary.value) if primary is not None and primary.value else model.user_name
        if not email or "@" not in email or " " in email.strip():
            return None
        email = email.strip().lower()
        account = await identity_repo.user_by_email(db, email)
        if account is not None:
            owner = await sso_repo.workspace_of_domain(db, email.rsplit("@", 1)[1])
            if owner is None or owner.id != caller.workspace.id:
                raise ScimError(
                    409, "An account outside this workspace's domains has this e-mail", "uniqueness"
                )
            taken = await db.execute(
                select(ScimUser.id).where(
                    ScimUser.workspace_id == caller.workspace.id, ScimUser.user_id == account.id
                )
            )
            if taken.first() is not None:
                raise ScimError(409, "This person is already provisioned", "uniqueness")
            return account
        now = clock.now()
        account = await identity_repo.add_user(
            db,
            Account(
                name=_display_name(model, email) or email,
                email=email,
                email_verified=True,
                password_hash=None,
                created_at=now,
                updated_at=now,
            ),
        )
        await audit_as(
            db,
            ACTOR,
            ("user", account.id),
            "user.created",
            created({"name": account.name, "email": email, "via": "scim"}),
            workspace_id=caller.workspace.id,
        )
        return account

    async def _write_user(
        self,
        db: AsyncSession,
        caller: ScimCaller,
        row: ScimUser,
        model: Any,
        *,
        created: bool = False,
    ) -> None:
        """Store the User's attributes; activation and deactivation take effect now."""
        if not model.user_name:
            raise invalid_value("userName is required")
        clash = await db.execute(
            select(ScimUser.id).where(
                ScimUser.workspace_id == caller.workspace.id,
                func.lower(ScimUser.user_name) == model.user_name.lower(),
                ScimUser.id != row.id,
            )
        )
        if clash.first() is not None:
            raise ScimError(409, "Another User has this userName", "uniqueness")
        before = {
            "userName": row.user_name,
            "externalId": row.external_id,
            "active": row.active,
            **(row.attributes or {}),
        }
        was_active = row.active and not created
        row.user_name = model.user_name
        row.external_id = model.external_id
        row.attributes = _kept(model)
        row.active = model.active is not False
        row.updated_at = clock.now()
        await db.flush()
        if row.user_id is None:
            account = await self._account(db, caller, model)
            row.user_id = account.id if account is not None else None
            was_active = False  # whatever it said, it had no access without an account
            await db.flush()
        else:
            account = await db.get(Account, row.user_id)
        name = _display_name(model, None)
        if account is not None and name and account.name != name:
            account.name = name
            account.updated_at = clock.now()
        if row.user_id is not None and row.active and not was_active:
            await self._activate(db, caller, row)
        elif row.user_id is not None and was_active and not row.active:
            await self._deactivate(db, caller, row.user_id)
        after = {
            "userName": row.user_name,
            "externalId": row.external_id,
            "active": row.active,
            **row.attributes,
        }
        action = "scim.user_created" if created else "scim.user_updated"
        changes = diff({} if created else before, after)
        if created or changes:
            await audit_as(
                db,
                ACTOR,
                ("scim_user", row.id),
                action,
                changes,
                workspace_id=caller.workspace.id,
            )

    async def _role_for(self, db: AsyncSession, workspace_id: str, scim_user_id: str) -> str:
        best = 0
        for group in await self._groups(db, workspace_id):
            rank = ROLE_GROUPS.get(group.display_name.strip().upper(), 0)
            if rank and any(m["value"] == scim_user_id for m in group.members):
                best = max(best, rank)
        if best:
            return next(role for role, rank in ROLE_GROUPS.items() if rank == best)
        config = await sso_repo.config(db, workspace_id)
        return config.default_role if config is not None else Role.MEMBER.value

    async def _activate(self, db: AsyncSession, caller: ScimCaller, row: ScimUser) -> None:
        if row.user_id is None:
            return
        if await sso_repo.membership(db, caller.workspace.id, row.user_id) is not None:
            return
        role = await self._role_for(db, caller.workspace.id, row.id)
        await member_service.join(
            db,
            caller.workspace,
            row.user_id,
            role=role,
            principal=ACTOR,
            action="member.provisioned",
        )

    async def _deactivate(self, db: AsyncSession, caller: ScimCaller, user_id: str) -> None:
        """No membership and no session from this request on (the last SUPER_ADMIN stays)."""
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

    async def _members(
        self, db: AsyncSession, caller: ScimCaller, model: Any, own_id: str | None
    ) -> list[dict[str, str]]:
        users = {r.id for r in await self._users(db, caller.workspace.id)}
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

    async def _apply_roles(
        self, db: AsyncSession, caller: ScimCaller, scim_user_ids: set[str]
    ) -> None:
        """The role each active member's groups give now (SUPER_ADMINs are left as they are)."""
        for scim_user in await self._users(db, caller.workspace.id):
            if scim_user.id not in scim_user_ids or not scim_user.active or not scim_user.user_id:
                continue
            membership = await sso_repo.membership(db, caller.workspace.id, scim_user.user_id)
            if membership is None or membership.role == Role.SUPER_ADMIN.value:
                continue
            role = await self._role_for(db, caller.workspace.id, scim_user.id)
            if role != membership.role:
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

    async def create_group(self, db: AsyncSession, caller: ScimCaller, body: Any) -> dict[str, Any]:
        model = _parse(Group, body, Context.RESOURCE_CREATION_REQUEST)
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
        model = _parse(Group, body, Context.RESOURCE_REPLACEMENT_REQUEST)
        await self._write_group(db, caller, row, model)
        return group_doc(row, base_url(caller.workspace.id))

    async def patch_group(
        self, db: AsyncSession, caller: ScimCaller, group_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._group(db, caller, group_id)
        base = base_url(caller.workspace.id)
        model = _patched(Group, group_doc(row, base), body)
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


def _display_name(model: Any, email: str | None) -> str | None:
    name = model.display_name or (model.name.formatted if model.name else None)
    if not name and model.name:
        name = " ".join(p for p in (model.name.given_name, model.name.family_name) if p)
    if not name and email:
        name = email.split("@", 1)[0]
    return name.strip()[:200] if name else None


scim = ScimService()
