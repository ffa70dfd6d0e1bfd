"""The Permission enum and the role map of PRODUCT §4."""

from enum import StrEnum

from plumbline.errors import Forbidden


class Role(StrEnum):
    SUPER_ADMIN = "SUPER_ADMIN"
    ADMIN = "ADMIN"
    MANAGER = "MANAGER"
    MEMBER = "MEMBER"


class ProjectRole(StrEnum):
    CLIENT = "CLIENT"
    CONTRACTOR = "CONTRACTOR"
    SUBCONTRACTOR = "SUBCONTRACTOR"


class Permission(StrEnum):
    WORKSPACE_UPDATE = "workspace:update"
    WORKSPACE_DELETE = "workspace:delete"
    BILLING_MANAGE = "billing:manage"
    MEMBERS_MANAGE = "members:manage"
    PROJECT_CREATE = "project:create"
    PROJECT_READ = "project:read"
    PROJECT_UPDATE = "project:update"
    PROJECT_DELETE = "project:delete"
    API_KEYS_MANAGE = "api-keys:manage"
    AUDIT_READ = "audit:read"
    AUDIT_EXPORT = "audit:export"
    RECORDS_READ = "records:read"
    RECORDS_WRITE = "records:write"
    RECORDS_DELETE_ANY = "records:delete-any"
    RECORDS_DELETE_OWN = "records:delete-own"
    RECORDS_CLOSE = "records:close"
    FILES_READ = "files:read"
    FILES_UPLOAD = "files:upload"
    FILES_MANAGE = "files:manage"
    OM_SETUP = "om:setup"
    OM_WORK = "om:work"
    SCHEDULE_WRITE = "schedule:write"
    MATERIALS_WRITE = "materials:write"
    PROPOSAL_TEMPLATES_WRITE = "proposal-templates:write"
    MATERIALS_READ = "materials:read"
    WEBHOOKS_MANAGE = "webhooks:manage"


_MEMBER = {
    Permission.PROJECT_READ,
    Permission.RECORDS_READ,
    Permission.RECORDS_WRITE,
    Permission.RECORDS_DELETE_OWN,
    Permission.FILES_READ,
    Permission.FILES_UPLOAD,
    Permission.OM_WORK,
    Permission.MATERIALS_READ,
}
_MANAGER = _MEMBER | {
    Permission.PROJECT_CREATE,
    Permission.PROJECT_UPDATE,
    Permission.AUDIT_READ,
    Permission.RECORDS_DELETE_ANY,
    Permission.RECORDS_CLOSE,
    Permission.FILES_MANAGE,
    Permission.OM_SETUP,
    Permission.SCHEDULE_WRITE,
    Permission.MATERIALS_WRITE,
    Permission.PROPOSAL_TEMPLATES_WRITE,
}
_ADMIN = _MANAGER | {
    Permission.WORKSPACE_UPDATE,
    Permission.MEMBERS_MANAGE,
    Permission.PROJECT_DELETE,
    Permission.API_KEYS_MANAGE,
    Permission.AUDIT_EXPORT,
    Permission.WEBHOOKS_MANAGE,
}
_SUPER_ADMIN = _ADMIN | {Permission.WORKSPACE_DELETE, Permission.BILLING_MANAGE}

ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    Role.MEMBER: frozenset(_MEMBER),
    Role.MANAGER: frozenset(_MANAGER),
    Role.ADMIN: frozenset(_ADMIN),
    Role.SUPER_ADMIN: frozenset(_SUPER_ADMIN),
}

# External collaborators: CONTRACTOR/SUBCONTRACTOR create issues and punch and update what is
# assigned to them (the record services check the assignment); CLIENT reads what the project's
# client visibility allows and comments.
_CONTRIBUTOR = frozenset(
    {Permission.PROJECT_READ, Permission.RECORDS_READ, Permission.RECORDS_WRITE, Permission.OM_WORK}
)
EXTERNAL_PERMISSIONS: dict[ProjectRole, frozenset[Permission]] = {
    ProjectRole.CONTRACTOR: _CONTRIBUTOR,
    ProjectRole.SUBCONTRACTOR: _CONTRIBUTOR,
    ProjectRole.CLIENT: frozenset({Permission.PROJECT_READ, Permission.RECORDS_READ}),
}


def permissions_for(
    role: str, project_role: str | None, is_external: bool
) -> frozenset[Permission]:
    if is_external:
        return (
            EXTERNAL_PERMISSIONS.get(ProjectRole(project_role), frozenset())
            if project_role
            else frozenset()
        )
    return ROLE_PERMISSIONS[Role(role)]


SCOPES = (
    "project:read",
    "issues:read",
    "issues:write",
    "rfi:read",
    "rfi:write",
    "punch:read",
    "punch:write",
    "field-reports:read",
    "field-reports:write",
    "proposals:read",
    "proposals:write",
    "om:read",
    "om:write",
    "schedule:read",
    "schedule:write",
    "files:read",
    "files:write",
    "audit:read",
    "webhooks:read",
    "webhooks:write",
)


class Permits:
    """``can``/``require`` over the ``permissions`` a caller's context holds."""

    permissions: frozenset[Permission]

    def can(self, permission: Permission) -> bool:
        return permission in self.permissions

    def require(self, permission: Permission) -> None:
        if permission not in self.permissions:
            raise Forbidden()
