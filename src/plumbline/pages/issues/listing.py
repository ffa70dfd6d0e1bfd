"""``/app/projects/{projectId}/issues`` and ``.../issues/board``: the issues and work orders as
a list (filters, sort, columns, paging, saved views, bulk bar, CSV) and as a board by status."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.responses import Response

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import DB
from plumbline.issue.filters import Filters, IssueFilters
from plumbline.issue.orders import Sort
from plumbline.issue.schemas import KINDS, PRIORITIES, STATUSES
from plumbline.issue.service import issue as issue_service
from plumbline.kit import clock
from plumbline.kit.ordering import Order
from plumbline.kit.pagination import Page, PageParams
from plumbline.pages.issues.access import ReadIssues, issues_path
from plumbline.pages.kit.i18n import gettext as _
from plumbline.pages.kit.lists import Listing
from plumbline.pages.kit.shell import page, shell
from plumbline.routing import make_router
from plumbline.saved_view.service import saved_views

router = make_router(tags=["pages"], include_in_schema=False)
FILTERS = ("status", "priority", "issueKind", "assigneeId", "q", "overdue")


def sorts() -> list[tuple[str, str]]:
    return [
        ("", _("Newest first")),
        ("due", _("Due date, soonest first")),
        ("-due", _("Due date, latest first")),
        ("-priority", _("Priority, urgent first")),
        ("priority", _("Priority, low first")),
        ("-updated", _("Recently updated")),
        ("updated", _("Least recently updated")),
        ("number", _("Number, lowest first")),
        ("-number", _("Number, highest first")),
    ]


async def _context(
    request: Request,
    db: DB,
    ctx: ProjectContext,
    filters: IssueFilters,
    page_: PageParams,
    sort: Order | None,
) -> dict[str, Any]:
    """The page's rows (as the JSON list answers them) and what its controls offer."""
    rows, headers = await issue_service.list_issues(db, ctx, filters, page_, sort)
    views = await saved_views.of(db, ctx, "issues")
    people = await issue_service.assignees(db, ctx)
    return {
        "path": issues_path(ctx),
        "total": await issue_service.count(db, ctx, filters) if rows else 0,
        "listing": Listing.of(request, rows, headers, views=views, filters=FILTERS),
        "statuses": STATUSES,
        "priorities": PRIORITIES,
        "kinds": KINDS,
        "people": people,
        "names": dict(people),
        "sorts": sorts(),
        "today": clock.today(),
        "may_write": ctx.can(Permission.RECORDS_WRITE),
        "may_share": not ctx.is_external,
    }


@router.get("/app/projects/{projectId}/issues")
async def issue_list(
    request: Request, ctx: ReadIssues, db: DB, filters: Filters, page_: Page, sort: Sort
) -> Response:
    """The issues and work orders, filtered and sorted as the URL says; the table alone to htmx."""
    context = await _context(request, db, ctx, filters, page_, sort)
    return page(request, "issues/list.html", await shell(request, db, ctx), **context)


@router.get("/app/projects/{projectId}/issues/board")
async def issue_board(
    request: Request, ctx: ReadIssues, db: DB, filters: Filters, page_: Page, sort: Sort
) -> Response:
    """The same issues as cards in a column per status; drag (or pick) to change one's status."""
    context = await _context(request, db, ctx, filters, page_, sort)
    return page(request, "issues/board.html", await shell(request, db, ctx), **context)
