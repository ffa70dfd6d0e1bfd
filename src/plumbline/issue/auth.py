"""Who may call the issue routes (PRODUCT §3, §4): scope, module switch, plan, permission."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.issue.access import require_row
from plumbline.records import record_access, seen

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
# Routes with a body about one issue: the issue is looked up (404) before the body is read.
CanCommentIssue = Annotated[ProjectContext, Depends(seen(CanCommentIssues, require_row, "issueId"))]
CanWriteIssue = Annotated[ProjectContext, Depends(seen(CanWriteIssues, require_row, "issueId"))]
