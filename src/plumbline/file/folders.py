"""Folders of a project: a tree without cycles; sibling names unique regardless of case.

Standard trees for ``apply-structure`` (existing folders of the same name are kept, not
duplicated):

- ``construction-standard``: Drawings (Architectural, Structural, MEP, Civil), Specifications,
  Submittals, RFIs, Photos, Reports, Contracts.
- ``fm-handover``: O&M Manuals, As-Built Drawings (Architectural, Structural, MEP),
  Warranties, Certificates, Asset Register, Commissioning, Health & Safety File, Photos.
- ``design-phase``: Concept, Schematic Design, Design Development, Construction Documents,
  Consultants (Structural, MEP, Civil, Landscape), Meeting Minutes, Client Briefs, Renderings.

Permissions: create with FILES_UPLOAD (anyone who uploads may organise); rename by the folder's
creator or FILES_MANAGE; move, delete and apply-structure with FILES_MANAGE (MANAGER+)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change, created, diff
from plumbline.authz.files import can, require
from plumbline.authz.permissions import Permission
from plumbline.authz.project import ProjectContext
from plumbline.db import UnitOfWork
from plumbline.errors import Forbidden
from plumbline.file import repository
from plumbline.file.errors import FolderCycle, FolderNotEmpty, NameTaken
from plumbline.file.files import project_folder, remove_files
from plumbline.file.schemas import ApplyStructure, FolderCreate, FolderRead, FolderUpdate, answer
from plumbline.kit import clock
from plumbline.kit.pagination import PageParams
from plumbline.models import Folder
from plumbline.records import add_record, references
from plumbline.records.references import FOLDER

Tree = list[tuple[str, "Tree"]]

TEMPLATES: dict[str, Tree] = {
    "construction-standard": [
        (
            "Drawings",
            [("Architectural", []), ("Structural", []), ("MEP", []), ("Civil", [])],
        ),
        ("Specifications", []),
        ("Submittals", []),
        ("RFIs", []),
        ("Photos", []),
        ("Reports", []),
        ("Contracts", []),
    ],
    "fm-handover": [
        ("O&M Manuals", []),
        ("As-Built Drawings", [("Architectural", []), ("Structural", []), ("MEP", [])]),
        ("Warranties", []),
        ("Certificates", []),
        ("Asset Register", []),
        ("Commissioning", []),
        ("Health & Safety File", []),
        ("Photos", []),
    ],
    "design-phase": [
        ("Concept", []),
        ("Schematic Design", []),
        ("Design Development", []),
        ("Construction Documents", []),
        (
            "Consultants",
            [("Structural", []), ("MEP", []), ("Civil", []), ("Landscape", [])],
        ),
        ("Meeting Minutes", []),
        ("Client Briefs", []),
        ("Renderings", []),
    ],
}


def folder_dict(row: Any) -> dict[str, Any]:
    return answer(FolderRead, row)


class FolderService:
    async def list(
        self, db: AsyncSession, ctx: ProjectContext, parent_id: str | None, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """All folders (a flat tree: rebuild it with ``parentId``), or the children of
        ``parentId`` (``root`` for the top level)."""
        root = parent_id == "root"
        rows = await repository.list_folders(
            db, ctx.project.id, None if root else parent_id, page, root=root
        )
        rows, headers = page.finish(rows)
        return [folder_dict(r) for r in rows], headers

    async def create(
        self, db: AsyncSession, ctx: ProjectContext, body: FolderCreate
    ) -> dict[str, Any]:
        """A folder under an existing parent; sibling names are unique regardless of case."""
        await references.require(db, ctx, FOLDER, "parentId", body.parent_id)
        if await repository.sibling_named(db, ctx.project.id, body.parent_id, body.name, None):
            raise NameTaken()
        folder = await add_record(db, ctx, Folder, name=body.name, parent_id=body.parent_id)
        await audit_change(
            db,
            ctx,
            ("folder", folder.id),
            "folder.created",
            created({"name": folder.name, "parentId": folder.parent_id}),
        )
        return folder_dict(folder)

    async def update(
        self, db: AsyncSession, ctx: ProjectContext, folder_id: str, body: FolderUpdate
    ) -> dict[str, Any]:
        """Rename: the folder's creator or FILES_MANAGE; move: FILES_MANAGE, never under itself."""
        folder = await project_folder(db, ctx.project.id, folder_id)
        before = {"name": folder.name, "parentId": folder.parent_id}
        moving = "parent_id" in body.model_fields_set and body.parent_id != folder.parent_id
        if moving:
            require(ctx, Permission.FILES_MANAGE)
        elif body.name is not None and not (
            can(ctx, Permission.FILES_MANAGE)
            or (ctx.user_id is not None and folder.created_by == ctx.user_id)
        ):
            raise Forbidden("Only the folder's creator or a manager can rename it")
        parent_id = body.parent_id if moving else folder.parent_id
        if moving:
            await references.require(db, ctx, FOLDER, "parentId", parent_id)
            parents = {
                row.id: row.parent_id for row in await repository.folder_tree(db, ctx.project.id)
            }
            cursor: str | None = parent_id
            while cursor is not None:
                if cursor == folder.id:
                    raise FolderCycle()
                cursor = parents.get(cursor)
        name = body.name if body.name is not None else folder.name
        if (moving or name.lower() != folder.name.lower()) and await repository.sibling_named(
            db, ctx.project.id, parent_id, name, folder.id
        ):
            raise NameTaken()
        folder.name, folder.parent_id, folder.updated_at = name, parent_id, clock.now()
        await db.flush()
        await audit_change(
            db,
            ctx,
            ("folder", folder.id),
            "folder.updated",
            diff(before, {"name": folder.name, "parentId": folder.parent_id}),
        )
        return folder_dict(folder)

    async def delete(
        self, uow: UnitOfWork, ctx: ProjectContext, folder_id: str, *, recursive: bool
    ) -> None:
        """Delete an empty folder; ``recursive`` also deletes its subfolders and soft-deletes
        their files (freeing their storage; refused while another user locks a version)."""
        db = uow.session
        folder = await project_folder(db, ctx.project.id, folder_id)
        if not recursive:
            if not await repository.folder_is_empty(db, folder.id):
                raise FolderNotEmpty()
            await repository.delete_folders(db, [folder.id])
        else:
            children: dict[str | None, list[str]] = defaultdict(list)
            for row in await repository.folder_tree(db, ctx.project.id):
                children[row.parent_id].append(row.id)
            subtree, stack = [], [folder.id]
            while stack:
                current = stack.pop()
                subtree.append(current)
                stack.extend(children.get(current, []))
            file_ids = await repository.live_files_in_folders(db, subtree)
            await remove_files(uow, ctx, file_ids)
            await repository.delete_folders(db, subtree)
        await audit_change(
            db,
            ctx,
            ("folder", folder.id),
            "folder.deleted",
            {"name": [folder.name, None], "recursive": [None, recursive]},
        )

    async def apply_structure(
        self, db: AsyncSession, ctx: ProjectContext, body: ApplyStructure
    ) -> dict[str, Any]:
        """Create a standard tree, keeping folders that already exist by name; FILES_MANAGE."""
        await references.require(db, ctx, FOLDER, "parentId", body.parent_id)
        by_parent: dict[tuple[str | None, str], str] = {
            (row.parent_id, row.name.lower()): row.id
            for row in await repository.folder_tree(db, ctx.project.id)
        }
        made: list[Folder] = []
        skipped = 0

        async def build(tree: Tree, parent_id: str | None) -> None:
            nonlocal skipped
            for name, subtree in tree:
                existing = by_parent.get((parent_id, name.lower()))
                if existing is None:
                    folder = await add_record(db, ctx, Folder, name=name, parent_id=parent_id)
                    made.append(folder)
                    existing = by_parent[(parent_id, name.lower())] = folder.id
                else:
                    skipped += 1
                await build(subtree, existing)

        await build(TEMPLATES[body.template], body.parent_id)
        await audit_change(
            db,
            ctx,
            ("project", ctx.project.id),
            "folder.structure_applied",
            {"template": [None, body.template], "created": [None, len(made)]},
        )
        return {
            "template": body.template,
            "created": [folder_dict(f) for f in made],
            "skipped": skipped,
        }


folders = FolderService()
