"""Access aliases of the punch routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.punch.service import punch
from plumbline.records import record_access, seen

CanReadPunch = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_READ, scope="punch:read", module="punch")),
]
CanWritePunch = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_WRITE, scope="punch:write", module="punch")),
]
# Routes with a body about one item: the item is looked up (404) before the body is read.
CanWritePunchItem = Annotated[ProjectContext, Depends(seen(CanWritePunch, punch.load, "punchId"))]
