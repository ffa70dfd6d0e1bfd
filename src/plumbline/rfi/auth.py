"""Access aliases of the RFI routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden
from plumbline.records import record_access, seen
from plumbline.rfi.access import visible_rfi

CanReadRfi = Annotated[
    ProjectContext, Depends(record_access(Permission.RECORDS_READ, scope="rfi:read", module="rfi"))
]
CanWriteRfi = Annotated[
    ProjectContext,
    Depends(record_access(Permission.RECORDS_WRITE, scope="rfi:write", module="rfi")),
]
CanCreateRfi = Annotated[
    ProjectContext,
    Depends(
        record_access(
            Permission.RECORDS_WRITE,
            scope="rfi:write",
            module="rfi",
            externals=lambda: Forbidden("External collaborators cannot create RFIs"),
        )
    ),
]
# Posting a message is a write for keys, but clients (read-only otherwise) may comment too:
# the service decides who may post on the RFI it found.
CanPostRfiMessage = Annotated[
    ProjectContext, Depends(record_access(Permission.RECORDS_READ, scope="rfi:write", module="rfi"))
]
# Routes with a body about one RFI: the RFI is looked up (404) before the body is read.
CanPostOnRfi = Annotated[ProjectContext, Depends(seen(CanPostRfiMessage, visible_rfi, "rfiId"))]
CanWriteOneRfi = Annotated[ProjectContext, Depends(seen(CanWriteRfi, visible_rfi, "rfiId"))]
