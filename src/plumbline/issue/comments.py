"""Comments on issues: GET/POST /projects/{p}/issues/{id}/comments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from plumbline.audit.service import audit_change
from plumbline.authz.permissions import Permission, ProjectRole
from plumbline.authz.project import ProjectContext
from plumbline.errors import Forbidden
from plumbline.events.readers import reader
from plumbline.issue import repository as repo
from plumbline.issue.access import require_row
from plumbline.issue.schemas import CommentCreate
from plumbline.kit import clock
from plumbline.kit.clock import iso
from plumbline.kit.ids import new_id
from plumbline.kit.pagination import PageParams
from plumbline.notification.service import notification


def comment_dict(row: Sequence[Any]) -> dict[str, Any]:
    id_, issue_id, body, author_id, author_name, created_at = row
    return {
        "id": id_,
        "issueId": issue_id,
        "body": body,
        "authorId": author_id,
        "authorName": (author_name or "Unknown user") if author_id is not None else "API key",
        "createdAt": iso(created_at),
    }


@reader("comment")
async def comments_as_read(db: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    return {row[0]: comment_dict(row) for row in await repo.comments_by_id(db, ids)}


class IssueCommentService:
    async def list_comments(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, page: PageParams
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """Newest first, like every list."""
        await require_row(db, ctx, issue_id)
        rows, headers = page.finish(await repo.list_comments(db, issue_id, page))
        return [comment_dict(row) for row in rows], headers

    async def add(
        self, db: AsyncSession, ctx: ProjectContext, issue_id: str, body: CommentCreate
    ) -> dict[str, Any]:
        """Anyone who may edit the issue comments, and a client on issues shared with them;
        the creator and the assignee are notified, never the author."""
        issue = await require_row(db, ctx, issue_id)
        if not (ctx.can(Permission.RECORDS_WRITE) or ctx.project_role == ProjectRole.CLIENT):
            raise Forbidden()
        user = ctx.principal.user
        values = {
            "id": new_id(),
            "issue_id": issue.id,
            "project_id": ctx.project.id,
            "workspace_id": ctx.workspace.id,
            "body": body.body,
            "author_id": ctx.user_id,
            "author_key_id": ctx.principal.key_id,
            "created_at": clock.now(),
        }
        await repo.insert_comment(db, values)
        changes = {"commentId": [None, values["id"]], "comment": [None, body.body]}
        await audit_change(db, ctx, ("issue", issue.id), "issue.commented", changes)
        await notification.notify(
            db,
            [issue.created_by, issue.assignee_id],
            kind="ISSUE_COMMENTED",
            title=f"New comment on issue #{issue.number}: {issue.title}",
            body=body.body[:500],
            href=f"/projects/{ctx.project.id}/issues/{issue.id}",
            workspace_id=ctx.workspace.id,
            project_id=ctx.project.id,
            actor_id=ctx.user_id,
        )
        author = user.name if user else None
        return comment_dict(
            (values["id"], issue.id, body.body, ctx.user_id, author, values["created_at"])
        )


issue_comments = IssueCommentService()
