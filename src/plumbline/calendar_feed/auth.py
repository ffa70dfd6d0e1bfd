"""Who may hold a calendar feed, and which records a feed's owner still reads at each fetch.

A personal feed (``/me/calendar-feeds``) needs a verified session. A project's feed is created
by an internal member who sees the project (any role): it shows the project's records to
whoever holds its URL, which an external collaborator, who sees only part of them, may not
hand out; externals subscribe to their personal feed. API keys create no feeds: a feed answers
with a person's access, re-checked at every fetch (``readable``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature, plan_has
from plumbline.authz.project import ProjectContext, module_enabled, project_access
from plumbline.records.visibility import Visibility

CanSeeProject = Annotated[
    ProjectContext, Depends(project_access(Permission.PROJECT_READ, scope=None))
]


@dataclass(frozen=True)
class Section:
    """One kind of record in a feed and what reading it takes, as its own routes check it:
    the permission, the module switch, the plan, and the client-visibility switch (``flag``)
    or, with ``internal``, no external collaborator at all."""

    module: str
    feature: Feature
    permission: Permission
    flag: str | None = None
    internal: bool = False


ISSUES = Section("issues", Feature.RECORDS, Permission.RECORDS_READ, "showIssues")
RFIS = Section("rfi", Feature.RECORDS, Permission.RECORDS_READ, "showRfis")
PUNCH = Section("punch", Feature.RECORDS, Permission.RECORDS_READ, "showPunch")
SCHEDULE = Section("schedule", Feature.SCHEDULE, Permission.PROJECT_READ, "showSchedule")
OM = Section("om", Feature.OM, Permission.OM_WORK)
PROPOSALS = Section("proposals", Feature.PROPOSALS, Permission.RECORDS_READ, internal=True)


def readable(ctx: ProjectContext, section: Section) -> bool:
    """Whether the context's user reads ``section`` in its project now."""
    if section.internal and ctx.is_external:
        return False
    if not ctx.can(section.permission) or not module_enabled(ctx.project, section.module):
        return False
    if not plan_has(ctx.workspace.plan, section.feature):
        return False
    return section.flag is None or Visibility.of(ctx, section.flag).shared
