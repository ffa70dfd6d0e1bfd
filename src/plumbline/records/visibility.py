"""Which records of a project the caller sees: one rule for issues, RFIs, punch and reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, false

from plumbline.authz.permissions import ProjectRole
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden

CONTRIBUTORS = (ProjectRole.CONTRACTOR, ProjectRole.SUBCONTRACTOR)
# A module's clause for "records of this contractor" (assigned to them, created by them...).
Own = Callable[[str], ColumnElement[bool]]


@dataclass(frozen=True)
class Visibility:
    """Internal members and keys see every live record of the project; clients all of them
    when the project shares the module with clients (its ``flag``), else none; contractors and
    subcontractors only their own (``own``) where the module says so. Plain values, so an
    export can use it after the request."""

    project_id: str
    shared: bool
    contributor: str | None

    @classmethod
    def of(cls, ctx: ProjectContext, flag: str) -> Visibility:
        contributor = ctx.is_external and ctx.project_role in CONTRIBUTORS
        # A CLIENT sees the records only where the project shares them (its ``flag`` switch).
        client = ctx.is_external and ctx.project_role == ProjectRole.CLIENT
        shared = not client or bool(ctx.project.client_visibility.get(flag))
        return cls(ctx.project.id, shared, ctx.user_id if contributor else None)

    def collection(self, refusal: type[Forbidden]) -> Visibility:
        """Itself; a collection (list, export, bulk) answers 403 ``refusal`` to a client of a
        project that does not share it, where its items answer 404 like any hidden record."""
        if not self.shared:
            raise refusal()
        return self

    def where(self, model: Any, own: Own | None = None) -> list[ColumnElement[bool]]:
        """The conditions on ``model`` (an ORM class or a table's columns)."""
        conditions: list[ColumnElement[bool]] = [
            model.project_id == self.project_id,
            model.deleted_at.is_(None),
        ]
        if not self.shared:
            conditions.append(false())
        elif self.contributor is not None and own is not None:
            conditions.append(own(self.contributor))
        return conditions
