"""Access aliases of the punch routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.records import record_access

CanReadPunch = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_READ, scope="punch:read", module="punch")),
]
CanWritePunch = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_WRITE, scope="punch:write", module="punch")),
]
