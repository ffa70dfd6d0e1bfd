"""The project's home page: the dashboard's figures, what changed lately as statements a person
reads ("Dana Reyes moved issue #4 to In progress"), the caller's own open records and the modules
the project's settings turn on.

Internal members get everything. External collaborators (clients, contractors) get a reduced
home: the records assigned to them in the modules they are shown, and their areas; no figures
and no activity (both cover records they are not shown).

Statements: the dashboard's (see ``dashboard.service``), then at most four: the records the
feed names, the people who acted, the caller's records and their count; fixed whatever the rows.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz.permissions import ProjectRole
from plumbline.authz.project import MODULE_LABELS, ProjectContext, module_enabled
from plumbline.dashboard import repository
from plumbline.dashboard.repository import Open
from plumbline.dashboard.service import DUE_SOON_DAYS, ISSUE_OPEN, PUNCH_OPEN, RFI_OPEN
from plumbline.dashboard.service import dashboard as dashboard_service
from plumbline.kit import clock
from plumbline.models import User

RECENT_STATEMENTS = 8
MINE_SHOWN = 8

# The audit action's last word, as the home says it; anything else is "updated".
VERBS = {
    "created": "created",
    "updated": "updated",
    "deleted": "deleted",
    "commented": "commented",
    "message_posted": "commented",
    "closed": "closed",
    "reopened": "reopened",
    "answered": "answered",
    "sent": "sent",
    "resent": "sent",
    "viewed": "viewed",
    "accepted": "accepted",
    "declined": "declined",
    "changes_requested": "changes_requested",
    "expired": "expired",
    "status_changed": "updated",
}
# The project's set-up (keys, hooks, feeds, sign-in): not the work a home reports.
SETUP = {"api_key", "webhook", "calendar_feed", "identity_provider", "sso", "labour_rate"}
# Where a record of the feed opens in the app, by its audit entity type.
PATHS = {"issue": "issues", "rfi": "rfi", "punch_item": "punch", "proposal": "proposals"}


def _statement(
    entry: dict[str, Any], names: dict[str, str], subjects: dict[str, tuple[int | None, str]]
) -> dict[str, Any]:
    kind = entry["entityType"]
    verb = VERBS.get(entry["action"].rsplit(".", 1)[-1], "updated")
    changes = entry["changes"] or {}
    status = changes.get("status")
    if verb == "updated" and isinstance(status, list) and len(status) == 2 and status[1]:
        verb, status = "moved", status[1]
    else:
        status = None
    number, title = subjects.get(entry["entityId"] or "", (None, None))
    path = PATHS.get(kind)
    href = None
    if path and title is not None and verb != "deleted":
        href = f"/app/projects/{entry['projectId']}/{path}/{entry['entityId']}"
    return {
        "actor": names.get(entry["actorUserId"] or ""),  # None: a key, the public, the system
        "actorKind": entry["actor"],
        "verb": verb,
        "kind": kind,
        "number": number,
        "title": title,
        "status": status,
        "href": href,
        "at": entry["createdAt"],
    }


async def _names(db: AsyncSession, user_ids: set[str]) -> dict[str, str]:
    if not user_ids:
        return {}
    rows = await db.execute(select(User.id, User.name).where(User.id.in_(user_ids)))
    return {str(uid): str(name) for uid, name in rows.tuples()}


async def recent(db: AsyncSession, ctx: ProjectContext, feed: list[dict[str, Any]]) -> list[Any]:
    """The latest entries of the feed about the work (not the set-up) as statements: actor,
    verb, record, new status."""
    feed = [e for e in feed if e["entityType"] not in SETUP][:RECENT_STATEMENTS]
    ids: dict[str, list[str]] = defaultdict(list)
    for entry in feed:
        if entry["entityId"]:
            ids[entry["entityType"]].append(entry["entityId"])
    subjects = await repository.subjects(db, ctx.project.id, ids)
    names = await _names(db, {e["actorUserId"] for e in feed if e["actorUserId"]})
    return [_statement(entry, names, subjects) for entry in feed]


def _open_for(ctx: ProjectContext) -> Open:
    """The record tables whose open records the caller's "mine" lists: the modules turned on,
    and of those a client is shown."""
    project = ctx.project
    client = ctx.is_external and ctx.project_role == ProjectRole.CLIENT

    def shown(module: str, flag: str) -> bool:
        if not module_enabled(project, module):
            return False
        return not client or bool(project.client_visibility.get(flag))

    return Open(
        issues=ISSUE_OPEN if shown("issues", "showIssues") else (),
        rfis=RFI_OPEN if shown("rfi", "showRfis") else (),
        punch=PUNCH_OPEN if shown("punch", "showPunch") else (),
    )


async def mine(db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
    """The caller's open records, soonest due first, each marked overdue or due soon."""
    if ctx.user_id is None:  # pages are for people; a key has nothing assigned
        return {"records": [], "total": 0}
    rows, total = await repository.mine(db, ctx.project.id, ctx.user_id, _open_for(ctx), MINE_SHOWN)
    today = clock.today()
    soon = today + timedelta(days=DUE_SOON_DAYS)
    base = f"/app/projects/{ctx.project.id}"
    items = []
    for kind, record_id, number, title, status, due in rows:
        path = {"issue": "issues", "rfi": "rfi", "punch": "punch"}[kind]
        items.append(
            {
                "kind": kind,
                "number": number,
                "title": title,
                "status": status,
                "dueDate": due,
                "overdue": due is not None and due < today,
                "dueSoon": due is not None and today <= due <= soon,
                "href": f"{base}/{path}/{record_id}",
            }
        )
    return {"records": items, "total": total}


def modules(ctx: ProjectContext) -> list[tuple[str, str]]:
    """The modules the project's settings turn on: (key, English label)."""
    return [
        (key, label) for key, label in MODULE_LABELS.items() if module_enabled(ctx.project, key)
    ]


async def project_home(db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
    """Everything the project's home shows, reduced for external collaborators."""
    figures = None
    statements: list[Any] = []
    if not ctx.is_external:
        figures = await dashboard_service.project_dashboard(db, ctx)
        statements = await recent(db, ctx, figures["activity"])
    return {
        "figures": figures,
        "recent": statements,
        "mine": await mine(db, ctx),
        "modules": modules(ctx),
    }
