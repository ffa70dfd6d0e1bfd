"""Every inspection query: always within one project; deleted templates are never listed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic.alias_generators import to_snake
from sqlalchemy import ColumnElement, Row, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.kit.pagination import PageParams
from plumbline.models import Asset, Attachment, InspectionRun, InspectionTemplate
from plumbline.om.inspections.schemas import InspectionTemplateRead
from plumbline.records.fields import Fields
from plumbline.records.visibility import Visibility

PHOTO_ENTITY = "inspection_run"
# A template's response, in order: each field the column of the same name in snake case.
TEMPLATE_FIELDS = Fields(
    InspectionTemplate.__table__, {n: to_snake(n) for n in InspectionTemplateRead.model_fields}
)
RUN_FIELDS = Fields(
    InspectionRun.__table__,
    {
        "id": "id",
        "projectId": "project_id",
        "templateId": "template_id",
        "templateName": "template_name",
        "assetId": "asset_id",
        "assigneeId": "assignee_id",
        "status": "status",
        "items": "items",
        "results": "results",
        "signedBy": "signed_by",
        "completedAt": "completed_at",
        "completedBy": "completed_by",
        "failedCount": "failed_count",
        "followUpWorkOrders": "follow_ups",
        "photos": None,
        "createdBy": "created_by",
        "createdAt": "created_at",
        "updatedAt": "updated_at",
    },
)
# Whether a run has photos, so the photo query runs only for the runs that do (and not at all
# for a page without any) instead of naming every id of the page.
# Table columns, not the ORM classes': a statement naming no entity runs on Core's execution
# path (the ORM's adds a per-row step to a 1,000-row page).
R = InspectionRun.__table__.c
A = Attachment.__table__.c
HAS_PHOTOS = (
    exists()
    .where(A.entity_type == PHOTO_ENTITY, A.entity_id == R.id, A.deleted_at.is_(None))
    .label("has_photos")
)


def _live_template(project_id: str) -> tuple[ColumnElement[bool], ...]:
    return (
        InspectionTemplate.project_id == project_id,
        InspectionTemplate.deleted_at.is_(None),
    )


def _assigned(user_id: str) -> ColumnElement[bool]:
    """A collaborator's own runs: those assigned to them."""
    return R.assignee_id == user_id


async def list_templates(db: AsyncSession, project_id: str, page: PageParams) -> Sequence[Row[Any]]:
    query = select(*TEMPLATE_FIELDS.columns).where(*_live_template(project_id))
    return (await db.execute(page.apply(query, InspectionTemplate.id))).all()


async def get_template(
    db: AsyncSession, project_id: str, template_id: str, *, lock: bool = False
) -> InspectionTemplate | None:
    query = select(InspectionTemplate).where(
        InspectionTemplate.id == template_id, *_live_template(project_id)
    )
    if lock:
        query = query.with_for_update()
    return (await db.execute(query)).scalar_one_or_none()


async def list_runs(
    db: AsyncSession,
    vis: Visibility,
    page: PageParams,
    *,
    template_id: str | None,
    asset_id: str | None,
    status: str | None,
) -> Sequence[Any]:
    """Rows of ``RUN_FIELDS.columns`` then ``has_photos``."""
    query = select(*RUN_FIELDS.columns, HAS_PHOTOS).where(*vis.where(R, _assigned))
    if template_id:
        query = query.where(R.template_id == template_id)
    if asset_id:
        query = query.where(R.asset_id == asset_id)
    if status:
        query = query.where(R.status == status)
    return (await db.execute(page.apply(query, R.id))).all()


async def rows_by_id(db: AsyncSession, ids: Sequence[str]) -> Sequence[Any]:
    """``list_runs``' rows of these runs, whoever may see them (their events)."""
    query = select(*RUN_FIELDS.columns, HAS_PHOTOS).where(R.id.in_(ids))
    return (await db.execute(query)).all()


async def get_run(db: AsyncSession, vis: Visibility, run_id: str) -> InspectionRun | None:
    query = select(InspectionRun).where(
        InspectionRun.id == run_id, *vis.where(InspectionRun, _assigned)
    )
    return (await db.execute(query)).scalar_one_or_none()


async def claim_completion(db: AsyncSession, run_id: str, values: dict[str, Any]) -> bool:
    """Mark a DRAFT run COMPLETED in one conditional statement: of concurrent or repeated
    completions exactly one gets True (on PostgreSQL the others wait on the row, then find it
    completed)."""
    statement = (
        update(InspectionRun)
        .where(InspectionRun.id == run_id, InspectionRun.status == "DRAFT")
        .values(status="COMPLETED", **values)
        .execution_options(synchronize_session=False)
    )
    result = await db.execute(statement)
    return bool(getattr(result, "rowcount", 0))


async def run_photos(db: AsyncSession, run_id: str) -> Sequence[Any]:
    """The live photos of a run, oldest first, with where their bytes are."""
    query = (
        select(
            Attachment.id,
            Attachment.upload_id,
            Attachment.file_name,
            Attachment.content_type,
            Attachment.size_bytes,
            Attachment.storage_key,
        )
        .where(
            Attachment.entity_type == PHOTO_ENTITY,
            Attachment.entity_id == run_id,
            Attachment.deleted_at.is_(None),
        )
        .order_by(Attachment.created_at, Attachment.id)
    )
    return (await db.execute(query)).all()


async def asset_of_project(
    db: AsyncSession, project_id: str, asset_id: str, *, live: bool = True
) -> Any:
    """An asset of the project (live only unless ``live`` is False, for history): its id,
    tag, name and location."""
    query = select(Asset.id, Asset.tag, Asset.name, Asset.location).where(
        Asset.id == asset_id, Asset.project_id == project_id
    )
    if live:
        query = query.where(Asset.deleted_at.is_(None))
    return (await db.execute(query)).first()
