"""The printed scale: its patterns, and real length per PDF point."""

from __future__ import annotations

import re
from dataclasses import dataclass

POINTS_PER_MM = 72 / 25.4
FEET_PER_METRE = 1 / 0.3048
METRIC_SCALE = re.compile(r"\b1\s*:\s*(\d{1,5})\b")
_INCHES = r"(\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?)"
IMPERIAL_SCALE = re.compile(
    _INCHES + r"\s*(?:\"|''|in\b)\s*=\s*(\d+)\s*(?:'|ft\b)\s*(?:-?\s*(\d+)\s*\"?)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Scale:
    """Real length per PDF point: metres, and feet for an imperial scale."""

    text: str
    metres_per_point: float
    imperial: bool


def parse_scale(text: str | None) -> Scale | None:
    """``1:n``: a paper millimetre is n real millimetres; ``a" = b'-c"``: a paper inches are
    ``b + c/12`` real feet. None without a readable scale, or with a zero in it."""
    if not text:
        return None
    if m := METRIC_SCALE.search(text):
        ratio = int(m[1])
        if ratio <= 0:
            return None
        return Scale(m[0], ratio / POINTS_PER_MM / 1000, imperial=False)
    if m := IMPERIAL_SCALE.search(text):
        inches = _number(m[1])
        feet = int(m[2]) + (int(m[3]) / 12 if m[3] else 0)
        if inches <= 0 or feet <= 0:
            return None
        feet_per_point = feet / inches / 72
        return Scale(m[0], feet_per_point * 0.3048, imperial=True)
    return None


def _number(text: str) -> float:
    """A printed inch figure: ``1 1/2``, ``3/16`` or ``0.5`` (a zero denominator counts 0)."""
    total = 0.0
    for part in text.split():
        if "/" in part:
            top, bottom = part.split("/", 1)
            total += int(top) / int(bottom) if int(bottom) else 0.0
        else:
            total += float(part)
    return total


def real_length(points: float, scale: Scale | None) -> str | None:
    """A length on paper at the scale: feet for an imperial scale, else metres."""
    if scale is None:
        return None
    metres = points * scale.metres_per_point
    if scale.imperial:
        return f"{metres * FEET_PER_METRE:.2f} ft"
    return f"{metres:.2f} m"
