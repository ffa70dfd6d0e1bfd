"""Daily digests: one e-mail and one in-app notification per member per digest, listing what is
due, overdue or ageing in the projects they can see, grouped by project.

A digest is sent to a workspace at most once per UTC day: the ``digest_runs`` row of (workspace,
kind, day) is inserted in the transaction that queues the e-mails and writes the notifications,
with ON CONFLICT DO NOTHING, so a repeated or concurrent run finds the row and sends nothing (on
PostgreSQL the second insert waits for the first transaction, then skips).

The statements do not grow with the number of items: the items (one query), the members of the
workspaces concerned and who is named on the projects (two), the claim (one), then the e-mails
and notifications written in batches.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.authz import repository as authz_repo
from plumbline.config import settings
from plumbline.db import UnitOfWork
from plumbline.digest import repository as repo
from plumbline.kit.mail import Mail
from plumbline.mail.tasks import queue
from plumbline.notification.service import notification

MANAGERS = frozenset({"SUPER_ADMIN", "ADMIN", "MANAGER"})


@dataclass(frozen=True)
class Item:
    """One line of a digest: what, where, under which heading, and for whom besides managers."""

    workspace_id: str
    project_id: str
    project_name: str
    group: str
    text: str
    href: str
    assignee_id: str | None = None


Collect = Callable[[AsyncSession, datetime], Awaitable[list[Item]]]


@dataclass(frozen=True)
class Digest:
    kind: str
    notification_kind: str
    subject: str
    intro: str
    collect: Collect
    # Members who are not managers get the items assigned to them (maintenance); otherwise
    # only managers receive the digest.
    assignees_too: bool = False


@dataclass
class Member:
    user_id: str
    role: str
    external: bool
    restricted: bool
    name: str
    email: str
    items: list[Item] = field(default_factory=list)

    def sees(self, project_id: str, named: set[tuple[str, str]]) -> bool:
        on_project = (project_id, self.user_id) in named
        return on_project if self.external or self.restricted else True


def _absolute(href: str) -> str:
    return settings.public_url.rstrip("/") + href


def _mail(digest: Digest, member: Member, day: date) -> Mail:
    by_project: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    for item in member.items:
        by_project[item.project_name][item.group].append(item)
    text = [f"Hello {member.name},", "", digest.intro, ""]
    page = [f"<p>Hello {html.escape(member.name)},</p>", f"<p>{html.escape(digest.intro)}</p>"]
    for project_name, groups in by_project.items():
        text += [project_name, "=" * len(project_name)]
        page.append(f"<h2>{html.escape(project_name)}</h2>")
        for group, items in groups.items():
            text.append(f"{group}:")
            page.append(f"<h3>{html.escape(group)}</h3><ul>")
            for item in items:
                link = _absolute(item.href)
                text.append(f"  - {item.text}  {link}")
                safe = html.escape(link, quote=True)
                page.append(f'<li><a href="{safe}">{html.escape(item.text)}</a></li>')
            page.append("</ul>")
        text.append("")
    count = len(member.items)
    subject = f"{digest.subject} — {count} item{'s' if count != 1 else ''} ({day.isoformat()})"
    return Mail(to=[member.email], subject=subject, text="\n".join(text), html="".join(page))


async def _audience(
    db: AsyncSession, digest: Digest, items: Sequence[Item]
) -> dict[str, list[Member]]:
    """Per workspace, the members who get this digest, each with their items."""
    workspace_ids = sorted({item.workspace_id for item in items})
    project_ids = sorted({item.project_id for item in items})
    named = {(p, u) for p, u in await authz_repo.named_on(db, project_ids)}
    by_workspace: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_workspace[item.workspace_id].append(item)
    audience: dict[str, list[Member]] = defaultdict(list)
    for row in await authz_repo.members_of(db, workspace_ids):
        workspace_id, member = row[0], Member(*row[1:])  # then the member, field by field
        manager = member.role in MANAGERS and not member.external
        for item in by_workspace[workspace_id]:
            if not member.sees(item.project_id, named):
                continue
            if manager or (digest.assignees_too and item.assignee_id == member.user_id):
                member.items.append(item)
        if member.items:
            audience[workspace_id].append(member)
    return audience


async def run(uow: UnitOfWork, digest: Digest, now: datetime) -> dict[str, Any]:
    """Send today's digest to every workspace that has something in it and has not had it
    today; answers the counts of PRODUCT §13."""
    db = uow.session
    day = now.date()
    audience = await _audience(db, digest, await digest.collect(db, now))
    claimed = await repo.claim(
        db, digest.kind, day, {ws: len(members) for ws, members in audience.items()}
    )
    rows: list[dict[str, Any]] = []
    for workspace_id in claimed:
        for member in audience[workspace_id]:
            queue(uow, _mail(digest, member, day))
            projects = {item.project_id for item in member.items}
            rows.append(
                {
                    "user_id": member.user_id,
                    "workspace_id": workspace_id,
                    "project_id": next(iter(projects)) if len(projects) == 1 else None,
                    "title": f"{digest.subject}: {len(member.items)} item"
                    + ("s" if len(member.items) != 1 else ""),
                    "href": member.items[0].href if len(member.items) == 1 else None,
                }
            )
    await notification.notify_each(db, digest.notification_kind, rows)
    return {
        "ok": True,
        "day": day.isoformat(),
        "workspacesNotified": len(claimed),
        "membersEmailed": len(rows),
        "membersNotified": len(rows),
        "workspacesSkipped": len(audience) - len(claimed),
    }
