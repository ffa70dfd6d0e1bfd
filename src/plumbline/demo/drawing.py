"""A small architectural floor plan as a real PDF (fpdf2), for the demo's drawing set."""

from __future__ import annotations

import base64
import math
import struct
import zlib

from fpdf import FPDF

from plumbline.kit import clock

GRID_X = "ABCDEF"
ROOMS = [  # (label, x, y, width, height) in grid bays
    ("OPEN OFFICE 301", 0, 0, 3, 2),
    ("CONF 302", 3, 0, 1, 1),
    ("CONF 303", 4, 0, 1, 1),
    ("CORRIDOR", 3, 1, 2, 1),
    ("STAIR 2", 0, 2, 1, 1),
    ("ELEV", 1, 2, 1, 1),
    ("RESTROOMS", 2, 2, 1, 1),
    ("MECH 304", 3, 2, 2, 1),
]


def floor_plan(revision: int) -> bytes:
    """Sheet A-201 at the given revision; revision 2 adds a shaft and a revision note."""
    pdf = FPDF(orientation="landscape", format="A3", unit="mm")
    pdf.set_creation_date(clock.now())
    pdf.set_title("A-201 Level 3 Floor Plan")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 16)
    pdf.text(20, 20, "HARBOR VIEW TOWER - LEVEL 3 FLOOR PLAN")
    left, top, bay = 40.0, 40.0, 60.0
    pdf.set_draw_color(160, 160, 160)
    pdf.set_font("helvetica", "", 10)
    for i, letter in enumerate(GRID_X):
        x = left + i * bay
        pdf.line(x, top - 8, x, top + 3 * bay + 8)
        pdf.text(x - 2, top - 11, letter)
    for row in range(4):
        y = top + row * bay
        pdf.line(left - 8, y, left + 5 * bay + 8, y)
        pdf.text(left - 15, y + 2, str(row + 1))
    pdf.set_draw_color(0, 0, 0)
    pdf.set_line_width(0.8)
    for label, x, y, w, h in ROOMS:
        pdf.rect(left + x * bay, top + y * bay, w * bay, h * bay)
        pdf.text(left + x * bay + 4, top + y * bay + 8, label)
    if revision >= 2:
        pdf.set_draw_color(200, 0, 0)
        pdf.rect(left + 2 * bay + 40, top + 3 * bay - 20, 15, 15)
        pdf.set_text_color(200, 0, 0)
        pdf.text(left + 2 * bay + 20, top + 3 * bay + 4, "NEW SHAFT (REV 2)")
        pdf.set_text_color(0, 0, 0)
    # Title block
    pdf.set_line_width(0.4)
    pdf.rect(360, 240, 50, 45)
    pdf.set_font("helvetica", "B", 12)
    pdf.text(364, 250, "A-201")
    pdf.set_font("helvetica", "", 9)
    pdf.text(364, 258, "Level 3 Floor Plan")
    pdf.text(364, 265, "Scale 1:100")
    pdf.text(364, 272, f"Revision {revision}")
    pdf.text(364, 279, "Demo Construction Co.")
    return bytes(pdf.output())


def signature_data_url(width: int = 240, height: int = 80) -> str:
    """A handwritten-looking signature stroke as a PNG data URL (what a signature pad sends)."""
    pixels = [[255] * width for _ in range(height)]
    for x in range(10, width - 10):
        t = x / width
        y = int(height / 2 + 18 * math.sin(t * 14) * (1 - t) + 6 * math.sin(t * 41))
        for dy in (-1, 0, 1):
            pixels[max(0, min(height - 1, y + dy))][x] = 20
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode()
