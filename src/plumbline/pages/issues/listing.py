"""``/app/projects/{projectId}/issues``: the list of issues and work orders."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.responses import Response

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.db import DB
from plumbline.issue.filters import Filters
from plumbline.issue.schemas import KINDS, PRIORITIES, STATUSES
from plumbline.issue.service import issue as issue_service
from plumbline.kit.pagination import Page
from plumbline.pages.kit.lists import Listing
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router
from plumbline.saved_view.service import saved_views

router = make_router(tags=["pages"], include_in_schema=False)


def _access(permission: Permission) -> object:
    return Depends(project_access(permission, scope=None, module="issues", feature=Feature.RECORDS))


ReadIssues = Annotated[ProjectContext, _access(Permission.RECORDS_READ)]
FILTERS = ("status", "priority", "issueKind", "assigneeId", "q")


@router.get("/app/projects/{projectId}/issues")
async def issue_list(
    request: Request, ctx: ReadIssues, db: DB, filters: Filters, page_: Page
) -> Response:
    """The issues and work orders, filtered as the URL says; the table alone to htmx."""
    rows, headers = await issue_service.list_issues(db, ctx, filters, page_)
    views = await saved_views.of(db, ctx, "issues")
    listing = Listing.of(request, rows, headers, views=views, filters=FILTERS)
    return page(
        request,
        "issues/list.html",
        await shell(request, db, ctx),
        listing=listing,
        statuses=STATUSES,
        priorities=PRIORITIES,
        kinds=KINDS,
        may_write=ctx.can(Permission.RECORDS_WRITE),
    )
