"""A proposal's exact totals (PRODUCT §8): each line, the subtotal, work, tax and discount."""

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from pydantic.alias_generators import to_camel

from plumbline.errors import InvalidField
from plumbline.kit import money
from plumbline.kit.ids import new_id
from plumbline.kit.money import FOUR, number_text
from plumbline.models import Proposal
from plumbline.proposal.document import letter
from plumbline.proposal.drafts.schemas import ItemIn, ProposalUpdate
from plumbline.proposal.read import FIELDS

# What a create or update writes (the fields an update takes), and the audit log compares.
EDITABLE = tuple(to_camel(name) for name in ProposalUpdate.model_fields)
AUDITED = (*EDITABLE, "subtotal", "workAmount", "taxAmount", "total")
COLUMNS = FIELDS.columns_of(EDITABLE)
# What pricing writes: the edited columns and the totals computed from them.
PRICED = (*COLUMNS, "subtotal", "work_amount", "tax_amount", "total")


def _amount(value: Decimal, field: str) -> Decimal:
    """``value`` in cents; 400 naming ``field`` when it does not fit a money column."""
    value = money.cents(value)
    if value > money.MAX_AMOUNT:
        raise InvalidField(field, "amount beyond 12 integer digits", error="Validation failed")
    return value


def priced(items: Sequence[ItemIn]) -> tuple[list[dict[str, Any]], Decimal]:
    """The items as stored (decimals as strings, each with its ``lineTotal``) and their sum."""
    stored, subtotal = [], Decimal(0)
    for index, item in enumerate(items):
        rate = item.rate if item.rate is not None else Decimal(0)  # set: see material_items
        line = _amount(item.quantity * rate, f"items.{index}.lineTotal")
        subtotal += line
        stored.append(
            {
                "id": item.id or new_id(),
                "name": item.name,
                "description": item.description,
                "quantity": number_text(item.quantity),
                "unit": item.unit,
                "rate": number_text(rate),
                "lineTotal": money.text(line),
                "materialId": item.material_id,
            }
        )
    return stored, _amount(subtotal, "items")


def totals(proposal: Proposal, subtotal: Decimal) -> None:
    """PRODUCT §8's math, rounded half up to cents at each step; the total never below zero."""
    work = _amount(subtotal * proposal.work_price_percent / 100, "workAmount")
    tax = _amount((subtotal + work) * proposal.tax_percent / 100, "taxAmount")
    total = _amount(subtotal + work + tax, "total") - proposal.discount
    proposal.subtotal, proposal.work_amount, proposal.tax_amount = subtotal, work, tax
    proposal.total = max(total, money.ZERO)


def apply(proposal: Proposal, values: Mapping[str, Any]) -> None:
    """Set the edited columns and recompute the totals from the (new or kept) items; a cover
    letter must be a template the letter renders (400 naming ``coverLetter``)."""
    if values.get("cover_letter"):
        letter.check(values["cover_letter"], "coverLetter")
    for name, value in values.items():
        if name in ("work_price_percent", "tax_percent"):
            value = value.quantize(FOUR)
        elif name == "discount":
            value = money.cents(value)
        setattr(proposal, name, value)
    if "items" in values:
        stored, subtotal = priced(values["items"])
        proposal.items = stored
    else:
        subtotal = sum((Decimal(item["lineTotal"]) for item in proposal.items), Decimal(0))
    totals(proposal, subtotal)
