"""Who may call the issue routes (PRODUCT §3, §4): scope, module switch, plan, permission."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.records import record_access

CanReadIssues = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_READ, scope="issues:read", module="issues")),
]
CanWriteIssues = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_WRITE, scope="issues:write", module="issues")),
]
# Clients may comment on the issues a project shares with them without write access to issues;
# the service requires write access from everyone else.
CanCommentIssues = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_READ, scope="issues:write", module="issues")),
]
