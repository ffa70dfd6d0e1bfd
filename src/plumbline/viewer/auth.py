"""Access aliases of the viewer routes (the rules, clients' included, are in ``authz.files``)."""

from typing import Annotated

from fastapi import Depends

from plumbline.authz.files import VersionAccess, version_access
from plumbline.authz.permissions import Permission

# Reading the markups also takes an API key with files:read.
CanReadViewerState = Annotated[
    VersionAccess, Depends(version_access(Permission.FILES_READ, keys=True))
]
# Co-viewing (events, heartbeat, leave) is a read.
CanViewVersion = Annotated[VersionAccess, Depends(version_access(Permission.FILES_READ))]
# Saving markups, locking and ending the co-viewing session for everyone write.
CanWriteVersion = Annotated[VersionAccess, Depends(version_access(Permission.FILES_UPLOAD))]
