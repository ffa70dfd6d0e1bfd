"""Engine, sessions, the declarative base and the per-request unit of work."""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Annotated, Any

import orjson
from fastapi import Depends, Request
from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    MetaData,
    Row,
    Select,
    String,
    TypeDecorator,
    event,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from plumbline.config import settings
from plumbline.kit import clock, encoding, search
from plumbline.kit.ids import new_id

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# The rows of a soft-deleted table its lists show: the condition of their partial indexes.
LIVE = text("deleted_at IS NULL")

# The statement and result types repositories annotate with.
AnySelect = Select[*tuple[Any, ...]]
Rows = Sequence[Row[*tuple[Any, ...]]]


async def core_rows(
    session: AsyncSession, statement: AnySelect, params: dict[str, Any] | None = None
) -> Rows:
    """The rows of a Core statement run on the session's connection (no ORM execution path).
    One call of ``run_sync``: taking the connection and executing on it each from the async
    side would cost a greenlet switch apiece (about 40 k instructions a request)."""

    def rows(sync: Session) -> Rows:
        return sync.connection().execute(statement, params).all()

    return await session.run_sync(rows)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Any:
        """asyncpg already returns every timestamptz as an aware UTC datetime, whatever the
        session's time zone: only the inner type's processing (none) is left to run. A list
        page of 1,000 issues reads eight of them a row."""
        if dialect.driver == "asyncpg":
            return self.impl_instance.result_processor(dialect, coltype)
        return super().result_processor(dialect, coltype)


JSONType = JSON().with_variant(JSONB(), "postgresql")
IdType = String(32)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime()}


class IdMixin:
    id: Mapped[str] = mapped_column(IdType, primary_key=True, default=new_id)


class TimestampMixin:
    created_at: Mapped[datetime] = mapped_column(default=clock.now)
    updated_at: Mapped[datetime] = mapped_column(default=clock.now, onupdate=clock.now)


class ProjectRecordMixin:
    """The columns of a project's record (``records.Record``): its project and workspace, who
    created it, and the soft delete."""

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    created_by: Mapped[str | None] = mapped_column(IdType)
    deleted_at: Mapped[datetime | None]


def _json_dumps(value: Any) -> str:
    return encoding.dumps(value).decode()


# JSON columns through orjson rather than the standard library: several per request (scopes,
# module switches, checklists, audit changes), each a few times faster.
JSON_CODEC: dict[str, Any] = {"json_serializer": _json_dumps, "json_deserializer": orjson.loads}


def _make_engine(url: str) -> AsyncEngine:
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30}, **JSON_CODEC)

        @event.listens_for(engine.sync_engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _: Any) -> None:
            cursor = dbapi_conn.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()
            search.sqlite_functions(dbapi_conn)

        _sqlite_immediate_transactions(engine)
        return engine
    # A fixed pool: no pre-ping (a round trip per checkout; stale connections are recycled
    # instead) and no overflow, whose connections SQLAlchemy closes as soon as they are returned
    # (one request in eight opened a connection under load). More connections than the worker
    # can keep busy only lengthen the queue on contended rows: 10 against 32 concurrent creates
    # in one project serve a third more requests than 32 (benchmarks/README.md).
    return create_async_engine(
        url,
        pool_size=settings.db_pool_size,
        max_overflow=0,
        pool_recycle=1800,
        **JSON_CODEC,
    )


class Database:
    """Holds the engine; created lazily so settings may change before first use (tests)."""

    def __init__(self) -> None:
        self._engine: AsyncEngine | None = None
        self._sessionmaker: async_sessionmaker[AsyncSession] | None = None
        self._read_sessionmaker: async_sessionmaker[AsyncSession] | None = None

    @property
    def engine(self) -> AsyncEngine:
        if self._engine is None:
            self._engine = _make_engine(settings.database_url)
        return self._engine

    @property
    def sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        if self._sessionmaker is None:
            self._sessionmaker = async_sessionmaker(self.engine, expire_on_commit=False)
        return self._sessionmaker

    @property
    def read_sessionmaker(self) -> async_sessionmaker[AsyncSession]:
        """Sessions of the GET routes (``routing.reads_only``) and of the exports' batches. On
        PostgreSQL their connection is checked out in AUTOCOMMIT (``AUTOCOMMIT``, the
        connection's own option, as a Core application sets it): each statement commits on its
        own, which spares the BEGIN and COMMIT round trips around the reads. (Sessions bound to
        an engine with that option, ``engine.execution_options``, cost the projects list 132 k
        instructions a request more: the option is an engine event, and every event check of
        the request's connection then goes through a joined dispatcher.) No autoflush: the
        caller's credential touch (the one write of such a route) waits for the commit of a
        successful response, as in every other route."""
        if self._read_sessionmaker is None:
            self._read_sessionmaker = async_sessionmaker(
                self.engine, expire_on_commit=False, autoflush=False
            )
        return self._read_sessionmaker

    @property
    def autocommits_reads(self) -> bool:
        """Whether read-only sessions run each statement on its own (PostgreSQL)."""
        return self.engine.dialect.name == "postgresql"

    async def read_session(self) -> AsyncSession:
        """A read-only session whose connection is checked out now (an export's batch); the
        GET routes' sessions check theirs out at their first use (``UnitOfWork.opened``)."""
        session = self.read_sessionmaker()
        if self.autocommits_reads:
            await session.connection(execution_options=AUTOCOMMIT)
        return session

    async def dispose(self) -> None:
        if self._engine is not None:
            await self._engine.dispose()
        self._engine = None
        self._sessionmaker = None
        self._read_sessionmaker = None


database = Database()
# The option a read-only session's connection is checked out with (``Database.read_sessionmaker``).
AUTOCOMMIT = {"isolation_level": "AUTOCOMMIT"}

AfterCommit = Callable[[], Awaitable[object]]
BeforeCommit = Callable[[AsyncSession], Awaitable[object]]
_BEFORE_COMMIT = "before_commit"  # the session's ``info`` keys of its last writes
NOTES_KEY = "notes_for_commit"  # and of what they will write


def notes(session: AsyncSession) -> dict[str, Any]:
    """What the transaction's ``before_commit`` writes will write (theirs to arrange), dropped
    with a rollback."""
    found: dict[str, Any] = session.info.setdefault(NOTES_KEY, {})
    return found


def before_commit(session: AsyncSession, callback: BeforeCommit) -> None:
    """Writes to make in the transaction as its last statements, once each, when it is about
    to commit (the events of its changes: ``events.log``). ``prepare_commit`` runs them."""
    callbacks: list[BeforeCommit] = session.info.setdefault(_BEFORE_COMMIT, [])
    if callback not in callbacks:
        callbacks.append(callback)


async def prepare_commit(session: AsyncSession) -> None:
    """Run the ``before_commit`` writes; whoever commits a session that wrote calls it first
    (``UnitOfWork.commit``, the job runner)."""
    for callback in session.info.pop(_BEFORE_COMMIT, ()):
        await callback(session)


def discard_notes(session: AsyncSession) -> None:
    """Forget the ``before_commit`` writes of work rolled back, and their notes."""
    session.info.pop(_BEFORE_COMMIT, None)
    session.info.pop(NOTES_KEY, None)


@asynccontextmanager
async def savepoint(session: AsyncSession) -> AsyncIterator[None]:
    """A SAVEPOINT around one part of the transaction that may fail alone (a bulk upsert's
    record): its failure rolls back its writes and forgets the notes they made (their events),
    and the transaction goes on. The notes of a success stay for the commit."""
    noted = {key: copy.copy(value) for key, value in notes(session).items()}
    callbacks = list(session.info.get(_BEFORE_COMMIT, ()))
    try:
        async with session.begin_nested():
            yield
    except BaseException:
        session.info[NOTES_KEY] = noted
        session.info[_BEFORE_COMMIT] = callbacks
        raise


class UnitOfWork:
    """One session and one transaction per request; callbacks run only after a commit."""

    def __init__(
        self, session: AsyncSession, *, respond_first: bool = False, reads_only: bool = False
    ) -> None:
        self.session = session
        # A read-only session takes its connection in AUTOCOMMIT at its first use (``opened``).
        self._autocommit = reads_only and database.autocommits_reads
        # ``jobs.registry.unit_of_work(db)``: hook callbacks that get the session only (the
        # events' ``on_written``) queue jobs in the unit of work it belongs to.
        session.info["uow"] = self
        self.respond_first = respond_first
        self._after_commit: list[AfterCommit] = []
        self._after_response: list[AfterCommit] = []
        self._after_rollback: list[AfterCommit] = []

    async def opened(self) -> AsyncSession:
        """The session, ready for its first statement: a read-only route's connection is
        checked out here, in AUTOCOMMIT on PostgreSQL, not when the route starts (``/health``
        and ``/ready`` answer without the database)."""
        if self._autocommit:
            self._autocommit = False
            await self.session.connection(execution_options=AUTOCOMMIT)
        return self.session

    def after_rollback(self, callback: AfterCommit) -> None:
        """Work that must be written even though the request fails, such as a cloud
        connection marked as needing reconnection when its provider refused the refresh token.
        It runs once the request's transaction is rolled back (its locks released) and opens
        its own session and transaction; it must be small and idempotent. A request that
        commits drops it."""
        self._after_rollback.append(callback)

    def after_commit(self, callback: AfterCommit) -> None:
        self._after_commit.append(callback)

    def after_response(self, callback: AfterCommit) -> None:
        """Work to run once committed that the caller need not wait for, and whose duration
        must not show in the response time (e-mail delivery: a password reset must take as
        long for an unknown address as for a known one). In a route (``respond_first``) the
        route runs it after the response is sent; elsewhere it runs right after the commit."""
        self._after_response.append(callback)

    def take_after_response(self) -> list[AfterCommit]:
        """The committed work still waiting for the response (and none left behind)."""
        callbacks, self._after_response = self._after_response, []
        return callbacks

    async def commit_reads(self) -> None:
        """Ends the request's transaction before long work that needs no database (parsing a
        stored PDF, waiting on an LLM), so that SQLite's write lock and a PostgreSQL connection
        are not held meanwhile. Only reads and the caller's credential touch may come before
        it (they are committed); the statements after it run in a new transaction, committed
        or rolled back with the request."""
        if self.session.in_transaction():
            await self.session.commit()

    async def commit(self) -> None:
        if self.session.in_transaction():  # else there is nothing to commit
            await prepare_commit(self.session)
            await self.session.commit()
        self._after_rollback = []
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            await callback()
        if not self.respond_first:
            for callback in self.take_after_response():
                await callback()

    async def rollback(self) -> None:
        self._after_commit = []
        self._after_response = []
        discard_notes(self.session)
        await self.session.rollback()
        callbacks, self._after_rollback = self._after_rollback, []
        for callback in callbacks:
            try:
                await callback()
            except Exception:  # the request's own error is the one to answer
                logging.getLogger("plumbline").exception("work after a rollback failed")


def uow_of(request: Request) -> UnitOfWork:
    """The request's unit of work, opened by the route class."""
    uow: UnitOfWork | None = getattr(request.state, "uow", None)
    if uow is None:
        raise RuntimeError("DB and UoW need a router from plumbline.routing.make_router")
    return uow


async def session_of(request: Request) -> AsyncSession:
    """The request's session, ready for its first statement (``UnitOfWork.opened``): what a
    dependency that reads the database before the route's own ``DB`` uses."""
    return await uow_of(request).opened()


# Plain functions, not generators (FastAPI wraps those in an exit stack), each reading the
# request directly rather than the other: the route class owns the session.
async def get_uow(request: Request) -> UnitOfWork:
    uow = uow_of(request)
    await uow.opened()
    return uow


async def get_db(request: Request) -> AsyncSession:
    return await session_of(request)


DB = Annotated[AsyncSession, Depends(get_db)]
UoW = Annotated[UnitOfWork, Depends(get_uow)]


def _sqlite_immediate_transactions(engine: AsyncEngine) -> None:
    """SQLite: take the write lock at BEGIN, so concurrent writers queue instead of failing."""

    @event.listens_for(engine.sync_engine, "connect")
    def _autocommit_driver(dbapi_conn: Any, _: Any) -> None:
        dbapi_conn.isolation_level = None

    @event.listens_for(engine.sync_engine, "begin")
    def _begin_immediate(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
