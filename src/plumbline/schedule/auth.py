"""Access aliases of the schedule routes."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access

# Everyone who sees the project reads its schedule (contractors included: it is the timeline
# they work to), except CLIENTs of a project that does not share it (``showSchedule``, checked
# by the service); MANAGER and above, and keys with schedule:write, replace it.
CanReadSchedule = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.PROJECT_READ,
            scope="schedule:read",
            module="schedule",
            feature=Feature.SCHEDULE,
        )
    ),
]
CanWriteSchedule = Annotated[
    ProjectContext,
    Depends(
        project_access(
            Permission.SCHEDULE_WRITE,
            scope="schedule:write",
            module="schedule",
            feature=Feature.SCHEDULE,
        )
    ),
]
