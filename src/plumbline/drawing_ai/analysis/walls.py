"""Walls: the heavy strokes of the drawing area, merged into runs, and the area they span."""

from __future__ import annotations

import math

from plumbline.drawing_ai.analysis.regions import Regions
from plumbline.drawing_ai.analysis.scale import POINTS_PER_MM
from plumbline.drawing_ai.extract import Box, PageContent, Segment

WALL_MIN_WIDTH = 1.0  # points (0.35 mm): thinner strokes are annotation, not walls
WALL_MIN_LENGTH = 3 * POINTS_PER_MM  # shorter strokes are ticks and hatching
EDGE_BAND = 15 * POINTS_PER_MM  # strokes this close to a page edge are the sheet border
ANGLE_TOLERANCE = math.radians(1.0)
OFFSET_TOLERANCE = 1.0  # points between two strokes of one straight wall
GAP_TOLERANCE = 1.0  # points: strokes this close along a wall are one wall


def _near_edge(page: PageContent, s: Segment) -> bool:
    """Both ends within the border band of the same page edge: the sheet's frame."""
    return (
        max(s.x0, s.x1) <= EDGE_BAND
        or max(s.y0, s.y1) <= EDGE_BAND
        or min(s.x0, s.x1) >= page.width - EDGE_BAND
        or min(s.y0, s.y1) >= page.height - EDGE_BAND
    )


def wall_segments(page: PageContent, reg: Regions) -> list[Segment]:
    """Stroked segments of wall weight and length in the drawing area."""
    return [
        s
        for s in page.segments
        if s.width >= WALL_MIN_WIDTH
        and math.hypot(s.x1 - s.x0, s.y1 - s.y0) >= WALL_MIN_LENGTH
        and not _near_edge(page, s)
        and not (reg.in_annotation(s.x0, s.y0, 2.0) and reg.in_annotation(s.x1, s.y1, 2.0))
    ]


def merged_runs(segments: list[Segment]) -> list[tuple[float, Box]]:
    """Collinear strokes merged into runs (a wall drawn as overlapping or touching strokes
    counts once): each run's length in points and its box."""
    lines: list[tuple[float, float, float, float]] = []  # angle, offset, start, end
    for s in segments:
        angle = math.atan2(s.y1 - s.y0, s.x1 - s.x0) % math.pi
        if angle > math.pi - ANGLE_TOLERANCE:
            angle = 0.0
        dx, dy = math.cos(angle), math.sin(angle)
        offset = -dy * s.x0 + dx * s.y0
        a, b = dx * s.x0 + dy * s.y0, dx * s.x1 + dy * s.y1
        lines.append((angle, offset, min(a, b), max(a, b)))
    lines.sort()
    groups: list[list[tuple[float, float, float, float]]] = []
    for line in lines:
        for group in groups[-8:]:
            ref = group[0]
            if (
                abs(line[0] - ref[0]) <= ANGLE_TOLERANCE
                and abs(line[1] - ref[1]) <= OFFSET_TOLERANCE
            ):
                group.append(line)
                break
        else:
            groups.append([line])
    runs: list[tuple[float, Box]] = []
    for group in groups:
        angle, offset = group[0][0], group[0][1]
        intervals = sorted((start, end) for _, _, start, end in group)
        start, end = intervals[0]
        for a, b in intervals[1:]:
            if a <= end + GAP_TOLERANCE:
                end = max(end, b)
            else:
                runs.append(_run(angle, offset, start, end))
                start, end = a, b
        runs.append(_run(angle, offset, start, end))
    return runs


def _run(angle: float, offset: float, start: float, end: float) -> tuple[float, Box]:
    """A merged run's length and box, back from (angle, offset, interval) to page points."""
    dx, dy = math.cos(angle), math.sin(angle)
    ends = [(dx * t - dy * offset, dy * t + dx * offset) for t in (start, end)]
    xs, ys = [p[0] for p in ends], [p[1] for p in ends]
    return end - start, Box(min(xs), min(ys), max(xs), max(ys))


def drawing_extent(page: PageContent, reg: Regions) -> Box | None:
    """The drawing's box: the extent of its wall strokes; None without walls."""
    walls = wall_segments(page, reg)
    if not walls:
        return None
    return Box(
        min(min(s.x0, s.x1) for s in walls),
        min(min(s.y0, s.y1) for s in walls),
        max(max(s.x0, s.x1) for s in walls),
        max(max(s.y0, s.y1) for s in walls),
    )
