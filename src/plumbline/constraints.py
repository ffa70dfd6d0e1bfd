"""The database constraints a request may hit, each with the conflict it means.

Services check these rules before writing; the constraint still decides when two requests race
past the check at once (on PostgreSQL: SQLite's writers take turns, and its foreign-key errors
name no constraint). A violation not listed here is a bug, answered 500 by the request
middleware. ``tests/app/test_unit_of_work_given.py`` walks the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sqlalchemy import PrimaryKeyConstraint, UniqueConstraint
from sqlalchemy.exc import IntegrityError

from plumbline.db import Base
from plumbline.errors import Conflict
from plumbline.identity.errors import UserAlreadyExists
from plumbline.issue.errors import ExternalIdTaken as IssueExternalIdTaken
from plumbline.material.errors import ExternalIdTaken as MaterialExternalIdTaken
from plumbline.material.errors import SkuTaken
from plumbline.member.errors import AlreadyMember
from plumbline.occupant.errors import AlreadyReported
from plumbline.om.errors import AlreadyCompleted, AssetExternalIdTaken, TagTaken
from plumbline.om.parts.errors import SkuTaken as PartSkuTaken
from plumbline.proposal.templates.errors import TemplateNameTaken
from plumbline.workspace.errors import SlugTaken

EXPECTED: dict[str, Callable[[], Conflict]] = {
    "uq_materials_workspace_id_sku": SkuTaken,
    "uq_users_email": UserAlreadyExists,
    "uq_workspaces_slug": SlugTaken,
    "uq_memberships_workspace_id_user_id": AlreadyMember,
    "uq_project_members_project_id_user_id": lambda: Conflict(
        "This member's project access was changed by another request at the same time"
    ),
    "pk_rfi_assignees": lambda: Conflict(
        "The RFI's responders were changed by another request at the same time"
    ),
    "pk_punch_item_assignees": lambda: Conflict(
        "The punch item's assignees were changed by another request at the same time"
    ),
    # folders are deleted for good, possibly while another request puts something in them
    "fk_folders_parent_id_folders": lambda: Conflict(
        "The parent folder was deleted by another request at the same time"
    ),
    "fk_files_folder_id_folders": lambda: Conflict(
        "The folder was deleted by another request at the same time"
    ),
    # a partial unique index: tags are unique among a project's live assets
    "uq_assets_project_tag_live": TagTaken,
    # the caller's keys (externalId): two creates of one key at once, a bulk upsert's included
    "uq_issues_project_external_id_live": IssueExternalIdTaken,
    "uq_assets_project_external_id_live": AssetExternalIdTaken,
    "uq_materials_workspace_id_external_id": MaterialExternalIdTaken,
    # one completion per work order: resolving twice at once completes the schedule once
    "uq_maintenance_completions_work_order_id": AlreadyCompleted,
    "uq_proposal_templates_workspace_id_name": TemplateNameTaken,
    # the reporting page's form, sent twice at once: its tracking token is derived from the form
    "uq_occupant_requests_tracking_token_hash": AlreadyReported,
    "uq_cloud_connections_user_id_provider": lambda: Conflict(
        "This account was connected by another request at the same time"
    ),
    "uq_om_parts_workspace_sku_live": PartSkuTaken,
    # one running timer per person: two starts at once
    "uq_om_work_order_costs_running": lambda: Conflict(
        "A timer of yours was started by another request at the same time"
    ),
    "pk_om_labour_rates": lambda: Conflict(
        "This labour rate was set by another request at the same time"
    ),
    # single sign-on: two workspaces claiming a domain, two first sign-ins of one person at once
    "uq_sso_domains_domain": lambda: Conflict(
        "Another workspace claimed this e-mail domain at the same time"
    ),
    "uq_sso_configs_workspace_id": lambda: Conflict(
        "Single sign-on was configured by another request at the same time"
    ),
    "uq_external_identities_issuer_subject": lambda: Conflict(
        "This person signed in in another request at the same time: sign in again"
    ),
    # SCIM: one account provisioned twice at once (the SCIM route answers it as uniqueness)
    "uq_scim_users_workspace_id_user_id": lambda: Conflict("This person is already provisioned"),
}

# SQLite names the columns of a unique constraint, not the constraint
_SQLITE_UNIQUE = re.compile(r"UNIQUE constraint failed: (\w+)\.(\w+(?:, \w+\.\w+)*)")


def conflict_for(error: IntegrityError) -> Conflict | None:
    """The conflict an expected constraint's violation means; None for any other."""
    name = constraint_name(error)
    make = EXPECTED.get(name) if name else None
    return make() if make else None


def constraint_name(error: IntegrityError) -> str | None:
    # SQLAlchemy's asyncpg adapter raises from asyncpg's own error, which names the constraint
    named = getattr(error.orig.__cause__, "constraint_name", None) if error.orig else None
    if isinstance(named, str):
        return named
    found = _SQLITE_UNIQUE.search(str(error.orig))
    if found is None:
        return None
    table = Base.metadata.tables.get(found.group(1))
    columns = {part.rsplit(".", 1)[-1] for part in found.group(2).split(", ")}
    for constraint in table.constraints if table is not None else ():
        if isinstance(constraint, UniqueConstraint | PrimaryKeyConstraint) and (
            {column.name for column in constraint.columns} == columns
        ):
            return str(constraint.name)
    for index in table.indexes if table is not None else ():  # partial unique indexes
        if index.unique and {column.name for column in index.columns} == columns:
            return str(index.name)
    return None
