"""Access aliases of the field-report routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.field_report.errors import ExternalCannotWriteReports
from plumbline.records import record_access

CanReadFieldReports = Annotated[
    ProjectContext,
    Depends(
        record_access(Permission.RECORDS_READ, scope="field-reports:read", module="fieldReports")
    ),
]
# External collaborators read field reports but never write them (403).
CanWriteFieldReports = Annotated[
    ProjectContext,
    Depends(
        record_access(
            Permission.RECORDS_WRITE,
            scope="field-reports:write",
            module="fieldReports",
            externals=ExternalCannotWriteReports,
        )
    ),
]
