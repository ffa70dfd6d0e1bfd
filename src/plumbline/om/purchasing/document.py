"""A purchase order as a PDF for its vendor (the PDF kit: deterministic, dated by the order)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from plumbline.kit.pdf import PdfDocument


def reference(number: int) -> str:
    return f"PO-{number:04d}"


def filename(order: Mapping[str, Any]) -> str:
    return f"{order['reference']}.pdf"


def render(
    order: Mapping[str, Any],
    *,
    vendor: Mapping[str, Any],
    workspace_name: str,
    project_name: str,
    location_name: str,
) -> bytes:
    """The order (its API read dict) as the vendor reads it: who orders what, delivered where."""
    dated = datetime.fromisoformat(order["createdAt"])
    title = f"Purchase order {order['reference']}"
    doc = PdfDocument(title=title, author=workspace_name, created_at=dated)
    doc.title(title, f"{workspace_name} \u00b7 {project_name}")
    doc.key_values(
        [
            ("Vendor", vendor["name"]),
            ("Contact", vendor.get("contactName")),
            ("E-mail", vendor.get("email")),
            ("Phone", vendor.get("phone")),
            ("Address", vendor.get("address")),
        ]
    )
    doc.heading("Order")
    doc.key_values(
        [
            ("Reference", order["reference"]),
            ("Date", dated.date().isoformat()),
            ("Status", order["status"].replace("_", " ").title()),
            ("Deliver to", f"{project_name}, {location_name}"),
            ("Currency", order["currency"]),
        ]
    )
    width = doc.width
    rows = [
        [
            str(index),
            line["partName"],
            line["sku"] or "",
            f"{line['quantity']} {line['unit']}",
            line["unitCost"],
            line["amount"],
        ]
        for index, line in enumerate(order["lines"], start=1)
    ]
    doc.heading("Lines")
    doc.table(
        ["#", "Part", "SKU", "Quantity", "Unit cost", "Amount"],
        rows,
        widths=[width * 0.06, width * 0.34, width * 0.16, width * 0.14, width * 0.14, width * 0.16],
        footer=["", "Total", "", "", "", f"{order['total']} {order['currency']}"],
        align=["LEFT", "LEFT", "LEFT", "RIGHT", "RIGHT", "RIGHT"],
    )
    if order.get("notes"):
        doc.heading("Notes")
        doc.paragraph(order["notes"])
    return doc.output()
