"""The lists' ``q``: a case-insensitive substring of any of a few columns, served by an index.

One condition for every list, ``search.matches(q, T.title, T.description)``, written in SQL
by the database that runs it (docs/decisions.md, "Search"):
- **PostgreSQL**: ``title ILIKE '%q%' OR description ILIKE '%q%'``, each column with its
  trigram GIN index (``pg_trgm``, declared by the model with ``search.indexes``); the pattern
  is a literal in the statement, so every plan, custom or generic, knows how many rows it finds;
- **SQLite**: ``issues.rowid IN (SELECT rowid FROM issues_search WHERE issues_search MATCH
  '{title description} : "q"')``, an FTS5 table with the trigram tokenizer whose rows point at
  the table's rows (external content), kept in step by triggers (``search.fts_statements``).

A searched list's statement is written whole, every value in its text (``inline``): on
PostgreSQL its generic plan is then its custom plan, which knows the project and the page.

A trigram index cannot serve fewer than three characters: such a ``q`` is a plain scan of the
project's rows, ``lower(title) LIKE '%q%'``, a shape no trigram index serves (a GIN index is
never read whole). ``%``, ``_``, ``\\`` and ``"`` are literal everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Boolean, ColumnElement, Index, String, Table, bindparam, func, or_
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import visitors
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.visitors import InternalTraversal

# A trigram index finds a substring of at least this many characters.
MIN_INDEXED = 3
# The SQLite function folding case beyond ASCII (SQLite's lower() and LIKE fold ASCII only).
FOLD = "plumbline_fold"
# The FTS5 shadow tables of ``<table>_search``.
_SHADOWS = ("data", "idx", "docsize", "config", "content")
S = TypeVar("S", bound=visitors.ExternallyTraversible)
# Searched tables and their columns, as the models declare them (``indexes``).
SEARCHED: dict[str, tuple[str, ...]] = {}


def indexes(table: str, *columns: str) -> tuple[Index, ...]:
    """The model's search indexes, for its ``__table_args__``: one trigram GIN index per column
    on PostgreSQL (SQLite's FTS5 table is not a model: see ``fts_statements``)."""
    SEARCHED[table] = columns
    return tuple(
        Index(
            f"ix_{table}_{column}_trgm",
            column,
            postgresql_using="gin",
            postgresql_ops={column: "gin_trgm_ops"},
        ).ddl_if(dialect="postgresql")
        for column in columns
    )


def matches(q: str, *columns: Any) -> ColumnElement[bool]:
    """Whether any of ``columns`` (of one table, declared with ``indexes``) contains ``q``,
    whatever the case."""
    searched = tuple(c.expression for c in columns)
    if len({c.table for c in searched}) != 1:
        raise ValueError("search.matches: the columns of one table")
    escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    # FTS5: the columns, then q as one phrase (a " inside doubled): no FTS5 syntax in q.
    names = " ".join(c.name for c in searched)
    phrase = "{" + names + '} : "' + q.replace('"', '""') + '"'
    return _Match(
        searched,
        bindparam(None, f"%{escaped}%", String()),
        # PostgreSQL: in the statement's text, so that every plan knows how many rows q finds
        bindparam(None, f"%{escaped}%", String(), literal_execute=True),
        bindparam(None, phrase, String()),
        len(q) < MIN_INDEXED,
    )


def inline(query: S, q: str | None) -> S:
    """``query`` (a page of a list) with every value written into its text when it searches
    ``q``. PostgreSQL keeps a generic plan of a prepared statement after five runs; one made
    without the project cannot know it is a big one, and for a rare word may walk the whole
    project's rows rather than read the trigram indexes (issue 28). With no parameter left,
    the generic plan is the custom one. The statement is one text per ``q`` already; this
    makes it one per project and cursor too, only for searches."""
    if not q:
        return query
    return visitors.cloned_traverse(query, {}, {"bindparam": _written})


def _written(bind: BindParameter[Any]) -> None:
    """A copy of a value in the statement (``cloned_traverse`` visits copies): quoted by the
    dialect when the statement runs, compiled once."""
    if not bind.required:
        bind.literal_execute = True


class _Match(ColumnElement[bool]):
    """``matches``' condition; each dialect compiles it below."""

    __visit_name__ = "plumbline_search"
    inherit_cache = True
    type = Boolean()
    _traverse_internals = [
        ("columns", InternalTraversal.dp_clauseelement_tuple),
        ("pattern", InternalTraversal.dp_clauseelement),
        ("inline", InternalTraversal.dp_clauseelement),
        ("phrase", InternalTraversal.dp_clauseelement),
        ("short", InternalTraversal.dp_boolean),
    ]

    def __init__(
        self, columns: tuple[Any, ...], pattern: Any, inline: Any, phrase: Any, short: bool
    ) -> None:
        self.columns = columns
        self.pattern = pattern  # '%q%' with \ escaping % _ and itself
        self.inline = inline  # the same, rendered as a literal when the statement runs
        self.phrase = phrase  # {columns} : "q", with " doubled
        self.short = short

    def self_group(self, against: Any = None) -> _Match:
        return self  # compiled in parentheses, a condition already (no "= 1" on SQLite)


@compiles(_Match)
def _compile_default(element: _Match, compiler: SQLCompiler, **kw: Any) -> str:
    """PostgreSQL (and any other database): ILIKE, which the trigram indexes serve. The pattern
    is a literal: a plan made for a parameter (asyncpg prepares every statement, and after five
    runs PostgreSQL may keep a generic plan) cannot tell a rare word from one in every row."""
    pattern = element.inline
    if element.short:
        # lower() LIKE lower() is what ILIKE does, in a shape the indexes do not serve.
        like = (func.lower(c).like(func.lower(pattern)) for c in element.columns)
        return f"({compiler.process(or_(*like), **kw)})"
    return f"({compiler.process(or_(*(c.ilike(pattern) for c in element.columns)), **kw)})"


@compiles(_Match, "sqlite")
def _compile_sqlite(element: _Match, compiler: SQLCompiler, **kw: Any) -> str:
    if element.short:
        folded = getattr(func, FOLD)
        like = (folded(c).like(folded(element.pattern), escape="\\") for c in element.columns)
        return f"({compiler.process(or_(*like), **kw)})"
    table: Table = element.columns[0].table
    fts = compiler.preparer.quote(f"{table.name}_search")
    rowid = f"{compiler.preparer.format_table(table)}.rowid"
    phrase = compiler.process(element.phrase, **kw)
    # Names from the models, never from a request; q is the bound phrase.
    return f"({rowid} IN (SELECT rowid FROM {fts} WHERE {fts} MATCH {phrase}))"  # noqa: S608


def sqlite_functions(dbapi_connection: Any) -> None:
    """Registers ``plumbline_fold`` on a new SQLite connection (a short ``q`` folds with it)."""
    dbapi_connection.create_function(FOLD, 1, _fold, deterministic=True)


def _fold(value: str | None) -> str | None:
    return None if value is None else value.lower()


def fts_statements(table: str, columns: Sequence[str]) -> list[str]:
    """SQLite: the FTS5 table of ``table``'s ``columns``, the triggers keeping it in step with
    every insert, update of those columns and delete, and its rows for the existing ones
    (names from a migration, never from a request)."""
    fts = f"{table}_search"
    names = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    insert = f"INSERT INTO {fts} (rowid, {names}) VALUES (new.rowid, {new});"  # noqa: S608
    delete = f"INSERT INTO {fts} ({fts}, rowid, {names}) VALUES ('delete', old.rowid, {old});"  # noqa: S608
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({names}, content='{table}', "
        "content_rowid='rowid', tokenize='trigram case_sensitive 0')",
        f"CREATE TRIGGER {fts}_insert AFTER INSERT ON {table} BEGIN {insert} END",
        f"CREATE TRIGGER {fts}_delete AFTER DELETE ON {table} BEGIN {delete} END",
        f"CREATE TRIGGER {fts}_update AFTER UPDATE OF {names} ON {table} "
        f"BEGIN {delete} {insert} END",
        f"INSERT INTO {fts} ({fts}) VALUES ('rebuild')",  # noqa: S608
    ]


def drop_fts_statements(table: str) -> list[str]:
    fts = f"{table}_search"
    triggers = [f"DROP TRIGGER {fts}_{event}" for event in ("insert", "delete", "update")]
    return [*triggers, f"DROP TABLE {fts}"]


def schema_filter(dialect: str) -> Callable[..., bool]:
    """Alembic's ``include_object`` for comparing the models with the database: leaves out
    what is not a model, SQLite's FTS5 tables (and their shadow tables), and what a model
    declares for PostgreSQL only, the trigram indexes, when comparing on SQLite."""
    fts = {f"{t}_search" for t in SEARCHED}
    shadows = {f"{name}_{shadow}" for name in fts for shadow in _SHADOWS}

    def include(obj: Any, name: str | None, type_: str, reflected: bool, _: Any) -> bool:
        if dialect != "sqlite":
            return True
        if type_ == "table" and reflected:
            return name not in fts | shadows
        if type_ == "index" and not reflected:
            return name not in {f"ix_{t}_{c}_trgm" for t, cs in SEARCHED.items() for c in cs}
        return True

    return include
