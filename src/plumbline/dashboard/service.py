"""The project dashboard: a JSON object with one key per registered section.

A module adds its section with ``register_section("issues", builder, module="issues")``; the
builder takes ``(db, ctx)`` and returns JSON-ready data, with a fixed number of queries. A
section tied to a module is left out while that module is disabled for the project.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit
from plumbline.authz.project import ProjectContext, module_enabled
from plumbline.dashboard import repository
from plumbline.project import repository as project_repository

SectionBuilder = Callable[[AsyncSession, ProjectContext], Awaitable[Any]]
RECENT_ACTIVITY = 20


@dataclass(frozen=True)
class Section:
    build: SectionBuilder
    module: str | None = None


SECTIONS: dict[str, Section] = {}


def register_section(name: str, build: SectionBuilder, *, module: str | None = None) -> None:
    if name in SECTIONS:
        raise ValueError(f"dashboard section {name!r} is already registered")
    SECTIONS[name] = Section(build, module)


async def _project(_: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
    return {"id": ctx.project.id, "name": ctx.project.name, "stage": ctx.project.stage}


async def _members(db: AsyncSession, ctx: ProjectContext) -> int:
    return await project_repository.count_team(
        db, workspace_id=ctx.project.workspace_id, project_id=ctx.project.id
    )


async def _files(db: AsyncSession, ctx: ProjectContext) -> dict[str, int]:
    count, size = await repository.file_totals(db, project_id=ctx.project.id)
    return {"count": count, "storageBytes": size}


async def _activity(db: AsyncSession, ctx: ProjectContext) -> list[dict[str, Any]]:
    return await audit.recent(db, project_id=ctx.project.id, limit=RECENT_ACTIVITY)


register_section("project", _project)
register_section("members", _members)
register_section("files", _files)
register_section("activity", _activity)


class DashboardService:
    async def project_dashboard(self, db: AsyncSession, ctx: ProjectContext) -> dict[str, Any]:
        # Sections run one after another: an AsyncSession serves one statement at a time.
        return {
            name: await section.build(db, ctx)
            for name, section in SECTIONS.items()
            if section.module is None or module_enabled(ctx.project, section.module)
        }


dashboard = DashboardService()
