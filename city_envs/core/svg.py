"""Board drawings as SVG documents: crisp at any size, text a person can select, and the places a legal
action stands for as elements carrying its id (the web app makes them clickable).

Every game's `svg.py` draws with `Drawing`, which keeps three promises for all of them:
- every text and attribute is XML-escaped here (names come from data and player input: untrusted);
- a seat's colour (`SEAT_COLOURS`, the one palette) is painted only through `seat=`, which marks the
  element `data-seat`; any other paint close to a seat colour is refused, so no board element can be
  mistaken for a seat;
- no text is smaller than `MIN_FONT` user units, and boards are at most `MAX_WIDTH` units wide, so a
  label reads at >= 11 px when the board is shown ~890 px wide (100% zoom on a 1366 x 768 screen).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

SEAT_COLOURS = ("#d62728", "#1f5fbf", "#e6a100", "#b0249c", "#0f8b8d", "#7a4a1e", "#3c8d2f")  # Citadels seats 7
MIN_FONT = 13.0
MAX_WIDTH = 1040.0
# a paint this close to a seat colour (CIE76 difference; about 2 is the least the eye notices) could be
# read as that seat
MIN_SEAT_DISTANCE = 30.0
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
Point = tuple[float, float]


def escape(text: object) -> str:
    """`text` safe inside an XML element or a double-quoted attribute."""
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def rgb(colour: str) -> tuple[int, int, int]:
    """'#rrggbb' as three integers."""
    text = colour.lstrip("#")
    if len(text) != 6:
        raise ValueError(f"a board colour is written #rrggbb, not {colour!r}")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


@functools.lru_cache(maxsize=256)  # a board paints with a few dozen colours, thousands of times
def lab(colour: str) -> tuple[float, float, float]:
    """'#rrggbb' in CIE L*a*b* (D65), where distances follow what the eye tells apart."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (linear(c) for c in rgb(colour))
    x = (0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047
    y = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    z = (0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


@functools.lru_cache(maxsize=256)
def seat_distance(colour: str) -> float:
    """How far `colour` is from the nearest seat colour (CIE76 colour difference)."""
    here = lab(colour)
    return min(sum((a - b) ** 2 for a, b in zip(here, lab(seat), strict=True)) ** 0.5 for seat in SEAT_COLOURS)


def _number(value: float) -> str:
    return f"{round(value, 1):g}"  # board coordinates stay below 10^5, within %g's six digits


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_number(x)},{_number(y)}" for x, y in points)


class Drawing:
    """An SVG document being drawn, `width` x `height` user units, elements in drawing order."""

    def __init__(self, width: float, height: float, title: str) -> None:
        if width > MAX_WIDTH:
            raise ValueError(f"a board is at most {MAX_WIDTH:g} units wide (its labels would shrink), not {width:g}")
        self.width, self.height, self.title = width, height, title
        self.parts: list[str] = []

    # ----- paint ----------------------------------------------------------------------------------
    @staticmethod
    def _paint(colour: str | None) -> str:
        if colour is None or colour == "none":
            return "none"
        if seat_distance(colour) < MIN_SEAT_DISTANCE:
            raise ValueError(f"{colour} is (close to) a seat colour: paint seats with seat=")
        return colour

    def _style(self, fill: str | None, stroke: str | None, width: float, seat: int | None, seat_as: str) -> str:
        fill, stroke = self._paint(fill), self._paint(stroke)
        extra = ""
        if seat is not None:
            if seat_as == "fill":
                fill = SEAT_COLOURS[seat]
            else:
                stroke = SEAT_COLOURS[seat]
            extra = f' data-seat="{seat}"'
        stroke_part = f' stroke="{stroke}" stroke-width="{_number(width)}"' if stroke != "none" else ""
        return f'fill="{fill}"{stroke_part}{extra}'

    # ----- shapes ---------------------------------------------------------------------------------
    def rect(
        self,
        x: float,
        y: float,
        width: float,
        height: float,
        fill: str | None = None,
        stroke: str | None = None,
        stroke_width: float = 1.0,
        seat: int | None = None,
        seat_as: str = "stroke",
        rx: float = 0.0,
        dash: str = "",
    ) -> None:
        corner = f' rx="{_number(rx)}"' if rx else ""
        dashes = f' stroke-dasharray="{escape(dash)}"' if dash else ""
        self.parts.append(
            f'<rect x="{_number(x)}" y="{_number(y)}" width="{_number(width)}" height="{_number(height)}"{corner}'
            f"{dashes} {self._style(fill, stroke, stroke_width, seat, seat_as)}/>"
        )

    def polygon(
        self,
        points: Sequence[Point],
        fill: str | None = None,
        stroke: str | None = None,
        stroke_width: float = 1.0,
        seat: int | None = None,
        seat_as: str = "stroke",
    ) -> None:
        self.parts.append(
            f'<polygon points="{_points(points)}" {self._style(fill, stroke, stroke_width, seat, seat_as)}/>'
        )

    def circle(
        self,
        x: float,
        y: float,
        radius: float,
        fill: str | None = None,
        stroke: str | None = None,
        stroke_width: float = 1.0,
        seat: int | None = None,
        seat_as: str = "stroke",
        dash: str = "",
    ) -> None:
        dashes = f'stroke-dasharray="{escape(dash)}" ' if dash else ""
        self.parts.append(
            f'<circle cx="{_number(x)}" cy="{_number(y)}" r="{_number(radius)}" {dashes}'
            f"{self._style(fill, stroke, stroke_width, seat, seat_as)}/>"
        )

    def line(
        self, a: Point, b: Point, stroke: str | None, width: float = 1.0, seat: int | None = None, dash: str = ""
    ) -> None:
        dashes = f' stroke-dasharray="{escape(dash)}"' if dash else ""
        self.parts.append(
            f'<line x1="{_number(a[0])}" y1="{_number(a[1])}" x2="{_number(b[0])}" y2="{_number(b[1])}"{dashes} '
            f'stroke-linecap="round" {self._style(None, stroke, width, seat, "stroke")}/>'
        )

    def text(
        self,
        x: float,
        y: float,
        text: object,
        size: float = 14.0,
        anchor: str = "start",
        bold: bool = False,
        fill: str = "#1b2631",
        seat: int | None = None,
        middle: bool = False,
    ) -> None:
        """`text` with its baseline at y (its middle, when `middle`); a seat's text is in the seat's colour."""
        if size < MIN_FONT:
            raise ValueError(f"board text is at least {MIN_FONT:g} units high, not {size:g}: {text!r}")
        if anchor not in ("start", "middle", "end"):
            raise ValueError(f"text anchor is start, middle or end, not {anchor!r}")
        weight = ' font-weight="bold"' if bold else ""
        baseline = ' dominant-baseline="central"' if middle else ""
        self.parts.append(
            f'<text x="{_number(x)}" y="{_number(y)}" font-size="{_number(size)}" text-anchor="{anchor}"{weight}'
            f"{baseline} {self._style(fill, None, 0, seat, 'fill')}>{escape(text)}</text>"
        )

    def text_block(
        self,
        x: float,
        y: float,
        rows: Sequence[str],
        size: float = 13.0,
        anchor: str = "start",
        fill: str = "#1b2631",
        bold: bool = False,
    ) -> None:
        """One text of several lines (the first baseline at y), read and copied as one: each line but the
        last ends in a space, so a name broken over lines stays the name."""
        if size < MIN_FONT:
            raise ValueError(f"board text is at least {MIN_FONT:g} units high, not {size:g}: {rows!r}")
        if anchor not in ("start", "middle", "end"):
            raise ValueError(f"text anchor is start, middle or end, not {anchor!r}")
        weight = ' font-weight="bold"' if bold else ""
        spans = "".join(
            f'<tspan x="{_number(x)}" dy="{_number(0 if index == 0 else size * 1.2)}">{escape(row)}'
            f"{' ' if index < len(rows) - 1 else ''}</tspan>"
            for index, row in enumerate(rows)
        )
        self.parts.append(
            f'<text x="{_number(x)}" y="{_number(y)}" font-size="{_number(size)}" text-anchor="{anchor}"{weight} '
            f"{self._style(fill, None, 0, None, 'fill')}>{spans}</text>"
        )

    def choice(self, action: int, text: str, points: Sequence[Point], layer: str = "") -> None:
        """A clickable place: a polygon over the drawing that stands for legal `action`, with the text of
        its button as tooltip and accessible name (the page presses that button when it is clicked). Drawn
        in neutral black (every colour may mean a seat); the page's style sheet highlights it on hover.
        A place in a `layer` is shown only while that layer's switch (`layer_switch`) is on, in place of
        the places of no layer: places of one layer may lie over those of another."""
        named = f' data-layer="{escape(layer)}"' if layer else ""
        self.parts.append(
            f'<g class="choice" data-action="{int(action)}"{named} role="button" tabindex="0" '
            f'aria-label="{escape(text)}"><title>{escape(text)}</title><polygon points="{_points(points)}" '
            'fill="#000000" fill-opacity="0.07" stroke="#111111" stroke-width="2" stroke-dasharray="5 3"/></g>'
        )

    def layer_switch(self, layer: str, text: str, points: Sequence[Point]) -> None:
        """A clickable place that shows the places of `layer` on the board (and hides those of no layer);
        clicked again, it turns them back. `text` is its tooltip and accessible name."""
        self.parts.append(
            f'<g class="layer-switch" data-layer="{escape(layer)}" role="button" tabindex="0" '
            f'aria-pressed="false" aria-label="{escape(text)}"><title>{escape(text)}</title>'
            f'<polygon points="{_points(points)}" fill="#000000" fill-opacity="0.07" stroke="#111111" '
            'stroke-width="2" stroke-dasharray="5 3"/></g>'
        )

    def legend(
        self,
        x: float,
        y: float,
        items: Sequence[tuple[str, str | int]],
        size: float = 13.0,
        columns: int = 1,
        column_width: float = 0.0,
    ) -> float:
        """A titled key at (x, y): per item a swatch (a colour, or a seat number for its colour) and its
        meaning, filled row by row over `columns`. Returns the y below it."""
        self.parts.append('<g class="legend">')
        self.text(x, y + size, "Legend", size=size, bold=True)
        top = y + size * 1.6
        step = size * 1.45
        for index, (label, swatch) in enumerate(items):
            row, column = divmod(index, columns)
            left, high = x + column * column_width, top + row * step
            if isinstance(swatch, int):
                self.rect(left, high, size, size, seat=swatch, seat_as="fill")
            else:
                self.rect(left, high, size, size, fill=swatch, stroke="#555555")
            self.text(left + size * 1.5, high + size * 0.85, label, size=size)
        self.parts.append("</g>")
        return top + -(-len(items) // columns) * step

    def lines(
        self, x: float, y: float, rows: Sequence[tuple[str, int | None, bool]], size: float = 14.0, gap: float = 1.35
    ) -> float:
        """Rows of text downwards from y (each: text, its seat or None, bold); returns the y below them."""
        for row, seat, bold in rows:
            y += size * gap
            if row:
                self.text(x, y, row, size=size, bold=bold, seat=seat)
        return y

    def document(self) -> str:
        """The drawing as one SVG document (its own namespace, so it can be served alone or inlined)."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="board-svg" viewBox="0 0 {_number(self.width)} '
            f'{_number(self.height)}" width="{_number(self.width)}" height="{_number(self.height)}" '
            f'font-family="{FONT}" role="img" aria-labelledby="board-title">'
            f'<title id="board-title">{escape(self.title)}</title>'
            f'<rect x="0" y="0" width="{_number(self.width)}" height="{_number(self.height)}" fill="#ffffff"/>'
        )
        return head + "".join(self.parts) + "</svg>"


def choices_of(mask: np.ndarray, texts: Mapping[int, str]) -> dict[int, str]:
    """The button texts of the legal actions among `texts` (only these become clickable)."""
    return {action: text for action, text in texts.items() if 0 <= action < len(mask) and mask[action]}
