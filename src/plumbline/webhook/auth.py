"""Webhooks are managed by ADMIN and SUPER_ADMIN with a session, or by an API key with the
``webhooks:read`` / ``webhooks:write`` scope."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

CanReadWebhooks = Annotated[
    ProjectContext,
    Depends(
        project_access(Permission.WEBHOOKS_MANAGE, scope="webhooks:read", feature=Feature.RECORDS)
    ),
]
CanWriteWebhooks = Annotated[
    ProjectContext,
    Depends(
        project_access(Permission.WEBHOOKS_MANAGE, scope="webhooks:write", feature=Feature.RECORDS)
    ),
]
