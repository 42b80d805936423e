"""Clickable regions of a board image: which legal action each drawn thing stands for, in pixels.

Each game's image module builds a `BoardMap` from the same matplotlib axes and coordinates it draws
with (`pixel_points`), so a region always sits over the drawing (for a clickable PNG; the web app's SVG
boards draw their own places, some from the same shapes).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Region:
    """A polygon (pixel corners, y down from the image's top left) that stands for `action`."""

    action: int
    points: tuple[tuple[float, float], ...]

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in pixels."""
        xs, ys = zip(*self.points, strict=True)
        return min(xs), min(ys), max(xs), max(ys)

    def contains(self, x: float, y: float) -> bool:
        """Whether pixel (x, y) lies inside the polygon (even-odd rule)."""
        inside = False
        corners = self.points
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=True):
            if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                inside = not inside
        return inside


@dataclass(frozen=True)
class BoardMap:
    """The regions of one board image of `width` x `height` pixels."""

    width: int
    height: int
    regions: tuple[Region, ...]


def pixel_points(ax, points: Iterable[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    """Data coordinates of `ax` as image pixels (matplotlib's display space has y up; images have it down),
    kept inside the image."""
    ax.apply_aspect()  # an equal-aspect axes settles its box only when drawn; settle it now
    width, height = ax.figure.bbox.width, ax.figure.bbox.height
    shown = ax.transData.transform(np.asarray(list(points), dtype=float))
    return tuple(
        (round(min(max(float(x), 0.0), width), 1), round(min(max(float(height - y), 0.0), height), 1)) for x, y in shown
    )


def rectangle(x: float, y: float, width: float, height: float) -> tuple[tuple[float, float], ...]:
    """The four corners of an axis-aligned rectangle in data coordinates."""
    return ((x, y), (x + width, y), (x + width, y + height), (x, y + height))


def circle(x: float, y: float, radius: float, corners: int = 16) -> tuple[tuple[float, float], ...]:
    """A disc as a polygon of `corners` points (image maps take polygons)."""
    angles = np.linspace(0.0, 2 * np.pi, corners, endpoint=False)
    return tuple((x + radius * float(np.cos(a)), y + radius * float(np.sin(a))) for a in angles)


def legal_only(game_mask: np.ndarray, regions: Iterable[Region]) -> tuple[Region, ...]:
    """The regions whose action is legal now, one per action (the first given wins)."""
    seen: set[int] = set()
    kept = []
    for region in regions:
        if game_mask[region.action] and region.action not in seen:
            seen.add(region.action)
            kept.append(region)
    return tuple(kept)
