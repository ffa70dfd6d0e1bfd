"""Projects: listing what the caller may see, create/update/delete, settings, session, team."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_as, audit_change, audit_stamp, audit_update, created
from plumbline.authz.plans import Feature, effective_plan, require_feature
from plumbline.authz.project import CLIENT_VISIBILITY, MODULES, ProjectContext, module_enabled
from plumbline.authz.workspace import WorkspaceContext
from plumbline.errors import InvalidField, ValidationFailed, found
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.models import Project, ProjectMember
from plumbline.project import repository
from plumbline.project.schemas import ProjectCreate, ProjectSettingsUpdate, ProjectUpdate
from plumbline.snapshots import tracked

# Fields the audit trail follows, camelCase as the API names them.
_AUDITED = {
    "name": "name",
    "location": "location",
    "currency": "currency",
    "stage": "stage",
    "start_date": "startDate",
    "end_date": "endDate",
    "project_number": "projectNumber",
    "timezone": "timezone",
    "operations_mode": "operationsMode",
}
_NOT_NULL = ("name", "currency", "stage", "timezone", "operations_mode")


def project_dict(project: Project) -> dict[str, Any]:
    return repository.FIELDS.read(repository.FIELDS.of(project))


def _audited(project: Project) -> dict[str, Any]:
    return {camel: getattr(project, attr) for attr, camel in _AUDITED.items()}


def _modules(project: Project) -> dict[str, bool]:
    return {module: module_enabled(project, module) for module in MODULES}


def _visibility(project: Project) -> dict[str, bool]:
    return {flag: bool(project.client_visibility.get(flag, False)) for flag in CLIENT_VISIBILITY}


def _reject_nulls(sent: dict[str, Any], fields: Iterable[str]) -> None:
    nulls = [to_camel(name) for name in fields if name in sent and sent[name] is None]
    if nulls:
        raise ValidationFailed(
            f"Invalid {nulls[0]}: may not be null",
            details=[{"field": name, "message": "may not be null"} for name in nulls],
        )


def _check_dates(start: date | None, end: date | None) -> None:
    if start is not None and end is not None and end < start:
        raise InvalidField("endDate", "must be on or after startDate")


def _settings(project: Project) -> dict[str, Any]:
    """The project's modules, client visibility and operations mode."""
    return {
        "projectId": project.id,
        "operationsMode": project.operations_mode,
        "modules": _modules(project),
        "clientVisibility": _visibility(project),
    }


class ProjectService:
    async def list_visible(
        self, db: AsyncSession, ctx: WorkspaceContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Newest first. Externals and restricted members see only the projects naming them
        (the same rule as ``load_project``, so a listed project always opens)."""
        membership = ctx.membership
        named_only = membership.is_external or membership.restricted
        rows = await repository.list_projects(
            db,
            workspace_id=ctx.workspace.id,
            named_for=membership.user_id if named_only else None,
            page=page,
        )
        rows, headers = page.finish(rows)
        return [repository.FIELDS.row(row) for row in rows], headers

    async def create(
        self, db: AsyncSession, ctx: WorkspaceContext, data: ProjectCreate
    ) -> dict[str, Any]:
        """A project (the plan must include records); a restricted creator is named on it."""
        require_feature(ctx.workspace, Feature.RECORDS, write=True)
        _check_dates(data.start_date, data.end_date)
        now = clock.now()
        project = Project(
            workspace_id=ctx.workspace.id,
            name=data.name,
            location=data.location,
            currency=data.currency,
            stage=data.stage,
            start_date=data.start_date,
            end_date=data.end_date,
            project_number=data.project_number,
            timezone=data.timezone,
            operations_mode=False,
            modules={},
            client_visibility={},
            settings={},
            created_by=ctx.user_id,
            created_at=now,
            updated_at=now,
        )
        db.add(project)
        await db.flush()
        if ctx.membership.restricted:
            # A restricted manager keeps access to the project they have just created.
            db.add(
                ProjectMember(
                    project_id=project.id,
                    user_id=ctx.user_id,
                    workspace_id=ctx.workspace.id,
                    project_role=None,
                    created_at=now,
                )
            )
        await audit_as(
            db,
            ctx.principal,
            ("project", project.id),
            "project.created",
            created(_audited(project)),
            workspace_id=ctx.workspace.id,
            project_id=project.id,
        )
        return project_dict(project)

    def read(self, ctx: ProjectContext) -> dict[str, Any]:
        """The project the caller may see."""
        return project_dict(ctx.project)

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, data: ProjectUpdate
    ) -> dict[str, Any]:
        """Edit the project (no nulls in required fields, end not before start); audited."""
        sent = data.model_dump(exclude_unset=True)
        _reject_nulls(sent, _NOT_NULL)
        require_feature(ctx.workspace, Feature.RECORDS, write=True)
        project = await tracked(db, ctx.project)
        _check_dates(
            sent.get("start_date", project.start_date), sent.get("end_date", project.end_date)
        )
        before = _audited(project)
        for attr, value in sent.items():
            setattr(project, attr, value)
        after = _audited(project)
        await audit_update(db, ctx, ("project", project), "project.updated", before, after)
        return project_dict(project)

    async def delete(self, db: AsyncSession, ctx: ProjectContext) -> None:
        """Soft delete: the project leaves every list and read; its rows stay for restores."""
        project = await tracked(db, ctx.project)
        now = clock.now()
        project.deleted_at = now
        project.updated_at = now
        await audit_stamp(db, ctx, ("project", project.id), "project.deleted", "deletedAt", now)

    def session(self, ctx: ProjectContext) -> dict[str, Any]:
        """What the caller may do here: role, permissions, modules, visibility and plan."""
        project = ctx.project
        return {
            "projectId": project.id,
            "workspaceId": project.workspace_id,
            "role": ctx.role,
            "projectRole": ctx.project_role,
            "isExternal": ctx.is_external,
            "permissions": sorted(str(permission) for permission in ctx.permissions),
            "modules": _modules(project),
            "clientVisibility": _visibility(project),
            "plan": effective_plan(ctx.workspace),
        }

    def settings(self, ctx: ProjectContext) -> dict[str, Any]:
        """The project's modules, client visibility and operations mode."""
        return _settings(ctx.project)

    async def update_settings(
        self, db: AsyncSession, ctx: ProjectContext, data: ProjectSettingsUpdate
    ) -> dict[str, Any]:
        """Merge the sent modules and visibility switches into the project's; audited."""
        sent = data.model_dump(exclude_unset=True)
        _reject_nulls(sent, ("modules", "client_visibility", "operations_mode"))
        require_feature(ctx.workspace, Feature.RECORDS, write=True)
        project = await tracked(db, ctx.project)
        before = _flat_settings(_settings(project))
        if "modules" in sent:
            project.modules = {**project.modules, **sent["modules"]}
        if "client_visibility" in sent:
            project.client_visibility = {**project.client_visibility, **sent["client_visibility"]}
        if "operations_mode" in sent:
            project.operations_mode = sent["operations_mode"]
        result = _settings(project)
        after = _flat_settings(result)
        await audit_update(db, ctx, ("project", project), "project.settings_updated", before, after)
        return result

    async def team(
        self, db: AsyncSession, ctx: ProjectContext, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Everyone who can see the project, most recently joined first. An external
        collaborator sees the internal members who can see it and themselves, no e-mail but
        their own: clients and contractors learn who runs the project, not how to reach each
        member or who the other externals are (``/workspaces/{w}/members`` refuses them)."""
        rows = await repository.list_team(
            db,
            workspace_id=ctx.project.workspace_id,
            project_id=ctx.project.id,
            page=page,
            external_viewer=ctx.user_id if ctx.is_external else None,
        )
        rows, headers = page.finish(rows)
        return [
            {
                "userId": user_id,
                "name": name,
                "email": email,
                "role": role,
                "projectRole": project_role,
                "isExternal": is_external,
            }
            for (_, user_id, name, email, role, project_role, is_external, _) in rows
        ], headers

    async def team_size(self, db: AsyncSession, ctx: ProjectContext) -> int:
        """How many see the project: those named on it and unrestricted internal members."""
        return await repository.count_team(
            db, workspace_id=ctx.project.workspace_id, project_id=ctx.project.id
        )

    async def remove_member(self, db: AsyncSession, ctx: ProjectContext, user_id: str) -> None:
        """Remove a user's named access; internal members without restrictions keep seeing it."""
        member_id, project_role = found(
            await repository.remove_named_access(db, project_id=ctx.project.id, user_id=user_id),
            "This user has no named access to the project",
        )
        await audit_change(
            db,
            ctx,
            ("project_member", member_id),
            "project.member_removed",
            {"userId": [user_id, None], "projectRole": [project_role, None]},
        )


def _flat_settings(settings: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {"operationsMode": settings["operationsMode"]}
    flat.update({f"modules.{k}": v for k, v in settings["modules"].items()})
    flat.update({f"clientVisibility.{k}": v for k, v in settings["clientVisibility"].items()})
    return flat


project = ProjectService()
