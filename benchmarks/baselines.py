"""Raw baselines: bare ASGI apps on asyncpg and orjson doing by hand the work of the routes they
are measured against (``benchmarks.projects`` and ``benchmarks.issues`` serve them with uvicorn).

Each one does the same logical work as its route: the same statements in the same order (same
tables, joins and conditions; where the app loads whole ORM entities for the credential and
access check, the baseline reads the columns it needs) and the same per-row formatting code, so
the ratio measures what FastAPI, SQLAlchemy and the app's layers add around identical work.
Reads run without a transaction, writes in one.

``projects_app``, GET /workspaces/{w}/projects, session cookie:
  1. the cookie's HMAC; one statement reads the live session, its user and the caller's
     membership of the live workspace: 401 without a session, 403 for an unverified e-mail,
     404 for a non-member; the sliding expiry is written (at most daily), as the app does;
  2. the list: live projects (only the ones naming the caller for external and restricted
     members), newest first, limit + 1 rows, ``Link`` header when there are more.

``issues_app``, GET and POST /projects/{p}/issues, ``x-api-key``:
  1. one statement reads the key by its hash with the live project and workspace: 401 for an
     unknown, revoked or expired key, 403 for a key of another project, 404 for a missing
     project, 403 without the ``issues:read``/``issues:write`` scope or with the issues module
     off; ``last_used_at`` is written when older than a minute, as the app does;
  2. GET: the list query (with whether each issue has reference photos), the same camelCase
     JSON, pin and checklist passed through as JSON text;
  3. POST: validates the body, then in one transaction (which also holds the key lookup):
     inserts the audit row, takes the next per-project number and inserts the issue in one
     statement (as the route does on PostgreSQL).
Both pools hold PLUMBLINE_DB_POOL_SIZE connections (10 unless set), as the app's does.
Plan gates are off for both sides (PLUMBLINE_BILLING unset); so are rate limits
(PLUMBLINE_RATE_LIMITS=false: 600 reads a minute per key otherwise).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode

import asyncpg
import orjson
import uuid_utils

SECRET = os.environ.get("PLUMBLINE_SECRET_KEY", "benchmark-secret").encode()
# The lists' page size, as ``plumbline.kit.pagination``: ``limit`` 1..1000, 100 when left out.
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
SESSION_DAYS = 30
REFRESH_AFTER = timedelta(days=1)
LAST_USED_PRECISION = timedelta(minutes=1)

# The app's pool size (PLUMBLINE_DB_POOL_SIZE), so both sides queue alike on contended rows.
POOL_SIZE = int(os.environ.get("PLUMBLINE_DB_POOL_SIZE", "10"))

_pool: asyncpg.Pool | None = None


def _new_id() -> str:
    return uuid_utils.uuid7().hex


def _iso(value: datetime | None) -> str | None:
    """What the app writes for a UTC instant, ``2026-11-21T09:30:00.123Z`` (``kit.clock.iso``)."""
    return None if value is None else value.isoformat(timespec="milliseconds")[:-6] + "Z"


_2 = [f"{i:02d}" for i in range(100)]
_3 = [f"{i:03d}" for i in range(1000)]
_4 = [f"{i:04d}" for i in range(10000)]


def _utc_iso(value: datetime) -> str:
    """The same, formatted by hand the way ``plumbline.kit.clock.iso`` does it (its
    zero-padded digits looked up)."""
    return (
        f"{_4[value.year]}-{_2[value.month]}-{_2[value.day]}"
        f"T{_2[value.hour]}:{_2[value.minute]}:{_2[value.second]}.{_3[value.microsecond // 1000]}Z"
    )


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _cookie(scope: dict[str, Any], name: str) -> str | None:
    for part in (_header(scope, b"cookie") or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _unsign(cookie: str) -> str | None:
    value, _, signature = cookie.rpartition(".")
    mac = hmac.new(SECRET, f"session:{value}".encode(), hashlib.sha256).digest()
    expected = base64.urlsafe_b64encode(mac).decode().rstrip("=")
    return value if value and hmac.compare_digest(signature, expected) else None


class Refused(Exception):
    """An error answer, ``{"error", "code"}`` with ``status``."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


class ListPage:
    """A list request's ``limit`` and its next page's ``Link`` header, written as the app's
    pagination writes them (the request's URL with ``cursor`` and ``limit`` replaced)."""

    def __init__(self, url: str, query: str) -> None:
        self.url = url
        self.params = parse_qsl(query, keep_blank_values=True)
        raw = dict(self.params).get("limit")
        if raw is None:
            self.limit = DEFAULT_LIMIT
        elif raw.isdigit() and 1 <= int(raw) <= MAX_LIMIT:
            self.limit = int(raw)
        else:
            raise Refused(400, "Invalid limit", "VALIDATION_FAILED")

    @classmethod
    def of(cls, scope: dict[str, Any]) -> ListPage:
        """From an ASGI scope: the URL as Starlette builds it (scheme, Host header, path)."""
        host = _header(scope, b"host") or "{}:{}".format(*scope["server"])
        url = f"{scope['scheme']}://{host}{scope.get('root_path', '')}{scope['path']}"
        return cls(url, scope["query_string"].decode("latin-1"))

    def link(self, last_id: str) -> tuple[bytes, bytes]:
        cursor = base64.urlsafe_b64encode(last_id.encode()).decode().rstrip("=")
        kept = [(k, v) for k, v in self.params if k not in ("cursor", "limit")]
        query = urlencode([*kept, ("cursor", cursor), ("limit", str(self.limit))])
        return b"link", f'<{self.url}?{query}>; rel="next"'.encode()


async def _send(
    send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or ()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _error(send: Any, status: int, message: str, code: str) -> None:
    await _send(send, status, orjson.dumps({"error": message, "code": code}))


async def _init_connection(conn: asyncpg.Connection) -> None:
    for name in ("json", "jsonb"):
        await conn.set_type_codec(
            name,
            encoder=lambda v: orjson.dumps(v).decode(),
            decoder=orjson.loads,
            schema="pg_catalog",
        )


async def _reset_connection(conn: asyncpg.Connection) -> None:
    """What SQLAlchemy's pool does to a returned connection: a rollback when a transaction is
    still open, nothing otherwise. asyncpg's own reset sends ``SELECT pg_advisory_unlock_all()``
    and more with every release, a round trip the app does not make."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


async def open_pool() -> asyncpg.Pool:
    """The baseline's pool: the app's size, orjson for JSON, SQLAlchemy's reset on release."""
    return await asyncpg.create_pool(
        os.environ["BENCH_DSN"],
        min_size=2,
        max_size=POOL_SIZE,
        init=_init_connection,
        reset=_reset_connection,
    )


async def _lifespan(receive: Any, send: Any) -> None:
    global _pool
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            _pool = await open_pool()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if _pool is not None:
                await _pool.close()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _body(receive: Any) -> bytes | None:
    """The request body, or None when the client went away first (wrk stopping)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


# ------------------------------------------------------------------ GET /workspaces/{w}/projects

SESSION_WORKSPACE_SQL = (
    "SELECT s.id, s.remember, s.updated_at, u.email_verified, m.user_id, m.is_external, "
    "m.restricted FROM sessions s JOIN users u ON u.id = s.user_id "
    "LEFT JOIN workspaces w ON w.id = $2 AND w.deleted_at IS NULL "
    "LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = u.id "
    "WHERE s.token_hash = $1 AND s.expires_at > $3"
)
REFRESH_SQL = "UPDATE sessions SET expires_at = $2, updated_at = $3 WHERE id = $1"
PROJECTS_SQL = (
    "SELECT id, workspace_id, name, stage, location, currency, start_date, end_date, "
    "project_number, timezone, operations_mode, created_at, updated_at FROM projects "
    "WHERE workspace_id = $1 AND deleted_at IS NULL {named} ORDER BY id DESC LIMIT $2"
)
NAMED_SQL = (
    "AND id IN (SELECT project_id FROM project_members WHERE user_id = $3 AND workspace_id = $1)"
)


async def list_projects(
    conn: Any, cookie: str | None, workspace_id: str, page: ListPage
) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    """The projects list's work on ``conn`` (an asyncpg connection, or anything with its
    ``fetchrow``/``fetch``/``execute``: ``benchmarks.floor`` runs it through SQLAlchemy too):
    the status, body and headers of the answer."""
    token = _unsign(cookie or "")
    if token is None:
        return 401, orjson.dumps({"error": "Authentication required", "code": "UNAUTHORIZED"}), []
    now = datetime.now(UTC)
    found = await conn.fetchrow(
        SESSION_WORKSPACE_SQL, hashlib.sha256(token.encode()).hexdigest(), workspace_id, now
    )
    if found is None:
        return 401, orjson.dumps({"error": "Authentication required", "code": "UNAUTHORIZED"}), []
    session_id, remember, updated_at, verified, member, external, restricted = found
    if not verified:
        error = {"error": "Email verification required", "code": "EMAIL_NOT_VERIFIED"}
        return 403, orjson.dumps(error), []
    if member is None:
        return 404, orjson.dumps({"error": "Workspace not found", "code": "NOT_FOUND"}), []
    if external or restricted:
        rows = await conn.fetch(
            PROJECTS_SQL.format(named=NAMED_SQL), workspace_id, page.limit + 1, member
        )
    else:
        rows = await conn.fetch(PROJECTS_SQL.format(named=""), workspace_id, page.limit + 1)
    if remember and updated_at < now - REFRESH_AFTER:
        await conn.execute(REFRESH_SQL, session_id, now + timedelta(days=SESSION_DAYS), now)
    headers = []
    if len(rows) > page.limit:
        rows = rows[: page.limit]
        headers.append(page.link(rows[-1][0]))
    body = orjson.dumps(
        [
            {
                "id": r[0],
                "workspaceId": r[1],
                "name": r[2],
                "stage": r[3],
                "location": r[4],
                "currency": r[5],
                "startDate": r[6],
                "endDate": r[7],
                "projectNumber": r[8],
                "timezone": r[9],
                "operationsMode": r[10],
                "createdAt": _utc_iso(r[11]),
                "updatedAt": _utc_iso(r[12]),
            }
            for r in rows
        ]
    )
    return 200, body, headers


async def projects_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """GET /workspaces/{id}/projects."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) != 3 or parts[0] != "workspaces" or parts[2] != "projects":
        await _send(send, 200, b"{}")
        return
    assert _pool is not None
    try:
        page = ListPage.of(scope)
    except Refused as refused:
        await _error(send, refused.status, refused.message, refused.code)
        return
    async with _pool.acquire() as conn:
        status, body, headers = await list_projects(
            conn, _cookie(scope, "auth.session_token"), parts[1], page
        )
    await _send(send, status, body, headers)


# --------------------------------------------------------------- GET, POST /projects/{p}/issues

KEY_PROJECT_SQL = (
    "SELECT k.id, k.project_id, k.scopes, k.revoked_at, k.expires_at, k.last_used_at, "
    "p.id, p.workspace_id, p.modules, w.id FROM api_keys k "
    "LEFT JOIN projects p ON p.id = $2 AND p.deleted_at IS NULL "
    "LEFT JOIN workspaces w ON w.id = p.workspace_id AND w.deleted_at IS NULL "
    "WHERE k.key_hash = $1"
)
TOUCH_SQL = "UPDATE api_keys SET last_used_at = $2 WHERE id = $1"
ISSUE_COLUMNS = (
    "id, project_id, number, external_id, title, description, status, priority, issue_kind, "
    "assignee_id, due_date, location, file_id, file_version_id, page_number, CAST(pin AS TEXT), "
    "asset_id, work_order_type, maintenance_schedule_id, CAST(checklist AS TEXT), "
    "CAST(costs AS TEXT), created_by, created_at, updated_at, status_changed_at, resolved_at, "
    "closed_at"
)
LIST_SQL = (
    f"SELECT {ISSUE_COLUMNS}, EXISTS (SELECT 1 FROM attachments a WHERE a.entity_type = 'issue' "  # noqa: S608
    "AND a.entity_id = issues.id AND a.deleted_at IS NULL) "
    "FROM issues WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2"
)
# The audit entry, the next per-project number and the issue in one statement, as the route
# does on PostgreSQL.
INSERT_SQL = (
    "WITH audit_entry AS (INSERT INTO audit_logs (id, workspace_id, project_id, actor, "
    "actor_user_id, actor_key_id, action, entity_type, entity_id, changes, request_id, ip, "
    "created_at) VALUES ($15, $3, $2, 'key', NULL, $11, 'issue.created', 'issue', $1, $16, $17, "
    "$18, $12)), "
    "counter AS (INSERT INTO project_counters (project_id, kind, value) "
    "VALUES ($2, 'issue', 1) ON CONFLICT (project_id, kind) "
    "DO UPDATE SET value = project_counters.value + 1 RETURNING value) "
    "INSERT INTO issues (id, project_id, workspace_id, number, title, description, status, "
    "priority, issue_kind, location, work_order_type, checklist, costs, created_key_id, "
    "created_at, updated_at, status_changed_at, resolved_at, closed_at) "
    "SELECT $1, $2, $3, counter.value, $4, $5, $6, $7, $8, $9, $10, '[]'::jsonb, $19, $11, $12, "
    "$12, $12, $13, $14 FROM counter RETURNING number"
)
STATUSES = ("OPEN", "IN_PROGRESS", "RESOLVED", "CLOSED")
PRIORITIES = ("LOW", "MEDIUM", "HIGH", "URGENT")
KINDS = ("CONSTRUCTION", "WORK_ORDER")  # OCCUPANT requests come through the occupant portal
COSTED = ("WORK_ORDER",)  # the kinds created here that carry cost totals (om.costs)
NO_COSTS = dict.fromkeys(("parts", "labour", "other", "total"), "0.00")
# Fields the benchmark does not send; the baseline refuses them rather than half-handle them.
NOT_REPRODUCED = (
    "externalId",
    "assigneeId",
    "dueDate",
    "fileId",
    "fileVersionId",
    "pageNumber",
    "pin",
    "assetId",
    "workOrderType",
    "maintenanceScheduleId",
    "checklist",
)


def _issue(r: Any, photos: Any) -> dict[str, Any]:
    return {
        "id": r[0],
        "projectId": r[1],
        "number": r[2],
        "externalId": r[3],
        "title": r[4],
        "description": r[5],
        "status": r[6],
        "priority": r[7],
        "issueKind": r[8],
        "assigneeId": r[9],
        "dueDate": r[10].isoformat() if r[10] is not None else None,
        "location": r[11],
        "fileId": r[12],
        "fileVersionId": r[13],
        "pageNumber": r[14],
        "pin": orjson.Fragment(r[15]) if r[15] is not None else None,
        "assetId": r[16],
        "workOrderType": r[17],
        "maintenanceScheduleId": r[18],
        "checklist": orjson.Fragment(r[19]),
        "costs": orjson.Fragment(r[20]) if r[20] is not None else None,
        "referencePhotos": photos,
        "createdBy": r[21],
        "createdAt": _iso(r[22]),
        "updatedAt": _iso(r[23]),
        "statusChangedAt": _iso(r[24]),
        "resolvedAt": _iso(r[25]),
        "closedAt": _iso(r[26]),
    }


def _first_invalid(raw: bytes) -> dict[str, Any] | str:
    """The create body's fields, or the name of the first invalid one."""
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return "body"
    if not isinstance(payload, dict):
        return "body"
    title = payload.get("title")
    if not isinstance(title, str) or not 1 <= len(title := title.strip()) <= 500:
        return "title"
    description = payload.get("description")
    if description is not None and (not isinstance(description, str) or len(description) > 20000):
        return "description"
    location = payload.get("location")
    if location is not None and (not isinstance(location, str) or len(location) > 500):
        return "location"
    status = payload.get("status", "OPEN")
    priority = payload.get("priority", "MEDIUM")
    kind = payload.get("issueKind", "CONSTRUCTION")
    for name, value, allowed in (
        ("status", status, STATUSES),
        ("priority", priority, PRIORITIES),
        ("issueKind", kind, KINDS),
    ):
        if value not in allowed:
            return name
    for name in NOT_REPRODUCED:
        if payload.get(name) is not None:
            return name
    return {
        "title": title,
        "description": description,
        "status": status,
        "priority": priority,
        "issueKind": kind,
        "location": location,
        "workOrderType": "CORRECTIVE" if kind == "WORK_ORDER" else None,
    }


def _validated(raw: bytes) -> dict[str, Any]:
    """The create body's fields; Refused (400) names the first invalid one."""
    invalid = _first_invalid(raw)
    if isinstance(invalid, str):
        raise Refused(400, f"Invalid {invalid}", "VALIDATION_FAILED")
    return invalid


async def _key_access(conn: Any, raw_key: str, project_id: str, scope: str, now: datetime) -> Any:
    """The key row when it may act on the project with ``scope``; Refused otherwise. ``conn``
    is an asyncpg connection, or anything with its ``fetchrow``/``fetchval``/``execute``
    (``benchmarks.floor`` runs this work through SQLAlchemy too)."""
    row = await conn.fetchrow(
        KEY_PROJECT_SQL, hashlib.sha256(raw_key.encode()).hexdigest(), project_id
    )
    if row is None or row[3] is not None or (row[4] is not None and row[4] <= now):
        raise Refused(401, "Invalid or revoked API key", "UNAUTHORIZED")
    if row[1] != project_id:
        raise Refused(403, "This API key belongs to another project", "API_KEY_PROJECT")
    if row[6] is None or row[9] is None:
        raise Refused(404, "Project not found", "NOT_FOUND")
    if scope not in row[2]:
        raise Refused(403, f"API key missing scope: {scope}", "API_KEY_SCOPE")
    if not row[8].get("issues", True):
        raise Refused(403, "Issues is disabled for this project", "MODULE_DISABLED")
    return row


async def _touch(conn: Any, key: Any, now: datetime) -> None:
    if key[5] is None or key[5] < now - LAST_USED_PRECISION:
        await conn.execute(TOUCH_SQL, key[0], now)


async def create_issue(
    conn: Any,
    raw_key: str,
    project_id: str,
    fields: Callable[[], dict[str, Any]],
    request_id: str,
    client_ip: str | None,
) -> dict[str, Any]:
    """The create's work inside its transaction: the access checks, then ``fields()`` (the
    validated body, Refused when invalid), the key's touch, the audit row, the number and the
    issue in one statement. Returns the response body."""
    now = datetime.now(UTC)
    key = await _key_access(conn, raw_key, project_id, "issues:write", now)
    valid = fields()
    await _touch(conn, key, now)
    issue_id = _new_id()
    status = valid["status"]
    at = _iso(now)
    resolved_at = now if status == "RESOLVED" else None
    closed_at = now if status == "CLOSED" else None
    costs = NO_COSTS if valid["issueKind"] in COSTED else None
    values = {
        "title": valid["title"],
        "description": valid["description"],
        "status": status,
        "priority": valid["priority"],
        "issueKind": valid["issueKind"],
        "location": valid["location"],
        "workOrderType": valid["workOrderType"],
        "checklist": [],
        "statusChangedAt": at,
        "resolvedAt": _iso(resolved_at),
        "closedAt": _iso(closed_at),
    }
    changes = {name: [None, value] for name, value in values.items() if value is not None}
    number = await conn.fetchval(
        INSERT_SQL,
        issue_id,
        project_id,
        key[7],
        valid["title"],
        valid["description"],
        status,
        valid["priority"],
        valid["issueKind"],
        valid["location"],
        valid["workOrderType"],
        key[0],
        now,
        resolved_at,
        closed_at,
        _new_id(),
        changes,
        request_id,
        client_ip,
        costs,
    )
    return {
        "id": issue_id,
        "projectId": project_id,
        "number": number,
        "externalId": None,
        "title": values["title"],
        "description": values["description"],
        "status": status,
        "priority": values["priority"],
        "issueKind": values["issueKind"],
        "assigneeId": None,
        "dueDate": None,
        "location": values["location"],
        "fileId": None,
        "fileVersionId": None,
        "pageNumber": None,
        "pin": None,
        "assetId": None,
        "workOrderType": values["workOrderType"],
        "maintenanceScheduleId": None,
        "checklist": [],
        "costs": costs,
        "referencePhotos": [],
        "createdBy": None,
        "createdAt": at,
        "updatedAt": at,
        "statusChangedAt": at,
        "resolvedAt": values["resolvedAt"],
        "closedAt": values["closedAt"],
    }


Transaction = Callable[[], AbstractAsyncContextManager[Any]]


@asynccontextmanager
async def _transaction() -> AsyncIterator[asyncpg.Connection]:
    assert _pool is not None
    async with _pool.acquire() as conn, conn.transaction():
        yield conn


async def answer_create(
    scope: dict[str, Any], receive: Any, send: Any, project_id: str, transaction: Transaction
) -> None:
    """POST /projects/{p}/issues as a bare ASGI answer, its work in ``transaction()``."""
    raw = await _body(receive)
    if raw is None:
        return
    request_id = _new_id()
    client = scope.get("client")
    try:
        async with transaction() as conn:
            issue = await create_issue(
                conn,
                _header(scope, b"x-api-key") or "",
                project_id,
                lambda: _validated(raw),
                request_id,
                client[0] if client else None,
            )
    except Refused as refused:
        await _error(send, refused.status, refused.message, refused.code)
        return
    await _send(send, 200, orjson.dumps(issue), [(b"x-request-id", request_id.encode())])


async def issues_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """GET and POST /projects/{p}/issues."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    parts = scope["path"].strip("/").split("/")
    if len(parts) != 3 or parts[0] != "projects" or parts[2] != "issues":
        await _send(send, 200, b"{}")
        return
    assert _pool is not None
    project_id = parts[1]
    if scope["method"] != "GET":
        await answer_create(scope, receive, send, project_id, _transaction)
        return
    raw_key = _header(scope, b"x-api-key") or ""
    request_id = _new_id()
    now = datetime.now(UTC)
    async with _pool.acquire() as conn:
        try:
            page = ListPage.of(scope)
            key = await _key_access(conn, raw_key, project_id, "issues:read", now)
        except Refused as refused:
            await _error(send, refused.status, refused.message, refused.code)
            return
        rows = await conn.fetch(LIST_SQL, project_id, page.limit + 1)
        await _touch(conn, key, now)
    # No reference photos are seeded; their presigned URLs are not reproduced here.
    assert not any(r[-1] for r in rows)
    headers = [(b"x-request-id", request_id.encode())]
    if len(rows) > page.limit:
        rows = rows[: page.limit]
        headers.append(page.link(rows[-1][0]))
    body = orjson.dumps([_issue(r, ()) for r in rows])
    await _send(send, 200, body, headers)
