"""The public Blue Moon City table as an RGB image (matplotlib, no window, no global pyplot state).

The cross-shaped city: every tile with its name and sections (colour, value, the marker's seat),
completed tiles shaded, dragons and figures on their tiles; beside it the obelisk (spaces bottom up
with their owners) and every seat's public state. Hands are never shown.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.blue_moon_city.rules import State
from city_envs.core.regions import BoardMap, Region, legal_only, pixel_points, rectangle

CARD_COLOURS = ("#2b2b2b", "#c0392b", "#2e86de", "#95a5a6", "#8d6e63", "#f4f4f4", "#f1c40f", "#27ae60")
ANY_COLOUR = "#d7bde2"
SEAT_COLOURS = ("#e74c3c", "#3498db", "#2ecc71", "#f39c12")
DRAGON_COLOURS = ("#e74c3c", "#27ae60", "#2e86de")  # Fire (red figure), Earth (green), Water (blue)
WIDTH_IN, HEIGHT_IN, DPI = 12.5, 8.0, 80  # 1000 x 640 pixels


def _section_x(x: float, section: int, count: int) -> float:
    """The left edge of section `section` of a tile at x (sections are 0.9 / count wide, 0.34 high at y + 0.24)."""
    return x + 0.05 + section * 0.9 / count


def _draw_tile(ax, s: State, position: int) -> None:
    row, col = cp.CELLS[position]
    x, y = col, row
    tile = s.tile_at[position]
    shade = "#fdebd0" if tile == cp.COURTYARD else "#d5d8dc" if s.complete[position] else "#fbfcfc"
    ax.add_patch(Rectangle((x + 0.03, y + 0.03), 0.94, 0.94, fc=shade, ec="#34495e", lw=1.2))
    ax.text(x + 0.5, y + 0.12, cp.TILE_NAMES[tile], ha="center", va="center", fontsize=6.5, weight="bold")
    ax.text(x + 0.06, y + 0.92, f"p{position}", fontsize=5.5, color="#7f8c8d")
    if tile == cp.COURTYARD:
        ax.text(x + 0.5, y + 0.5, "obelisk", ha="center", va="center", fontsize=7, color="#7f8c8d")
    elif s.complete[position]:
        ax.text(x + 0.5, y + 0.42, "complete", ha="center", va="center", fontsize=7, color="#566573")
    else:
        sections = cp.SECTIONS[tile]
        width = 0.9 / len(sections)
        for i, (colour, value) in enumerate(sections):
            sx = _section_x(x, i, len(sections))
            face = ANY_COLOUR if colour == cp.ANY else CARD_COLOURS[colour]
            ax.add_patch(Rectangle((sx, y + 0.24), width - 0.02, 0.34, fc=face, ec="#555555", lw=0.6))
            dark = colour in (cp.BLACK, cp.RED, cp.BLUE, cp.BROWN)
            ax.text(
                sx + (width - 0.02) / 2,
                y + 0.33,
                str(value),
                ha="center",
                va="center",
                fontsize=7,
                color="white" if dark else "black",
            )
            seat = s.markers_on[position][i]
            if seat >= 0:
                ax.add_patch(
                    Rectangle(
                        (sx + (width - 0.02) / 2 - 0.06, y + 0.43),
                        0.12,
                        0.12,
                        fc=SEAT_COLOURS[seat],
                        ec="black",
                        lw=0.6,
                    )
                )
    for d in range(3):
        if s.dragons[d] == position:
            ax.add_patch(Circle((x + 0.2 + 0.18 * d, y + 0.72), 0.07, fc=DRAGON_COLOURS[d], ec="black", lw=0.8))
            ax.text(x + 0.2 + 0.18 * d, y + 0.72, "D", ha="center", va="center", fontsize=5.5, color="white")
    for seat in range(s.n):
        if s.figures[seat] == position:
            ax.add_patch(
                Rectangle((x + 0.62 + 0.08 * seat, y + 0.78), 0.07, 0.13, fc=SEAT_COLOURS[seat], ec="black", lw=0.8)
            )


def _draw_obelisk(ax, s: State) -> None:
    costs = cp.OBELISK_COSTS[s.n]
    ax.text(0.5, -0.35, "obelisk", ha="center", fontsize=8, weight="bold")
    for index, cost in enumerate(costs):
        y = len(costs) - 1 - index
        owner = s.obelisk[index] if index < len(s.obelisk) else -1
        ax.add_patch(
            Rectangle(
                (0.1, y * 0.42), 0.8, 0.38, fc=SEAT_COLOURS[owner] if owner >= 0 else "#ecf0f1", ec="#555555", lw=0.6
            )
        )
        ax.text(0.5, y * 0.42 + 0.19, str(cost), ha="center", va="center", fontsize=7)


def _panel_lines(s: State) -> list[tuple[str, str, bool]]:
    lines = [
        (f"Blue Moon City, {s.n} players, turn {s.turns + 1}", "#000000", True),
        (f"scales left {s.scale_supply}, deck {len(s.deck)}, discard {sum(s.discard)}", "#000000", False),
    ]
    if s.decision == r.GAME_OVER:
        note = " (max_rounds)" if s.truncated else ""
        lines.append((f"game over{note} - winners: " + ", ".join(f"seat {w}" for w in s.winners), "#b03a2e", True))
    else:
        lines.append((f"seat {s.active}: {r.Decision.name_of(s.decision)}", "#b03a2e", True))
        if s.payment is not None:
            pay = s.payment
            colour = cp.COLOUR_NAMES[pay.colour] if pay.colour >= 0 else "colour?"
            lines.append((f"paying section {pay.section}: {pay.total}/{pay.value} {colour}", "#000000", False))
    lines.append(("", "#000000", False))
    for seat in range(s.n):
        pending = f" +{len(s.pending)} pending" if seat == s.active and s.pending else ""
        lines.append((f"seat {seat}" + (" <" if seat == s.active else ""), SEAT_COLOURS[seat], True))
        lines.append(
            (
                f"  offerings {s.offerings[seat]}/{cp.OFFERINGS_TO_WIN[s.n]}, crystals {s.crystals[seat]}",
                "#000000",
                False,
            )
        )
        lines.append(
            (
                f"  scales {s.scales[seat]}, markers {s.markers[seat]}, cards {sum(s.hands[seat])}{pending}",
                "#000000",
                False,
            )
        )
    return lines


def _new_figure() -> tuple[Figure, Axes]:
    """The figure and the city's axes: a 5 x 5 grid of tile cells, one data unit each, y down."""
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    board = fig.add_axes((0.0, 0.0, 0.62, 1.0))
    board.set_xlim(0, 5)
    board.set_ylim(5, 0)
    board.set_aspect("equal")
    board.axis("off")
    return fig, board


def render_image(s: State) -> np.ndarray:
    fig, board = _new_figure()
    for position in range(cp.NUM_POSITIONS):
        _draw_tile(board, s, position)
    obelisk = fig.add_axes((0.63, 0.05, 0.07, 0.9))
    obelisk.set_xlim(0, 1)
    obelisk.set_ylim(len(cp.OBELISK_COSTS[s.n]) * 0.42, -0.6)
    obelisk.axis("off")
    _draw_obelisk(obelisk, s)
    panel = fig.add_axes((0.72, 0.0, 0.28, 1.0))
    panel.axis("off")
    for index, (text, colour, bold) in enumerate(_panel_lines(s)):
        panel.text(
            0.0,
            0.97 - index * 0.045,
            text,
            fontsize=9,
            color=colour,
            weight="bold" if bold else "normal",
            va="top",
            transform=panel.transAxes,
        )
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def board_map(s: State, mask: np.ndarray) -> BoardMap:
    """Clickable tiles (where the figure moves) and sections of the figure's tile (which one to build)."""
    _, ax = _new_figure()
    regions = []
    for position in np.flatnonzero(mask[r.MOVE_FIGURE : r.SELECT_SECTION]).tolist():
        row, col = cp.CELLS[position]
        regions.append(
            Region(r.MOVE_FIGURE + position, pixel_points(ax, rectangle(col + 0.03, row + 0.03, 0.94, 0.94)))
        )
    if s.decision != r.GAME_OVER and s.figures[s.active] >= 0:
        row, col = cp.CELLS[s.figures[s.active]]
        count = len(cp.SECTIONS[s.tile_at[s.figures[s.active]]])
        for section in np.flatnonzero(mask[r.SELECT_SECTION : r.END_CONTRIBUTION]).tolist():
            box = rectangle(_section_x(col, section, count), row + 0.24, 0.9 / count - 0.02, 0.34)
            regions.append(Region(r.SELECT_SECTION + section, pixel_points(ax, box)))
    return BoardMap(int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI), legal_only(mask, regions))
