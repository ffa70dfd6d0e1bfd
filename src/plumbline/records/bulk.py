"""Bulk upsert by external id: up to 1,000 records a request, each created or updated by its
module's own service (the single routes' rules, audit entries and notifications).

- One query loads the existing records of every externalId of the body (locked on PostgreSQL).
- Each record runs in a savepoint of its own: a refused one leaves nothing half-written and
  the others go on. Records are written in externalId order, so two bulks over the same keys
  take their locks in one order (no deadlock).
- A record whose values equal the stored ones is ``unchanged``: nothing is written (no audit
  entry, no event, no ``updatedAt``), so running the same body twice changes nothing the second
  time.
- ``allOrNothing``: any refused record and nothing is written (400 with every result).
- An externalId repeated in one body is refused on each of its records (which one is meant?).
- Two requests creating one externalId at once: the unique index lets one through, the other
  reports that record as a 409 ``CONFLICT`` (``plumbline.constraints.EXPECTED``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, Protocol, TypeAlias, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError, ValidatorFunctionWrapHandler, WrapValidator
from sqlalchemy.exc import IntegrityError

from plumbline.constraints import conflict_for
from plumbline.db import UnitOfWork, savepoint
from plumbline.errors import AppError, Conflict, InvalidField, ValidationFailed, validation_failed
from plumbline.kit.schema import ErrorDetail, Patch
from plumbline.openapi import errors

MAX_RECORDS = 1000
Status = Literal["created", "updated", "unchanged", "error"]


@dataclass(frozen=True)
class Refused:
    """A record of the body that its create schema refused (the others still run)."""

    error: AppError
    external_id: str | None


def _keep_refusal(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError as refusal:
        named = value.get("externalId") if isinstance(value, dict) else None
        error = validation_failed(RequestValidationError(refusal.errors()))
        return Refused(error, named if isinstance(named, str) else None)


R = TypeVar("R")
if TYPE_CHECKING:
    # A record the body validates alone: its schema, or its refusal (mypy sees both).
    Lenient: TypeAlias = R | Refused
else:

    class Lenient:
        """``Lenient[Model]``: validated as ``Model`` (and described as it in the OpenAPI), a
        refused record becomes a ``Refused`` in its place instead of failing the body."""

        def __class_getitem__(cls, model: Any) -> Any:
            return Annotated[model, WrapValidator(_keep_refusal)]


class Keyed(Protocol):
    """A record of a bulk body: a module's create schema with its key."""

    @property
    def external_id(self) -> str: ...

    @property
    def model_fields_set(self) -> set[str]: ...

    def model_dump(self, *, include: Any = None) -> dict[str, Any]: ...


class HasId(Protocol):
    @property
    def id(self) -> str: ...


K = TypeVar("K", bound=Keyed)
E = TypeVar("E", bound=HasId)
C = TypeVar("C")
P = TypeVar("P", bound=Patch)


@dataclass(frozen=True)
class Upserts(Generic[C, E, K, P]):
    """One module's part: ``load`` the live records of the scope with these externalIds, each
    with whether the caller may see it (one query); ``create`` one (its id) and ``update``
    one with the fields a record sent, as its ``patch`` body (the changes, empty when none),
    through the module's service; the Conflict a ``taken`` key is."""

    load: Callable[[UnitOfWork, C, Sequence[str]], Awaitable[Mapping[str, tuple[E, bool]]]]
    create: Callable[[UnitOfWork, C, K], Awaitable[str]]
    update: Callable[[UnitOfWork, C, E, P], Awaitable[Mapping[str, Any]]]
    patch: type[P]
    taken: Callable[[], Conflict]


class RecordError(BaseModel):
    """Why one record was refused: the body its single route would have answered."""

    error: str
    code: str
    details: list[ErrorDetail] | None = None


class UpsertResult(BaseModel):
    externalId: str | None
    index: int
    status: Status
    id: str | None = None
    error: RecordError | None = None


class UpsertAnswer(BaseModel):
    results: list[UpsertResult]
    created: int
    updated: int
    unchanged: int
    failed: int


# The routes' own 400: an invalid body (over 1,000 records...) or, with allOrNothing, a refused
# record: then the body also holds every result and the counts, as the 200 would.
BULK_RESPONSES = errors(
    400,
    texts={
        400: "Invalid body; with allOrNothing, a refused record: nothing written, and the body "
        "also holds `results` and the counts (`created`, `updated`, `unchanged`, `failed`) "
        "of a 200, created records without an id"
    },
)


class BulkRefused(ValidationFailed):
    def __init__(self, answer: dict[str, Any], details: list[dict[str, str]]) -> None:
        failed, total = answer["failed"], len(answer["results"])
        super().__init__(
            f"{failed} of {total} records were refused; nothing was written",
            details=details,
            **answer,
        )


def as_patch(record: Keyed, patch: type[P]) -> P:
    """The fields a record sent (its key aside) as the module's PATCH body: an update applies
    those only, as a PATCH does (the create's defaults do not)."""
    try:
        return patch.model_validate(
            record.model_dump(include=record.model_fields_set - {"external_id"})
        )
    except ValidationError as refusal:  # a value the create takes but a PATCH does not: null
        raise validation_failed(RequestValidationError(refusal.errors())) from None


_MISSING = object()


def _same(entity: object, patch: Patch) -> bool:
    """Each field sent already holds the value sent (the patch's names are the columns'): the
    service would write nothing, so no savepoint is needed. Conservative: a value the service
    stores differently (a checklist item without its id, a meter without its last reading)
    goes to the service, which decides."""
    return all(getattr(entity, name, _MISSING) == value for name, value in patch.sent().items())


def _duplicates(records: Sequence[K | Refused]) -> dict[str, list[int]]:
    counts = Counter(r.external_id for r in records if not isinstance(r, Refused))
    where: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        if not isinstance(record, Refused) and counts[record.external_id] > 1:
            where.setdefault(record.external_id, []).append(index)
    return where


def _refused(index: int, external_id: str | None, error: AppError) -> dict[str, Any]:
    return {"externalId": external_id, "index": index, "status": "error", "error": error.body()}


async def upsert(
    uow: UnitOfWork,
    ctx: C,
    records: Sequence[K | Refused],
    kind: Upserts[C, E, K, P],
    *,
    all_or_nothing: bool,
) -> dict[str, Any]:
    """``{results, created, updated, unchanged, failed}``, a result per record in body order."""
    results: list[dict[str, Any] | None] = [None] * len(records)
    repeated = _duplicates(records)
    todo: list[tuple[int, K]] = []
    for index, record in enumerate(records):
        if isinstance(record, Refused):
            results[index] = _refused(index, record.external_id, record.error)
        elif record.external_id in repeated:
            on = ", ".join(str(i) for i in repeated[record.external_id])
            error = InvalidField("externalId", f"appears more than once in the body (records {on})")
            results[index] = _refused(index, record.external_id, error)
        else:
            todo.append((index, record))
    todo.sort(key=lambda item: item[1].external_id)
    existing = await kind.load(uow, ctx, [record.external_id for _, record in todo])
    for index, record in todo:
        result: dict[str, Any] = {"externalId": record.external_id, "index": index}
        try:
            result |= await _write(uow, ctx, kind, record, existing.get(record.external_id))
        except AppError as error:
            result = _refused(index, record.external_id, error)
        except IntegrityError as error:
            conflict = conflict_for(error)
            if conflict is None:
                raise
            result = _refused(index, record.external_id, conflict)
        results[index] = result
    done = [result for result in results if result is not None]
    counts = Counter(result["status"] for result in done)
    answer = {
        "results": done,
        "created": counts["created"],
        "updated": counts["updated"],
        "unchanged": counts["unchanged"],
        "failed": counts["error"],
    }
    if all_or_nothing and answer["failed"]:
        raise BulkRefused(_unwritten(answer), _details(done))
    return answer


async def _write(
    uow: UnitOfWork, ctx: C, kind: Upserts[C, E, K, P], record: K, found: tuple[E, bool] | None
) -> dict[str, Any]:
    """One record created or updated in a savepoint of its own: a refusal (raised) leaves
    nothing of it written."""
    if found is None:
        async with savepoint(uow.session):
            return {"status": "created", "id": await kind.create(uow, ctx, record)}
    entity, seen = found
    if not seen:
        raise kind.taken()  # a record the caller may not see has this key
    done = {"id": entity.id}  # read now: a refusal expires the entity
    patch = as_patch(record, kind.patch)
    if _same(entity, patch):
        return done | {"status": "unchanged"}
    async with savepoint(uow.session):
        changes = await kind.update(uow, ctx, entity, patch)
    return done | {"status": "updated" if changes else "unchanged"}


def _unwritten(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer of a refused body: nothing was created, so no created record has an id."""
    results = [
        {k: v for k, v in result.items() if k != "id" or result["status"] != "created"}
        for result in answer["results"]
    ]
    return answer | {"results": results}


def _details(results: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """Each refused record's fields as ``records.<index>.<field>`` (or ``records.<index>``)."""
    details = []
    for result in results:
        if result["status"] != "error":
            continue
        at, error = f"records.{result['index']}", result["error"]
        for detail in error.get("details") or [{"field": "", "message": error["error"]}]:
            field = f"{at}.{detail['field']}" if detail["field"] else at
            details.append({"field": field, "message": detail["message"]})
    return details
