"""Who may open the issue pages and act on them: the JSON routes' own rules, for a person
(``scope=None``: never an API key)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access


def _access(permission: Permission) -> object:
    return Depends(project_access(permission, scope=None, module="issues", feature=Feature.RECORDS))


ReadIssues = Annotated[ProjectContext, _access(Permission.RECORDS_READ)]
WriteIssues = Annotated[ProjectContext, _access(Permission.RECORDS_WRITE)]


def issues_path(ctx: ProjectContext) -> str:
    return f"/app/projects/{ctx.project.id}/issues"
