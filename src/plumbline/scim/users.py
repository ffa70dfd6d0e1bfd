"""SCIM Users: a person of the workspace (active: a member; inactive or deleted: no
membership at once, and no session unless they belong to another workspace)."""

from __future__ import annotations

from typing import Any

from scim2_models import (
    Context,
    User,
)
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, created, diff
from plumbline.identity import repository as identity_repo
from plumbline.kit import clock
from plumbline.models import ScimUser
from plumbline.models import User as Account
from plumbline.scim.access import Access
from plumbline.scim.auth import ScimCaller
from plumbline.scim.documents import (
    ACTOR,
    FullUser,
    base_url,
    display_name,
    dump,
    kept,
    list_response,
    listed,
    page,
    parse,
    patched,
    response_parameters,
    user_doc,
    user_name_key,
    users_meeting,
)
from plumbline.scim.errors import ScimError, invalid_value
from plumbline.sso import repository as sso_repo


class Users(Access):
    async def list_users(
        self, db: AsyncSession, caller: ScimCaller, query: dict[str, str]
    ) -> dict[str, Any]:
        """Without a filter, one page read as such; with one, only the Users its ``userName``,
        ``externalId`` and ``id`` equalities leave (``users_meeting``), matched by the
        library."""
        base = base_url(caller.workspace.id)
        text = query.get("filter")
        if not text:
            start, count = page(query)
            rows, total = await self._user_page(db, caller.workspace.id, start, count)
            return list_response([(User, user_doc(r, base)) for r in rows], total, start, query)
        rows = await self._users(db, caller.workspace.id, users_meeting(text))
        return listed(User, [user_doc(r, base) for r in rows], query)

    async def read_user(
        self, db: AsyncSession, caller: ScimCaller, user_id: str, query: dict[str, str]
    ) -> dict[str, Any]:
        doc = user_doc(await self._user(db, caller, user_id), base_url(caller.workspace.id))
        return dump(User, doc, response_parameters(User, query))

    async def create_user(self, db: AsyncSession, caller: ScimCaller, body: Any) -> dict[str, Any]:
        model = parse(FullUser, body, Context.RESOURCE_CREATION_REQUEST)
        now = clock.now()
        row = ScimUser(
            workspace_id=caller.workspace.id,
            user_name=model.user_name,
            user_name_key=user_name_key(model.user_name or ""),
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
        model = parse(FullUser, body, Context.RESOURCE_REPLACEMENT_REQUEST)
        await self._write_user(db, caller, row, model)
        return user_doc(row, base_url(caller.workspace.id))

    async def patch_user(
        self, db: AsyncSession, caller: ScimCaller, user_id: str, body: Any
    ) -> dict[str, Any]:
        row = await self._user(db, caller, user_id)
        base = base_url(caller.workspace.id)
        model = patched(FullUser, user_doc(row, base), body)
        await self._write_user(db, caller, row, model)
        return user_doc(row, base)

    async def delete_user(self, db: AsyncSession, caller: ScimCaller, user_id: str) -> None:
        """The person leaves the workspace: the membership ends (and the sessions, when it was
        their only workspace), the account stays."""
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
                name=display_name(model, email) or email,
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
                ScimUser.user_name_key == user_name_key(model.user_name),
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
        row.user_name_key = user_name_key(model.user_name)
        row.external_id = model.external_id
        row.attributes = kept(model)
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
        name = display_name(model, None)
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
