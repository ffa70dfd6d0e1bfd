"""Who may use the drawing AI on a file version: a signed-in user who can read the version
(``plumbline.authz.files``: 404 for versions they cannot see), in a workspace whose plan has
``Feature.DRAWING_AI`` (pro and up). API keys are refused: the assistant is a person's tool.

Running it (summary, chat, takeoff) is for the project team: a CLIENT collaborator, who reads
shared drawings and writes nothing, gets 403; they may read what was computed (sheet-cache)."""

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends

from plumbline.authz.files import VersionAccess, version_access
from plumbline.authz.permissions import Permission
from plumbline.authz.plans import Feature, gated, require_feature
from plumbline.drawing_ai.errors import ClientsCannotRunDrawingAI

_read = version_access(Permission.FILES_READ)


def _drawing_ai(*, run: bool) -> Callable[..., Awaitable[VersionAccess]]:
    async def dependency(access: Annotated[VersionAccess, Depends(_read)]) -> VersionAccess:
        # Reading a sheet changes nothing the workspace owns: a lapsed subscription keeps it.
        require_feature(access.ctx.workspace, Feature.DRAWING_AI, write=False)
        if run and not access.ctx.can(Permission.FILES_READ):
            raise ClientsCannotRunDrawingAI()
        return access

    return gated(dependency, Feature.DRAWING_AI)


CanRunDrawingAI = Annotated[VersionAccess, Depends(_drawing_ai(run=True))]
CanReadSheetResults = Annotated[VersionAccess, Depends(_drawing_ai(run=False))]
