"""Access aliases of the materials routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.workspace import WorkspaceContext, workspace_access

# Internal members read the catalogue (externals do not: it holds supplier prices); MANAGER
# and above write it. Session users only: workspace routes take no project API keys.
CanReadMaterials = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.MATERIALS_READ, feature=Feature.MATERIALS_READ)),
]
CanWriteMaterials = Annotated[
    WorkspaceContext,
    Depends(workspace_access(Permission.MATERIALS_WRITE, feature=Feature.MATERIALS_WRITE)),
]
