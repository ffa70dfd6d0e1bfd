"""A field report as a PDF (kit.pdf) and as an e-mail body (HTML and plain text)."""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any

from plumbline.kit.pdf import PdfDocument

KIND_LABELS = {"DAILY": "Daily report", "WEEKLY": "Weekly report"}
SECTIONS = (
    ("Work performed", "workPerformed"),
    ("Delays", "delays"),
    ("Safety", "safetyNotes"),
    ("Notes", "notes"),
)


def _number(value: Any) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _temperature(value: Any) -> str | None:
    return None if value is None else f"{_number(value)}\u00b0"


def weather_pairs(report: dict[str, Any]) -> list[tuple[str, str | None]]:
    weather = report.get("weather") or {}
    precipitation = weather.get("precipitation")
    return [
        ("Conditions", weather.get("conditions")),
        ("High", _temperature(weather.get("highTemp"))),
        ("Low", _temperature(weather.get("lowTemp"))),
        ("Precipitation", None if precipitation is None else _number(precipitation)),
    ]


def manpower_rows(report: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    rows = [
        [m["company"], m.get("trade") or "", str(m["workers"]), _number(m.get("hours", 0))]
        for m in report["manpower"]
    ]
    hours = sum(float(m.get("hours") or 0) for m in report["manpower"])
    return rows, ["Total", "", str(report["totalWorkers"]), _number(hours)]


def subtitle(report: dict[str, Any], project_name: str) -> str:
    kind = KIND_LABELS.get(report["reportKind"], "Report")
    return f"{project_name} \u00b7 {kind} \u00b7 {report['reportDate']} \u00b7 {report['status']}"


def pdf(report: dict[str, Any], project_name: str, generated_at: datetime) -> bytes:
    doc = PdfDocument(title=report["title"], created_at=generated_at)
    doc.title(report["title"], subtitle(report, project_name))
    doc.key_values(
        [
            ("Project", project_name),
            ("Date", report["reportDate"]),
            ("Kind", KIND_LABELS.get(report["reportKind"], report["reportKind"])),
            ("Status", report["status"]),
        ]
    )
    doc.heading("Weather")
    doc.key_values(weather_pairs(report))
    doc.heading("Manpower")
    rows, total = manpower_rows(report)
    if rows:
        width = doc.width
        doc.table(
            ["Company", "Trade", "Workers", "Hours"],
            rows,
            widths=[width * 0.4, width * 0.3, width * 0.15, width * 0.15],
            footer=total,
            align=["LEFT", "LEFT", "RIGHT", "RIGHT"],
        )
    else:
        doc.paragraph(None, empty="No manpower recorded.")
    for label, key in SECTIONS:
        doc.heading(label)
        doc.paragraph(report.get(key))
    return doc.output()


def filename(report: dict[str, Any]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", report["title"].lower()).strip("-")[:60] or "report"
    return f"field-report-{report['reportDate']}-{slug}.pdf"


def _h(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _paragraphs(text: str | None) -> str:
    if not text or not text.strip():
        return '<p style="color:#777">-</p>'
    return "".join(f"<p>{_h(p)}</p>" for p in text.split("\n") if p.strip())


def email_html(report: dict[str, Any], project_name: str, sender: str, message: str | None) -> str:
    cell = 'style="padding:4px 8px;border-bottom:1px solid #ddd;text-align:{}"'
    left = cell.format("left")
    weather = "".join(
        f"<tr><th {left}>{_h(k)}</th><td {left}>{_h(v or '-')}</td></tr>"
        for k, v in weather_pairs(report)
    )
    rows, total = manpower_rows(report)
    aligns = ("left", "left", "right", "right")

    def tr(values: list[str], tag: str = "td") -> str:
        return (
            "<tr>"
            + "".join(
                f"<{tag} {cell.format(a)}>{_h(v)}</{tag}>"
                for v, a in zip(values, aligns, strict=True)
            )
            + "</tr>"
        )

    manpower = (
        '<table style="border-collapse:collapse">'
        + tr(["Company", "Trade", "Workers", "Hours"], "th")
        + "".join(tr(r) for r in rows)
        + tr(total, "th")
        + "</table>"
        if rows
        else "<p>No manpower recorded.</p>"
    )
    note = (
        f'<p style="padding:8px;background:#f4f4f4">{_h(sender)} wrote: {_h(message)}</p>'
        if message
        else ""
    )
    sections = "".join(
        f"<h3>{_h(label)}</h3>{_paragraphs(report.get(key))}" for label, key in SECTIONS
    )
    return (
        '<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;color:#222">'
        f"{note}<h1>{_h(report['title'])}</h1>"
        f'<p style="color:#555">{_h(subtitle(report, project_name))}</p>'
        f'<h3>Weather</h3><table style="border-collapse:collapse">{weather}</table>'
        f"<h3>Manpower</h3>{manpower}{sections}"
        f'<p style="color:#777">Sent by {_h(sender)} with Plumbline. '
        "The report is attached as a PDF.</p>"
        "</body></html>"
    )


def email_text(report: dict[str, Any], project_name: str, sender: str, message: str | None) -> str:
    lines = []
    if message:
        lines += [f"{sender} wrote: {message}", ""]
    lines += [report["title"], subtitle(report, project_name), "", "Weather"]
    lines += [f"  {k}: {v or '-'}" for k, v in weather_pairs(report)]
    lines += ["", "Manpower"]
    rows, total = manpower_rows(report)
    lines += [f"  {c} ({t or '-'}): {w} workers, {h} h" for c, t, w, h in rows]
    lines += [f"  Total: {total[2]} workers, {total[3]} h", ""]
    for label, key in SECTIONS:
        lines += [label, f"  {report.get(key) or '-'}", ""]
    lines.append(f"Sent by {sender} with Plumbline. The report is attached as a PDF.")
    return "\n".join(lines)
