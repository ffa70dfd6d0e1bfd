"""Access statements read as snapshots: the entities of an access context, outside the session.

Every request reads its caller's access in one statement (``auth``, ``authz``). Loading its
entities through the ORM costs each request about 400 k instructions more than reading the
same statement's rows (benchmarks/access.py); these snapshots cost about what the rows do.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Row, inspect, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapper

from plumbline.db import AnySelect, IdMixin, core_rows
from plumbline.errors import NotFound, found

Entity = TypeVar("Entity", bound=IdMixin)


class Snapshots:
    """An access statement whose entities are read as snapshots: each an instance of its model
    holding the row's columns, outside the session. A snapshot reads as the entity does (its
    columns, properties and methods), but it is not tracked: assigning to one raises
    ``AttributeError`` and ``Session.add`` refuses it, so a write loads the entity first
    (``tracked``) or runs an UPDATE. An entity an outer join did not find (its primary key
    NULL) is None; columns selected alone (not entities) come as they are. The statement runs
    on the session's connection, in the session's transaction."""

    __slots__ = ("_parts", "statement")

    def __init__(self, statement: AnySelect) -> None:
        self.statement = statement
        # Per selected item: (first column, past its last, model or None, attribute keys,
        # offset of the primary key).
        self._parts: list[tuple[int, int, type[Any] | None, tuple[str, ...], int]] = []
        start = 0
        for described in statement.column_descriptions:
            model = described["expr"]
            if not isinstance(model, type):
                self._parts.append((start, start + 1, None, (), 0))
                start += 1
                continue
            mapper: Mapper[Any] = inspect(model)
            columns = list(select(model).selected_columns)
            keys = tuple(mapper.get_property_by_column(c).key for c in columns)
            key = next(i for i, c in enumerate(columns) if c is mapper.primary_key[0])
            self._parts.append((start, start + len(columns), model, keys, key))
            start += len(columns)

    def _row(self, row: Row[*tuple[Any, ...]]) -> tuple[Any, ...]:
        values: list[Any] = []
        for start, stop, model, keys, key in self._parts:
            if model is None:
                values.append(row[start])
            elif row[start + key] is None:
                values.append(None)
            else:
                snapshot = object.__new__(model)
                snapshot.__dict__.update(zip(keys, row[start:stop], strict=True))
                values.append(snapshot)
        return tuple(values)

    async def first(self, session: AsyncSession, params: dict[str, Any]) -> tuple[Any, ...] | None:
        """The first row (an access statement finds one at most), or None."""
        rows = await core_rows(session, self.statement, params)
        return self._row(rows[0]) if rows else None

    async def all(self, session: AsyncSession, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Every row."""
        return [self._row(row) for row in await core_rows(session, self.statement, params)]


async def tracked(session: AsyncSession, snapshot: Entity) -> Entity:
    """The entity a snapshot (``Snapshots``) shows, loaded into ``session`` to be written
    (404 when it is gone meanwhile)."""
    model = type(snapshot)
    return found(await session.get(model, snapshot.id), NotFound(f"{model.__name__} not found"))
