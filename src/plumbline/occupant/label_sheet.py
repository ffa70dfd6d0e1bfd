"""The printable label sheet of a project's occupant links (fpdf2, core fonts): a grid of
three by four labels a page, each with its QR code drawn as vector squares (sharp at any
printer's resolution), the asset's name, tag and location, and a line telling the reader what
the code is for. The workspace's name and primary colour head each page. Deterministic: dated
by the newest link, never the wall clock, so the same links give the same bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import segno
from fpdf import FPDF
from fpdf.enums import XPos, YPos

from plumbline.kit.pdf import latin1

PAPERS = ("A4", "Letter")
FONT = "helvetica"
MARGIN = 12.0
HEADER = 17.0  # mm above the grid: the workspace, the project, what the sheet is (one line)
FOOTER = 7.0
COLUMNS, ROWS, GAP = 3, 4, 3.0
QUIET_ZONE = 4  # modules of white around a code, as the QR standard asks
ACCENT = (31, 64, 104)  # the proposal PDF's colour, for a workspace without its own
INK, GREY, CUT = (25, 25, 25), (105, 105, 105), (185, 185, 185)
WARNING = (150, 60, 0)
HINT = "Scan with your phone camera to report a problem"


@dataclass(frozen=True)
class Label:
    url: str
    title: str  # the asset's name, or the link's label for a link of no asset
    details: str  # the asset's tag and location, or the project's name


@dataclass(frozen=True)
class Sheet:
    workspace_name: str
    primary_color: str | None  # "#RRGGBB"
    project_name: str
    paper: str
    labels: Sequence[Label]
    unprintable: int  # live links made before links had printable codes
    dated: datetime


def qr_code(url: str) -> segno.QRCode:
    """The QR code of ``url`` (error correction M: a scuffed label still scans)."""
    return segno.make_qr(url, error="m")


def _rgb(color: str | None) -> tuple[int, int, int]:
    if color is None or len(color) != 7 or not color.startswith("#"):
        return ACCENT
    try:
        red, green, blue = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    except ValueError:
        return ACCENT
    return red, green, blue


def _luminance(color: tuple[int, int, int]) -> float:
    """WCAG relative luminance."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(channel) for channel in color)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def _on(color: tuple[int, int, int]) -> tuple[int, int, int]:
    """White or ink, whichever reads better on ``color``."""
    return (255, 255, 255) if 1.05 / (_luminance(color) + 0.05) >= 4.5 else INK


def _on_white(color: tuple[int, int, int]) -> tuple[int, int, int]:
    """``color`` for text on the white page when it reads there (large text, 3:1), else ink."""
    return color if 1.05 / (_luminance(color) + 0.05) >= 3 else INK


class _Document(FPDF):
    footer_text = ""

    def footer(self) -> None:
        self.set_y(-MARGIN)
        self.set_font(FONT, size=7)
        self.set_text_color(*GREY)
        self.cell(0, 4, self.footer_text, align="L")
        self.set_x(self.l_margin)
        self.cell(0, 4, f"Page {self.page_no()} of {{nb}}", align="R")


def _fit(pdf: FPDF, text: str, width: float) -> str:
    """``text`` cut with "..." to ``width`` mm in the current font."""
    text = latin1(text).strip()
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "...") > width:
        text = text[:-1]
    return text.rstrip() + "..."


def _header(pdf: _Document, sheet: Sheet, color: tuple[int, int, int], lines: list[str]) -> None:
    """The workspace in its colour, the project, then ``lines`` (the last one a warning when
    some links cannot be printed), over a rule in the workspace's colour."""
    width = pdf.epw
    pdf.set_xy(MARGIN, MARGIN)
    pdf.set_font(FONT, "B", 14)
    pdf.set_text_color(*_on_white(color))
    pdf.cell(width * 0.6, 7, _fit(pdf, sheet.workspace_name, width * 0.6))
    pdf.set_font(FONT, "B", 10)
    pdf.set_text_color(*INK)
    pdf.cell(width * 0.4, 7, _fit(pdf, sheet.project_name, width * 0.4), align="R")
    for index, line in enumerate(lines):
        warning = index == 1
        pdf.set_xy(MARGIN, MARGIN + 7 + 4.5 * index)
        pdf.set_font(FONT, "B" if warning else "", 8.5)
        pdf.set_text_color(*(WARNING if warning else GREY))
        pdf.cell(width, 4.5, _fit(pdf, line, width))
    rule = MARGIN + _header_height(lines) - 3
    pdf.set_draw_color(*color)
    pdf.set_line_width(0.6)
    pdf.line(MARGIN, rule, MARGIN + width, rule)


def _header_height(lines: list[str]) -> float:
    return HEADER + 4.5 * (len(lines) - 1)


def _code(pdf: FPDF, matrix: list[list[int]], x: float, y: float, module: float) -> None:
    """The code's modules from (``x``, ``y``), ``module`` mm each: one rectangle per run of
    dark modules on a row."""
    pdf.set_fill_color(0, 0, 0)
    for row_index, row in enumerate(matrix):
        column = 0
        while column < len(row):
            if not row[column]:
                column += 1
                continue
            start = column
            while column < len(row) and row[column]:
                column += 1
            # a hair taller than a module, so no hairline shows between rows once rendered
            left, top = x + start * module, y + row_index * module
            pdf.rect(left, top, (column - start) * module, module + 0.02, style="F")


def _line(
    pdf: FPDF, text: str, width: float, height: float, style: str, sizes: tuple[float, ...]
) -> None:
    """One centred line in the largest of ``sizes`` (points) that fits, cut to fit the smallest."""
    for size in sizes:
        pdf.set_font(FONT, style, size)
        if pdf.get_string_width(latin1(text).strip()) <= width:
            break
    pdf.cell(width, height, _fit(pdf, text, width), align="C", new_x=XPos.LEFT, new_y=YPos.NEXT)


def _label(
    pdf: FPDF, label: Label, box: tuple[float, float, float, float], color: tuple[int, int, int]
) -> None:
    """A label: its cut line, a band in the workspace's colour, the code, what it is for."""
    x, y, width, height = box
    pdf.set_draw_color(*CUT)
    pdf.set_line_width(0.2)
    pdf.set_dash_pattern(dash=1.2, gap=1.2)
    pdf.rect(x, y, width, height)
    pdf.set_dash_pattern()
    inner, band, text = width - 6, 7.0, 13.0
    pdf.set_fill_color(*color)
    pdf.rect(x + 3, y + 3, inner, band, style="F", round_corners=True, corner_radius=1.5)
    pdf.set_xy(x + 3, y + 3)
    pdf.set_font(FONT, "B", 9)
    pdf.set_text_color(*_on(color))
    pdf.cell(inner, band, "REPORT A PROBLEM", align="C")
    # The code with its whole quiet zone between the band and the text.
    matrix = [list(row) for row in qr_code(label.url).matrix_iter(scale=1, border=QUIET_ZONE)]
    room = height - 3 - band - text - 2
    size = min(room, width)
    module = size / len(matrix)
    top = y + 3 + band + (room - size) / 2
    _code(pdf, matrix, x + (width - size) / 2, top, module)
    pdf.set_xy(x + 3, y + height - 3 - text)
    pdf.set_text_color(*INK)
    _line(pdf, label.title, inner, 5, "B", (10, 9, 8))
    pdf.set_text_color(*GREY)
    _line(pdf, label.details, inner, 4, "", (8, 7))
    _line(pdf, HINT, inner, 4, "", (6.5,))


def render(sheet: Sheet) -> bytes:
    """The sheet as a PDF of ``sheet.paper`` pages; one page saying so when there is nothing
    to print."""
    color = _rgb(sheet.primary_color)
    pdf = _Document(orientation="portrait", unit="mm", format=sheet.paper.lower())
    pdf.set_title(latin1(f"Occupant reporting labels: {sheet.project_name}"))
    pdf.set_author(latin1(sheet.workspace_name))
    pdf.set_creator("Plumbline")
    pdf.set_creation_date(sheet.dated)
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(auto=False)
    pdf.footer_text = latin1(f"{sheet.workspace_name} - {sheet.project_name}")
    count = len(sheet.labels)
    lines = [
        f"Occupant reporting labels: {count} code{'s' if count != 1 else ''}. "
        "Print at 100% (no fit to page) and cut along the dashed lines."
        if count
        else "Occupant reporting labels"
    ]
    if sheet.unprintable:
        lines.append(
            f"{sheet.unprintable} link{'s' if sheet.unprintable != 1 else ''} made before "
            "links had printable codes cannot be printed: make new ones to print them."
        )
    header = _header_height(lines)
    per_page = COLUMNS * ROWS
    width = (pdf.epw - GAP * (COLUMNS - 1)) / COLUMNS
    height = (pdf.h - 2 * MARGIN - header - FOOTER - GAP * (ROWS - 1)) / ROWS
    for start in range(0, max(count, 1), per_page):
        pdf.add_page()
        _header(pdf, sheet, color, lines)
        for index, label in enumerate(sheet.labels[start : start + per_page]):
            row, column = divmod(index, COLUMNS)
            x = MARGIN + column * (width + GAP)
            y = MARGIN + header + row * (height + GAP)
            _label(pdf, label, (x, y, width, height), color)
    if not count:
        pdf.set_xy(MARGIN, MARGIN + header + 30)
        pdf.set_font(FONT, "B", 13)
        pdf.set_text_color(*INK)
        pdf.cell(0, 8, "No occupant links to print yet", align="C")
        pdf.set_xy(MARGIN + 25, MARGIN + header + 40)
        pdf.set_font(FONT, size=10)
        pdf.set_text_color(*GREY)
        pdf.multi_cell(
            pdf.epw - 50,
            5,
            "Make an occupant link for an asset or an area of the building: its label "
            "appears on this sheet, ready to print and stick up.",
            align="C",
        )
    return bytes(pdf.output())
