"""The web application's pages and the pages our e-mails link to.

Where a page lives (CONTRIBUTING.md, "Adding a page"): ``/app/projects/{p}/<area>...`` is
``pages/<area>.py``, or the package ``pages/<area>/`` with a module per page kind, and its
templates are ``templates/<area>/``; ``/app/workspaces/...`` is ``workspaces.py``; the portal's
and account's pages are ``proposal.py``, ``occupant.py``, ``account.py`` and
``account_links.py``; the kit every page uses is ``kit/``.
"""

from fastapi import APIRouter

from plumbline.pages import (
    account,
    account_links,
    door,
    live,
    notifications,
    occupant,
    projects,
    proposal,
    search,
    views,
    workspaces,
)
from plumbline.pages.issues import actions as issue_actions
from plumbline.pages.issues import create as issue_create
from plumbline.pages.issues import listing as issue_listing
from plumbline.pages.issues import record as issue_record
from plumbline.pages.kit import static_router

# Each is mounted on the app itself (api.ROUTERS), as every router is.
routers: tuple[APIRouter, ...] = (
    static_router,
    proposal.router,
    occupant.router,
    account.router,
    account_links.router,
    door.router,
    workspaces.router,
    projects.router,
    # Before the issue page's ``/issues/{issueId}``: ``board`` and ``new`` are not ids.
    issue_listing.router,
    issue_create.router,
    issue_actions.router,
    issue_record.router,
    views.router,
    live.router,
    notifications.router,
    search.router,
)
