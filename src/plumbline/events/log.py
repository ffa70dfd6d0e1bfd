"""Writing events: noted by the audit call of a change, written just before its transaction
commits, with the resource read back as the API returns it.

``note`` runs for every audit entry; an entry whose action is an event (``catalogue.ACTIONS``)
is kept on the session until ``write_noted``, which ``db.UnitOfWork`` (and the job runner)
calls before committing: the resources are read once each (one query per kind, ``readers``),
the events numbered in their stream (``repository.allocate``: the stream's row stays locked
until the commit, so a stream's numbers follow its commits) and written, and the ``on_written``
callbacks (webhook deliveries) run, all in the write's own transaction."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from plumbline.db import NOTES_KEY, before_commit, notes
from plumbline.events import hooks, readers, repository
from plumbline.events.catalogue import ACTIONS, Source
from plumbline.kit import clock
from plumbline.kit.ids import new_id

NOTED = "events"  # the key of the events waiting for the commit in ``db.notes``


@dataclass(frozen=True)
class Noted:
    source: Source
    resource_id: str
    workspace_id: str
    project_id: str | None
    actor: dict[str, str | None]
    at: datetime


def note(db: AsyncSession, entry: dict[str, Any]) -> None:
    """Keep the event of an audit ``entry`` (its row as ``audit.entry`` builds it), if any."""
    source = ACTIONS.get(entry["action"])
    if source is None or entry["workspace_id"] is None:
        return
    resource_id = entry["entity_id"]
    if source.id_change is not None:
        old, new = entry["changes"][source.id_change]
        resource_id = new if new is not None else old
    actor_id = entry["actor_user_id"] or entry["actor_key_id"]
    noted = Noted(
        source,
        resource_id,
        entry["workspace_id"],
        entry["project_id"],
        {"type": entry["actor"], "id": actor_id},
        entry["created_at"],
    )
    notes(db).setdefault(NOTED, []).append(noted)
    before_commit(db, write_noted)


async def write_noted(db: AsyncSession) -> list[hooks.Event]:
    """Write the events noted in this transaction (see the module's docstring); answers them."""
    noted: list[Noted] = notes(db).pop(NOTED, [])
    if not noted:
        return []
    wanted: dict[str, set[str]] = defaultdict(set)
    for item in noted:
        if not item.source.deleted:
            wanted[item.source.resource].add(item.resource_id)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for resource, ids in wanted.items():
        for resource_id, data in (await readers.read(db, resource, sorted(ids))).items():
            found[resource, resource_id] = data
    streams: dict[str, list[Noted]] = defaultdict(list)
    for item in noted:
        streams[item.project_id or item.workspace_id].append(item)
    events: list[hooks.Event] = []
    for stream in sorted(streams):  # streams locked in one order: no deadlock between writers
        items = streams[stream]
        last = await repository.allocate(db, stream, len(items))
        for seq, item in enumerate(items, start=last - len(items) + 1):
            resource = item.source.resource
            data = found.get((resource, item.resource_id)) or tombstone(
                resource, item.resource_id, item.at
            )
            events.append(
                hooks.Event(
                    id=new_id(),
                    seq=seq,
                    stream=stream,
                    type=item.source.type,
                    created_at=item.at,
                    workspace_id=item.workspace_id,
                    project_id=item.project_id,
                    actor=item.actor,
                    resource=resource,
                    resource_id=item.resource_id,
                    data=data,
                )
            )
    await repository.write(db, events)
    await hooks.written(db, events)
    return events


def tombstone(resource: str, resource_id: str, at: datetime) -> dict[str, Any]:
    """What is left of a deleted resource: its kind, id and when it went."""
    return {"type": resource, "id": resource_id, "deletedAt": clock.iso(at)}


@sa_event.listens_for(Session, "before_commit")
def _refuse_unwritten(session: Session) -> None:
    """A transaction that noted events commits only through ``write_noted`` (else integrators
    would silently miss the change): a path that commits otherwise is a bug. Releasing a
    savepoint (``db.savepoint``) is no commit: its notes wait for the transaction's."""
    if session.in_nested_transaction():
        return
    if session.info.get(NOTES_KEY, {}).get(NOTED):
        raise RuntimeError("events were noted but not written before the commit")
