"""Locks, viewer state and co-viewing of a file version (access: ``plumbline.viewer.auth``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.auth.principal import Principal
from plumbline.authz.files import VersionAccess, require
from plumbline.authz.permissions import Permission
from plumbline.db import UnitOfWork
from plumbline.kit import clock, ratelimit
from plumbline.models import FileLock
from plumbline.viewer import repository
from plumbline.viewer.collab import Viewer, hub
from plumbline.viewer.errors import LockHeld, RevisionConflict
from plumbline.viewer.events import publish_to_version

LOCK_TTL = timedelta(minutes=5)
LOCK_ATTEMPTS = 3


def _lock_body(file_version_id: str, lock: tuple[str, Any, Any]) -> dict[str, Any]:
    locked_by, locked_at, expires_at = lock
    return {
        "fileVersionId": file_version_id,
        "lockedBy": locked_by,
        "lockedAt": clock.iso(locked_at),
        "expiresAt": clock.iso(expires_at),
    }


async def _audit(
    db: AsyncSession, access: VersionAccess, action: str, changes: dict[str, list[Any]]
) -> None:
    await audit_change(db, access.ctx, ("file_version", access.version.id), action, changes)


class LockService:
    async def acquire(
        self, uow: UnitOfWork, access: VersionAccess, *, force: bool
    ) -> dict[str, Any]:
        """Take or renew the 5-minute lock; someone else's live lock is 409 unless a manager
        forces it (audited). Each step is one conditional statement, so of two concurrent
        callers exactly one wins."""
        db = uow.session
        file_version_id = access.version.id
        if force:
            require(access.ctx, Permission.FILES_MANAGE)
        user_id = access.user_id
        now = clock.now()
        expires_at = now + LOCK_TTL
        for _ in range(LOCK_ATTEMPTS):
            before = await repository.get_lock(db, file_version_id)
            holder = before[0] if before is not None and before[2] > now else None
            if holder == user_id:
                if await repository.renew_lock(db, file_version_id, user_id, now, expires_at):
                    break
            elif await repository.take_lock(
                db, file_version_id, user_id, now, expires_at, force=force
            ) or await repository.insert_lock(db, file_version_id, user_id, now, expires_at):
                action = "file.lock_forced" if holder is not None else "file.locked"
                await _audit(db, access, action, {"lockedBy": [holder, user_id]})
                break
            current = await repository.get_lock(db, file_version_id)
            if current is not None and current[2] > now and current[0] != user_id:
                raise LockHeld(lockedBy=current[0], expiresAt=clock.iso(current[2]))
        lock = await repository.get_lock(db, file_version_id)
        if lock is None or lock[0] != user_id:
            raise LockHeld(lockedBy=lock[0] if lock else None, expiresAt=None)
        uow.after_commit(
            lambda: publish_to_version(
                file_version_id,
                "lock_changed",
                {"lockedBy": user_id, "expiresAt": clock.iso(expires_at)},
            )
        )
        return _lock_body(file_version_id, lock)

    async def release(self, uow: UnitOfWork, access: VersionAccess) -> None:
        """The holder or a manager removes the lock; no live lock is already the wanted state."""
        db = uow.session
        file_version_id = access.version.id
        lock = await repository.get_lock(db, file_version_id)
        if lock is None:
            return
        holder, _, expires_at = lock
        if expires_at <= clock.now():
            await repository.delete_lock(db, file_version_id, holder)
            return
        if holder != access.user_id:
            require(access.ctx, Permission.FILES_MANAGE)
        if await repository.delete_lock(db, file_version_id, holder):
            await _audit(db, access, "file.unlocked", {"lockedBy": [holder, None]})
            uow.after_commit(
                lambda: publish_to_version(
                    file_version_id, "lock_changed", {"lockedBy": None, "expiresAt": None}
                )
            )

    async def held_by_other(
        self, db: AsyncSession, version_ids: Sequence[str], user_id: str | None
    ) -> FileLock | None:
        """A live lock on one of the versions held by someone other than ``user_id``: writes
        to a version (markups here, renames and deletes in the file module) wait for it."""
        return await repository.lock_held_by_other(db, version_ids, user_id, clock.now())

    async def ensure_not_locked_by_other(
        self, db: AsyncSession, file_version_id: str, user_id: str | None
    ) -> None:
        """409 LOCKED when someone other than ``user_id`` holds a live lock on the version."""
        lock = await self.held_by_other(db, [file_version_id], user_id)
        if lock is not None:
            raise LockHeld(lockedBy=lock.locked_by, expiresAt=clock.iso(lock.expires_at))


class ViewerStateService:
    async def read(self, db: AsyncSession, access: VersionAccess) -> dict[str, Any]:
        """The version's saved viewer state and its revision (0 before any save)."""
        found = await repository.get_state(db, access.version.id)
        state, revision = found if found is not None else ({}, 0)
        return {"viewerState": state, "revision": revision}

    async def save(
        self,
        uow: UnitOfWork,
        access: VersionAccess,
        state: dict[str, Any],
        base_revision: int,
    ) -> dict[str, int]:
        """Compare-and-set on the revision: a stale ``base_revision`` is 409 with the current
        state, so the client can merge and retry."""
        db = uow.session
        file_version_id = access.version.id
        user_id = access.user_id
        await locks.ensure_not_locked_by_other(db, file_version_id, user_id)
        now = clock.now()
        if base_revision == 0:
            saved = await repository.insert_state(db, file_version_id, state, user_id, now)
        else:
            saved = await repository.update_state(
                db, file_version_id, base_revision, state, user_id, now
            )
        if not saved:
            current = await repository.get_state(db, file_version_id)
            current_state, current_revision = current if current is not None else ({}, 0)
            raise RevisionConflict(viewerState=current_state, revision=current_revision)
        revision = base_revision + 1
        await _audit(db, access, "file.viewer_state_saved", {"revision": [base_revision, revision]})
        uow.after_commit(
            lambda: publish_to_version(
                file_version_id, "viewer_state", {"revision": revision, "actorUserId": user_id}
            )
        )
        return {"revision": revision}


def viewer_of(principal: Principal) -> Viewer:
    """The caller as a co-viewer; a user who hides their presence stays out of ``members``."""
    user = principal.require_user()
    return Viewer(user_id=user.id, name=user.name, hidden=user.presence_hidden)


locks = LockService()
viewer_states = ViewerStateService()


SSE_CONNECTS_PER_MINUTE = 24


class CollabService:
    async def connect(self, access: VersionAccess) -> tuple[AsyncIterator[bytes], dict[str, str]]:
        """Checks the connect rate limit now (the stream runs after the request's session has
        closed); returns the SSE body and the rate-limit headers."""
        viewer = viewer_of(access.ctx.principal)
        verdict = await ratelimit.hit(f"sse:{viewer.user_id}", SSE_CONNECTS_PER_MINUTE, 60)
        return hub.stream(access.version.id, viewer), verdict.headers()

    async def heartbeat(
        self, access: VersionAccess, connection_id: str, page_index: int | None
    ) -> None:
        """Keep the caller's own connection in the room (swept after 75 s without one)."""
        await hub.heartbeat(access.version.id, connection_id, access.user_id, page_index)

    async def leave(self, access: VersionAccess, connection_id: str) -> None:
        """Take the caller's own connection out of the room (404 for another's)."""
        await hub.leave(access.version.id, connection_id, access.user_id)

    async def end_session(self, access: VersionAccess) -> None:
        """The host ends co-viewing for everyone (403 to anyone else)."""
        await hub.end_session(access.version.id, access.user_id)


collab = CollabService()
