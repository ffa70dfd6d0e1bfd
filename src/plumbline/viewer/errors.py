"""Errors of locks, viewer state and co-viewing."""

from plumbline.errors import Conflict, Forbidden, NotFound


class LockHeld(Conflict, code="LOCKED", message="This file version is locked by another user"): ...


class RevisionConflict(
    Conflict, code="REVISION_CONFLICT", message="The viewer state changed since your base revision"
): ...


class UnknownConnection(NotFound, message="Unknown viewer connection"): ...


class NotHost(Forbidden, message="Only the session host can end the session"): ...
