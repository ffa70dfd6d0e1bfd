"""Every issue query, scoped to what the caller may see."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from typing import cast as type_cast

from sqlalchemy import (
    ColumnElement,
    Row,
    Table,
    and_,
    bindparam,
    exists,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit import repository as audit_repo
from plumbline.issue.filters import IssueFilters
from plumbline.kit import clock, search
from plumbline.kit.ordering import Order
from plumbline.kit.pagination import PageParams
from plumbline.kit.sequence import next_number
from plumbline.models import (
    Attachment,
    AuditLog,
    File,
    Issue,
    IssueComment,
    ProjectCounter,
    User,
    WorkOrderCost,
)
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

# The list, read and export queries select Core columns of the table (ORM attributes would send
# every row through ORM loading). JSON columns come back as their text, handed to orjson
# untouched, so 2 x 1,000 JSON values are neither parsed nor re-encoded per page.
T = Issue.__table__.c
A = Attachment.__table__.c
PHOTO_ENTITY = "issue"  # the attachments' entity_type of reference photos
NUMBER_KIND = "issue"  # the project counter of issue numbers
FIELDS = Fields(
    Issue.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "number": "number",
        "externalId": "external_id",
        "title": "title",
        "description": "description",
        "status": "status",
        "priority": "priority",
        "issueKind": "issue_kind",
        "assigneeId": "assignee_id",
        "dueDate": "due_date",
        "location": "location",
        "fileId": "file_id",
        "fileVersionId": "file_version_id",
        "pageNumber": "page_number",
        "pin": "pin",
        "assetId": "asset_id",
        "workOrderType": "work_order_type",
        "maintenanceScheduleId": "maintenance_schedule_id",
        "checklist": "checklist",
        "costs": "costs",
        "referencePhotos": None,
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
        "statusChangedAt": "status_changed_at",
        "resolvedAt": "resolved_at",
        "closedAt": "closed_at",
    },
)
ID: Any = T.id  # the Core id column, for the pagination helper


def _own(user_id: str) -> ColumnElement[bool]:
    """Contractors see the issues assigned to them and the ones they created."""
    return or_(T.assignee_id == user_id, T.created_by == user_id)


def visible(vis: Visibility) -> list[ColumnElement[bool]]:
    return vis.where(T, _own)


def filtered(vis: Visibility, filters: IssueFilters) -> list[ColumnElement[bool]]:
    conditions = visible(vis)
    if filters.status:
        conditions.append(T.status.in_(filters.status))
    if filters.priority:
        conditions.append(T.priority.in_(filters.priority))
    if filters.issue_kind:
        conditions.append(T.issue_kind.in_(filters.issue_kind))
    if filters.assignee_id:
        conditions.append(T.assignee_id == filters.assignee_id)
    if filters.unassigned:
        conditions.append(T.assignee_id.is_(None))
    if filters.overdue:
        conditions.append(T.due_date < clock.today())
        conditions.append(T.status.in_(("OPEN", "IN_PROGRESS")))
    if filters.external_id is not None:
        conditions.append(T.external_id == filters.external_id)
    if filters.updated_since is not None:
        conditions.append(T.updated_at >= filters.updated_since)
    if filters.q:
        conditions.append(search.matches(filters.q, T.title, T.description))
    return conditions


# Whether an issue has photos, so the photo query runs only for the issues that do (and not
# at all for a page without any) instead of naming every id of a 1,000-row page.
HAS_PHOTOS = (
    exists()
    .where(A.entity_type == PHOTO_ENTITY, A.entity_id == T.id, A.deleted_at.is_(None))
    .label("has_photos")
)


async def list_rows(
    db: AsyncSession,
    vis: Visibility,
    filters: IssueFilters,
    page: PageParams,
    order: Order | None = None,
) -> Sequence[Any]:
    """Rows of ``FIELDS.columns`` then ``has_photos``, newest first or in ``order``; the page
    applies ``updatedSince``."""
    where = filtered(vis, replace(filters, updated_since=None))
    query = page.apply_order(select(*FIELDS.columns, HAS_PHOTOS).where(*where), ID, order)
    query = search.inline(query, filters.q)
    return (await db.execute(query)).all()


async def count(db: AsyncSession, vis: Visibility, filters: IssueFilters) -> int:
    where = filtered(vis, replace(filters, updated_since=None))
    query = search.inline(select(func.count()).select_from(Issue).where(*where), filters.q)
    return int((await db.execute(query)).scalar_one())


async def matching_ids(
    db: AsyncSession, vis: Visibility, filters: IssueFilters, most: int
) -> list[str]:
    """The ids of the issues the filters match (``most`` + 1 at most: the caller refuses more)."""
    query = select(T.id).where(*filtered(vis, filters)).order_by(T.id).limit(most + 1)
    return list((await db.execute(query)).scalars())


async def rows_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Any]:
    """``list_rows``' rows of these issues, whoever may see them (their events)."""
    return (await db.execute(select(*FIELDS.columns, HAS_PHOTOS).where(T.id.in_(ids)))).all()


async def get_row(db: AsyncSession, vis: Visibility, issue_id: str) -> Any:
    """The issue's ``FIELDS.columns`` row, or None."""
    query = select(*FIELDS.columns).where(T.id == issue_id, *visible(vis))
    return (await db.execute(query)).first()


async def get_entity(db: AsyncSession, vis: Visibility, issue_id: str) -> Issue | None:
    query = select(Issue).where(T.id == issue_id, *visible(vis))
    return (await db.execute(query)).scalar_one_or_none()


async def has_costs(db: AsyncSession, issue_id: str) -> bool:
    """Whether the work order has cost lines (om.costs writes them)."""
    query = select(WorkOrderCost.id).where(WorkOrderCost.work_order_id == issue_id).limit(1)
    return (await db.execute(query)).first() is not None


async def external_id_taken(
    db: AsyncSession, project_id: str, external_id: str, except_id: str | None = None
) -> bool:
    """Whether a live issue of the project (other than ``except_id``) has ``external_id``."""
    query = select(T.id).where(
        T.project_id == project_id, T.deleted_at.is_(None), T.external_id == external_id
    )
    if except_id is not None:
        query = query.where(T.id != except_id)
    return (await db.execute(query.limit(1))).first() is not None


async def by_external_ids(
    db: AsyncSession, vis: Visibility, external_ids: Sequence[str]
) -> list[tuple[Issue, bool]]:
    """The project's live issues with one of ``external_ids``, each with whether the caller
    may see it; locked (PostgreSQL) in id order. One query."""
    if not external_ids:
        return []
    query = (
        select(Issue, and_(*visible(vis)).label("seen"))
        .where(
            T.project_id == vis.project_id,
            T.deleted_at.is_(None),
            T.external_id.in_(external_ids),
        )
        .order_by(T.id)
        .with_for_update(of=Issue)
    )
    return [(issue, bool(seen)) for issue, seen in (await db.execute(query)).tuples()]


# Values as parameters of prebuilt Core inserts: ``insert(Issue).values(**values)`` turns each value
# into a bound expression and runs the ORM's bulk insert machinery: a quarter of a create's time.
ISSUE_TABLE = type_cast("Table", Issue.__table__)
INSERT_ISSUE = insert(ISSUE_TABLE)
# PostgreSQL: the audit entry, the project's next issue number and the issue in one statement
# (one round trip and one execution instead of three); the counter row stays locked until the
# commit, as with next_number.
_COUNTER = (
    pg_insert(type_cast("Table", ProjectCounter.__table__))
    .values(project_id=bindparam("project_id"), kind=NUMBER_KIND, value=1)
    .on_conflict_do_update(
        index_elements=["project_id", "kind"], set_={"value": ProjectCounter.value + 1}
    )
    .returning(ProjectCounter.value)
    .cte("counter")
)
INSERTED = tuple(c for c in ISSUE_TABLE.c if c.key not in ("number", "deleted_at"))
INSERT_NUMBERED = audit_repo.with_entry(
    insert(ISSUE_TABLE)
    .from_select(
        [*INSERTED, T.number],
        select(*(bindparam(c.key, type_=c.type) for c in INSERTED), _COUNTER.c.value),
    )
    .returning(T.number)
)


async def insert_issue(db: AsyncSession, values: dict[str, Any], entry: dict[str, Any]) -> int:
    """Inserts the issue (``values`` names every column but ``number`` and ``deleted_at``) under
    the project's next number with its audit ``entry``, and returns that number. Runs on the
    session's connection, without an autoflush: flush pending entities first."""
    conn = await db.connection()
    if conn.dialect.name == "postgresql":
        params = {**values, **audit_repo.entry_params(entry)}
        return int((await conn.execute(INSERT_NUMBERED, params)).scalar_one())
    await audit_repo.insert_entry(db, entry)
    number = await next_number(db, values["project_id"], NUMBER_KIND)
    await conn.execute(INSERT_ISSUE, {**values, "number": number})
    return number


async def export_batch(
    db: AsyncSession, conditions: list[ColumnElement[bool]], after_id: str | None, size: int
) -> Sequence[Any]:
    """One keyset batch of the CSV export, newest first, with the assignee's and author's names."""
    assignee = User.__table__.alias("assignee")
    author = User.__table__.alias("author")
    query = (
        select(
            *FIELDS.columns,
            assignee.c.name.label("assignee_name"),
            author.c.name.label("author_name"),
        )
        .select_from(
            Issue.__table__.outerjoin(assignee, assignee.c.id == T.assignee_id).outerjoin(
                author, author.c.id == T.created_by
            )
        )
        .where(*conditions)
    )
    if after_id is not None:
        query = query.where(T.id < after_id)
    return (await db.execute(query.order_by(T.id.desc()).limit(size))).all()


COMMENT_COLUMNS = (
    IssueComment.id,
    IssueComment.issue_id,
    IssueComment.body,
    IssueComment.author_id,
    User.name,
    IssueComment.created_at,
)


async def list_comments(db: AsyncSession, issue_id: str, page: PageParams) -> Sequence[Row[Any]]:
    query: Any = (
        select(*COMMENT_COLUMNS)
        .outerjoin(User, User.id == IssueComment.author_id)
        .where(IssueComment.issue_id == issue_id)
    )
    return (await db.execute(page.apply(query, IssueComment.id))).all()


async def comments_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Row[Any]]:
    query: Any = (
        select(*COMMENT_COLUMNS)
        .outerjoin(User, User.id == IssueComment.author_id)
        .where(IssueComment.id.in_(ids))
    )
    return (await db.execute(query)).all()


async def insert_comment(db: AsyncSession, values: dict[str, Any]) -> None:
    await db.execute(insert(IssueComment).values(**values))


async def history(db: AsyncSession, project_id: str, issue_id: str, limit: int) -> Sequence[Any]:
    """The issue's audit entries, newest first, with their author's name: action, changes,
    time, actor kind, name."""
    query = (
        select(AuditLog.action, AuditLog.changes, AuditLog.created_at, AuditLog.actor, User.name)
        .outerjoin(User, User.id == AuditLog.actor_user_id)
        .where(
            AuditLog.project_id == project_id,
            AuditLog.entity_id == issue_id,
            AuditLog.entity_type == "issue",
        )
        .order_by(AuditLog.id.desc())
        .limit(limit)
    )
    return (await db.execute(query)).all()


async def names(db: AsyncSession, user_ids: Sequence[str]) -> dict[str, str]:
    """The names of these users (none: no query)."""
    if not user_ids:
        return {}
    query = select(User.id, User.name).where(User.id.in_(user_ids))
    return dict((await db.execute(query)).tuples().all())


async def file_name(db: AsyncSession, project_id: str, file_id: str) -> str | None:
    """The name of the project's live file (the drawing an issue is pinned on)."""
    query = select(File.name).where(
        File.id == file_id, File.project_id == project_id, File.deleted_at.is_(None)
    )
    return (await db.execute(query)).scalar_one_or_none()
