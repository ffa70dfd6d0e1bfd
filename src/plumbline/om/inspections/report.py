"""An inspection run as the PDF a facilities manager files: header, project, asset, template,
every item with its outcome and note, photos as thumbnails, signer and date, and the numbers of
the follow-up work orders. Dated by the run (never the wall clock), so the same run gives the
same bytes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from plumbline.kit.pdf import PdfDocument

TYPE_LABELS = {
    "CHECK": "Check",
    "PASS_FAIL": "Pass/fail",
    "TEXT": "Text",
    "NUMBER": "Reading",
    "PHOTO": "Photo",
}
OUTCOME_LABELS = {"PASS": "Pass", "FAIL": "FAIL", "NA": "N/A", "DONE": "Done"}


@dataclass(frozen=True)
class ReportInput:
    run: dict[str, Any]
    project_name: str
    workspace_name: str
    asset: dict[str, Any] | None
    photos: list[tuple[bytes, str]]
    dated: datetime


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else "-"


def _value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def filename(run: dict[str, Any]) -> str:
    return f"inspection-{run['id']}.pdf"


def pdf(data: ReportInput) -> bytes:
    run = data.run
    completed = run["status"] == "COMPLETED"
    title = f"Inspection report: {run['templateName']}"
    doc = PdfDocument(title=title, author=data.workspace_name, created_at=data.dated)
    state = "Completed" if completed else "DRAFT - not completed"
    doc.title(title, f"{data.workspace_name} \u00b7 {data.project_name} \u00b7 {state}")
    asset = data.asset
    asset_text = (
        f"{asset['tag']} - {asset['name']}"
        + (f" ({asset['location']})" if asset["location"] else "")
        if asset
        else "No asset (area inspection)"
    )
    follow_ups = ", ".join(f"#{order['number']}" for order in run["followUpWorkOrders"]) or "None"
    results = {result["itemId"]: result for result in run["results"]}
    failed = sum(1 for result in run["results"] if result.get("outcome") == "FAIL")
    doc.key_values(
        [
            ("Project", data.project_name),
            ("Reference", run["id"]),
            ("Asset", asset_text),
            ("Inspection", run["templateName"]),
            ("Status", state),
            ("Completed", _when(data.dated) if completed else "-"),
            ("Items", f"{len(run['items'])} ({failed} failed)"),
            ("Follow-up work orders", follow_ups),
        ]
    )
    doc.heading("Checklist")
    rows = []
    for index, item in enumerate(run["items"], start=1):
        result = results.get(item["id"]) or {}
        outcome = OUTCOME_LABELS.get(result.get("outcome") or "", "")
        if not result:
            outcome = "Not answered" if item["required"] else "-"
        label = item["label"] + ("" if item["required"] else " (optional)")
        value, note = _value(result.get("value")), result.get("note") or ""
        rows.append([str(index), label, TYPE_LABELS[item["type"]], outcome, value, note])
    width = doc.width
    doc.table(
        ["#", "Item", "Type", "Outcome", "Reading", "Note"],
        rows,
        widths=[width * 0.05, width * 0.33, width * 0.1, width * 0.12, width * 0.1, width * 0.3],
    )
    if data.photos:
        doc.heading("Photos")
        doc.thumbnails(data.photos)
    doc.heading("Sign-off")
    doc.key_values(
        [
            ("Inspected and signed by", run["signedBy"] if completed else None),
            ("Date", _when(data.dated) if completed else None),
        ]
    )
    return doc.output()
