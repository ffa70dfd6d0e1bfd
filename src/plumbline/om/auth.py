"""Who may call the O&M routes (PRODUCT §4, §9): the one place of the O&M access aliases.

Every O&M route: scope ``om:read``/``om:write``, the project's ``om`` module (on with
``operationsMode``), the enterprise plan (``Feature.OM``) when billing is on, then the role:
MANAGER+ sets up assets, schedules and inspection templates (``OM_SETUP``); MEMBER and assigned
contractors work on work orders and inspection runs (``OM_WORK``)."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access
from plumbline.authz.workspace import WorkspaceContext, workspace_access
from plumbline.errors import AppError, Forbidden

MODULE = "om"


class MoneyInternal(
    Forbidden,
    message="The project's costs, prices, stock ledger and purchase orders are for the "
    "project team: contractors see the costs of their own work orders",
): ...


def om_access(
    permission: Permission, scope: str, externals: Callable[[], AppError] | None = None
) -> Callable[..., Awaitable[ProjectContext]]:
    """``project_access`` behind the ``om`` module and the enterprise plan."""
    return project_access(
        permission, scope=scope, module=MODULE, feature=Feature.OM, externals=externals
    )


# Read the project's O&M (assets, schedules, templates, runs, dashboard): whoever may work on
# it, so internal members and contractors, not clients.
CanReadOm = Annotated[ProjectContext, Depends(om_access(Permission.OM_WORK, scope="om:read"))]
# The project's money (docs/decisions.md, "Who sees maintenance money"): the cost list, the stock
# ledger, purchase orders and reliability reports; the team only (externals 403).
CanReadOmMoney = Annotated[
    ProjectContext,
    Depends(om_access(Permission.OM_WORK, scope="om:read", externals=MoneyInternal)),
]
# Work on work orders and inspection runs, record meter readings and completions.
CanWorkOm = Annotated[ProjectContext, Depends(om_access(Permission.OM_WORK, scope="om:write"))]
# Set up assets, maintenance schedules and inspection templates (MANAGER+).
CanSetupOm = Annotated[ProjectContext, Depends(om_access(Permission.OM_SETUP, scope="om:write"))]

# The workspace's parts catalogue and vendors: internal members read them, MANAGER+ writes
# them (session users: workspace routes take no project API keys).
CanReadOmWorkspace = Annotated[
    WorkspaceContext, Depends(workspace_access(Permission.OM_WORK, feature=Feature.OM))
]
CanSetupOmWorkspace = Annotated[
    WorkspaceContext, Depends(workspace_access(Permission.OM_SETUP, feature=Feature.OM))
]
