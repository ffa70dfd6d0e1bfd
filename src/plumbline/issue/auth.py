"""Who may call the issue routes (PRODUCT §3, §4): scope, module switch, plan, permission."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

CanReadIssues = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_READ, scope="issues:read", module="issues", feature=Feature.RECORDS
        )
    ),
]
CanWriteIssues = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_WRITE, scope="issues:write", module="issues", feature=Feature.RECORDS
        )
    ),
]
# Clients may comment on the issues a project shares with them without write access to issues;
# the service requires write access from everyone else.
CanCommentIssues = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.RECORDS_READ, scope="issues:write", module="issues", feature=Feature.RECORDS
        )
    ),
]
