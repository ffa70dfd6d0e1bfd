"""Access aliases of the schedule routes."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends

from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature
from plumbline.authz.project import ProjectContext, project_access


def _access(permission: Permission, scope: str) -> Callable[..., Awaitable[ProjectContext]]:
    return project_access(permission, scope=scope, module="schedule", feature=Feature.SCHEDULE)


# Everyone who sees the project reads its schedule (contractors included: it is the timeline
# they work to), except CLIENTs of a project that does not share it (``showSchedule``, checked
# by the service); MANAGER and above, and keys with schedule:write, replace it.
CanReadSchedule = Annotated[
    ProjectContext, Depends(_access(Permission.PROJECT_READ, "schedule:read"))
]
CanWriteSchedule = Annotated[
    ProjectContext, Depends(_access(Permission.SCHEDULE_WRITE, "schedule:write"))
]
