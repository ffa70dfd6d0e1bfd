"""Architectural sheets as real PDFs (fpdf2) with a known content: a title block, general
notes, door and window tags, room labels, fixtures and walls drawn at a stated scale.

The demo uploads them and the drawing-AI tests read them back, so the expected answers
(``Sheet.expected_wall_metres`` and the lists below) are exact: walls are heavy lines, one wall
of each plan is drawn as two overlapping collinear strokes and one as two touching strokes (a
takeoff that does not merge collinear segments counts them twice), and the sheet border is a
heavy line that is not a wall.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from fpdf import FPDF

from plumbline.kit import clock

WALL_WIDTH_MM = 0.7  # about 2 pt: the weight the takeoff reads as a wall
THIN_MM = 0.2
BORDER_MM = 0.5  # heavy, but on the sheet edge: never a wall


@dataclass(frozen=True)
class Sheet:
    """What a generated sheet says; ``walls`` are (x0, y0, x1, y1) in real units from the plan's
    origin (metres for a metric scale, feet for an imperial one)."""

    number: str = "A-101"
    title: str = "GROUND FLOOR PLAN"
    project: str = "HARBOR VIEW TOWER"
    scale: str = "1:100"
    revision: str = "C"
    date: str = "2026-11-02"
    # real units per paper millimetre: 1:100 -> 0.1 m; 1/4" = 1'-0" -> 1/6.35 ft
    units_per_mm: float = 0.1
    walls: tuple[tuple[float, float, float, float], ...] = (
        (0, 0, 7, 0),  # the top wall, drawn as two overlapping strokes
        (6, 0, 12, 0),
        (12, 0, 12, 8),
        (12, 8, 0, 8),
        (0, 8, 0, 0),
        (5, 0, 5, 3),  # an interior wall drawn as two touching strokes
        (5, 3, 5, 8),
        (5, 4, 0, 4),
    )
    # The real length of the walls above once the overlapping strokes are merged.
    wall_length: float = 2 * (12 + 8) + 8 + 5
    rooms: tuple[tuple[str, float, float], ...] = (
        ("LIVING ROOM", 7.5, 3.5),
        ("KITCHEN", 1.5, 1.5),
        ("BEDROOM 1", 1.5, 5.5),
    )
    doors: tuple[tuple[str, float, float], ...] = (("D01", 5, 1.2), ("D02", 2, 4), ("D03", 9, 8))
    windows: tuple[tuple[str, float, float], ...] = (("W01", 12, 2), ("W02", 3, 0))
    fixtures: tuple[tuple[str, float, float], ...] = (
        ("SINK", 3.2, 0.8),
        ("WC", 1.0, 7.0),
        ("BASIN", 2.6, 7.0),
        ("SHOWER", 4.0, 6.0),
    )
    notes: tuple[str, ...] = (
        "ALL DIMENSIONS IN MILLIMETRES UNLESS NOTED OTHERWISE.",
        "DO NOT SCALE FROM THIS DRAWING.",
        "DOORS D01 AND D02 TO BE FIRE RATED FD30.",
    )
    extra_text: tuple[str, ...] = field(default=())

    @property
    def imperial(self) -> bool:
        return "'" in self.scale


def metric_sheet() -> Sheet:
    return Sheet()


def imperial_sheet() -> Sheet:
    """A 40' x 30' plan at 1/4" = 1'-0" (one paper inch is four feet)."""
    return Sheet(
        number="S2.01",
        title="FIRST FLOOR FRAMING PLAN",
        scale='1/4" = 1\'-0"',
        revision="2",
        date="2026-10-15",
        units_per_mm=1 / 6.35,
        walls=(
            (0, 0, 22, 0),
            (20, 0, 40, 0),
            (40, 0, 40, 30),
            (40, 30, 0, 30),
            (0, 30, 0, 0),
            (16, 0, 16, 30),
            (16, 14, 0, 14),
        ),
        wall_length=2 * (40 + 30) + 30 + 16,
        rooms=(("OFFICE 101", 28, 15), ("STORAGE", 6, 6), ("LOBBY", 6, 22)),
        doors=(("D-1", 16, 4), ("D-2", 8, 14)),
        windows=(("W-1", 40, 10), ("W-2", 28, 30), ("W-3", 0, 22)),
        fixtures=(("WC", 12, 2),),
        notes=("VERIFY ALL DIMENSIONS ON SITE.", "STEEL TO BE HOT DIP GALVANISED."),
    )


ORIGIN = (30.0, 35.0)  # where the plan's (0, 0) is on the paper, mm from the top-left
TITLE_BLOCK = (325.0, 200.0, 85.0, 87.0)  # x, y, width, height in mm (A3 landscape)


def render(pdf: FPDF, sheet: Sheet) -> None:
    """Draw ``sheet`` on a new A3 landscape page of ``pdf`` (units: mm)."""
    pdf.add_page()
    ox, oy = ORIGIN

    def at(x: float, y: float) -> tuple[float, float]:
        return ox + x / sheet.units_per_mm, oy + y / sheet.units_per_mm

    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(BORDER_MM)
    pdf.rect(10, 10, 400, 277)
    pdf.set_line_width(WALL_WIDTH_MM)
    for x0, y0, x1, y1 in sheet.walls:
        pdf.line(*at(x0, y0), *at(x1, y1))
    pdf.set_line_width(THIN_MM)
    pdf.set_font("helvetica", "B", 9)
    for label, x, y in sheet.rooms:
        px, py = at(x, y)
        pdf.text(px - pdf.get_string_width(label) / 2, py, label)
    pdf.set_font("helvetica", "", 7)
    for label, x, y in sheet.doors:
        px, py = at(x, y)
        pdf.circle(px, py, 3.5, style="D")
        pdf.text(px - pdf.get_string_width(label) / 2, py + 1.2, label)
    for label, x, y in sheet.windows:
        px, py = at(x, y)
        pdf.regular_polygon(px - 3.8, py + 3.8, 6, 7.6, style="D")
        pdf.text(px - pdf.get_string_width(label) / 2, py + 1.2, label)
    pdf.set_font("helvetica", "", 6)
    for label, x, y in sheet.fixtures:
        px, py = at(x, y)
        pdf.rect(px - 4, py - 3, 8, 6)
        pdf.text(px - pdf.get_string_width(label) / 2, py + 1, label)
    # General notes, top right
    pdf.set_font("helvetica", "B", 9)
    pdf.text(325, 30, "GENERAL NOTES")
    pdf.set_font("helvetica", "", 7)
    y = 38.0
    for i, note in enumerate(sheet.notes):
        for j, line in enumerate(textwrap.wrap(f"{i + 1}. {note}", 44)):
            pdf.text(325 if j == 0 else 329, y, line)
            y += 3.5
        y += 2
    for i, text in enumerate(sheet.extra_text):
        pdf.text(30, 250 + i * 5, text)
    # Title block, bottom right
    x, y, w, h = TITLE_BLOCK
    pdf.rect(x, y, w, h)
    pdf.line(x, y + 62, x + w, y + 62)
    pdf.set_font("helvetica", "B", 8)
    pdf.text(x + 3, y + 7, "PLUMBLINE DEMO ARCHITECTS")
    pdf.set_font("helvetica", "", 7)
    pdf.text(x + 3, y + 15, f"PROJECT: {sheet.project}")
    pdf.text(x + 3, y + 23, f"TITLE: {sheet.title}")
    pdf.text(x + 3, y + 31, f"SCALE: {sheet.scale}")
    pdf.text(x + 3, y + 39, f"DATE: {sheet.date}")
    pdf.text(x + 3, y + 47, f"REV: {sheet.revision}")
    pdf.text(x + 3, y + 55, "DRAWN: JD   CHECKED: MK")
    pdf.text(x + 3, y + 68, "SHEET NO.")
    pdf.set_font("helvetica", "B", 16)
    pdf.text(x + 3, y + 80, sheet.number)


def new_pdf() -> FPDF:
    pdf = FPDF(orientation="landscape", format="A3", unit="mm")
    pdf.set_creation_date(clock.now())
    pdf.set_auto_page_break(False)
    return pdf


def sheet_pdf(sheet: Sheet | None = None) -> bytes:
    """A one-page PDF of ``sheet`` (the metric ground floor plan by default)."""
    pdf = new_pdf()
    render(pdf, sheet or metric_sheet())
    return bytes(pdf.output())


DEMO_SHEET_NAME = "A-101 Ground Floor Plan.pdf"


async def populate_sheets(api: Any, project_id: str) -> dict[str, Any]:
    """Sheet A-101 in the demo's drawings, with its drawing-AI summary and takeoff computed
    (``GET .../ai/sheet-cache?pageIndex=0`` shows them)."""
    sheet: dict[str, Any] = await api.upload(project_id, DEMO_SHEET_NAME, sheet_pdf())
    base = f"/api/v1/file-versions/{sheet['fileVersionId']}/ai"
    await api("POST", f"{base}/sheet-summary", json={"pageIndex": 0})
    await api("POST", f"{base}/takeoff-detect", json={"pageIndex": 0})
    return sheet
