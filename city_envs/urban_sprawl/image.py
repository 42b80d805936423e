"""The public Urban Sprawl table as an RGB image (matplotlib, no window, no global pyplot state).

Left: the 12 x 12 city with block values, streets, water and forest edges, every building in its
zone colour with its controller's colour, and the grey circles with their markers. Right: the
planning and contract card rows with their AP costs, then every seat's wealth, prestige, hand,
Favors, vocations and offices, and the pending decision. Deck order is never shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle

from city_envs.core.regions import BoardMap, Region, circle, legal_only, pixel_points, rectangle
from city_envs.core.svg import SEAT_COLOURS
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.rules import State

ZONE_COLOURS = ("#c0392b", "#d4ac0d", "#2e86de", "#8e44ad", "#27ae60")  # CIV, COM, IND, RES, PARK
WATER, FOREST = "#aed6f1", "#a9dfbf"
WIDTH_IN, HEIGHT_IN, DPI = 14.0, 8.0, 80  # 1120 x 640 pixels
CELL = 1.0
STREET = 0.25  # gap between blocks


def _lot_xy(lot: int) -> tuple[float, float]:
    i, j = cp.LOT_COORDS[lot]
    return 1.0 + j * CELL + (j // 2) * STREET, 1.0 + i * CELL + (i // 2) * STREET


def _circle_centre(g: int) -> tuple[float, float]:
    """Grey circles T0-T2 sit on the water above the block columns, R0-R5 on the water to the right."""
    if g < 3:
        x, _ = _lot_xy(4 * (2 * g))
        return x + 2.1, 0.7
    _, y = _lot_xy(24 * (g - 3))
    return 12 * CELL + 5 * STREET + 1.3, y + 1.0


def _draw_city(ax, s: State) -> None:
    size = 12 * CELL + 5 * STREET
    ax.add_patch(Rectangle((0.6, 0.4), size + 0.8, 0.6, fc=WATER, ec="none"))  # top edge: water
    ax.add_patch(Rectangle((1.0 + size, 0.4), 0.6, size + 0.6, fc=WATER, ec="none"))  # right edge
    ax.add_patch(Rectangle((0.4, 0.4), 0.6, size + 1.2, fc=FOREST, ec="none"))  # left edge: forest
    ax.add_patch(Rectangle((0.4, 1.0 + size), size + 0.6, 0.6, fc=FOREST, ec="none"))  # bottom edge
    for block in range(cp.BLOCKS):
        x, y = _lot_xy(4 * block)
        ax.add_patch(Rectangle((x, y), 2 * CELL, 2 * CELL, fc="#f8f9f9", ec="#7f8c8d", lw=0.8))
        ax.text(
            x + 1.0,
            y + 1.0,
            str(r.block_value(s, block)),
            ha="center",
            va="center",
            fontsize=13,
            color="#d5d8dc",
            weight="bold",
        )
    contractor = s.offices[cp.CONTRACTOR]
    for b in s.buildings:
        if b is None:
            continue
        zone, _, lots, owner = b
        xs = [_lot_xy(x) for x in lots]
        x0, y0 = min(x for x, _ in xs), min(y for _, y in xs)
        x1, y1 = max(x for x, _ in xs) + CELL, max(y for _, y in xs) + CELL
        for x, y in xs:
            ax.add_patch(Rectangle((x + 0.06, y + 0.06), CELL - 0.12, CELL - 0.12, fc=ZONE_COLOURS[zone], ec="none"))
        ax.add_patch(Rectangle((x0 + 0.04, y0 + 0.04), x1 - x0 - 0.08, y1 - y0 - 0.08, fc="none", ec="black", lw=1.0))
        if owner >= 0:
            edge = "black" if owner == contractor else "white"
            ax.add_patch(Circle((x0 + 0.5, y0 + 0.5), 0.22, fc=SEAT_COLOURS[owner], ec=edge, lw=1.2))
            ax.text(x0 + 0.5, y0 + 0.5, str(owner), ha="center", va="center", fontsize=6.5, color="black")
    for c in range(6):
        x, _ = _lot_xy(4 * c)
        ax.text(x + 1.0, size + 1.35, f"W{cp.WEALTH_COLUMN[c]}", ha="center", va="center", fontsize=7)
    for band, rows in cp.BAND_ROWS.items():
        _, y = _lot_xy(24 * rows[0])
        ax.text(0.7, y + 2.1, f"P{band}", ha="center", va="center", fontsize=7, rotation=90)
    for g in range(cp.CIRCLES):
        centre = _circle_centre(g)
        marker = s.circles[g]
        fill = "#bfc9ca" if not marker else ("#f5b041" if marker in cp.WEALTH_MARKERS else "#bb8fce")
        ax.add_patch(Circle(centre, 0.27, fc=fill, ec="#566573", lw=0.8))
        ax.text(*centre, str(marker) if marker else "", ha="center", va="center", fontsize=7, weight="bold")


def _card_lines(s: State) -> list[tuple[str, str, bool]]:
    lines = [("planning cards", "#000000", True)]
    for space in range(5):
        card = r.planning_at(s, space)
        text = cp.planning_name(card) if card >= 0 else "-"
        lines.append((f"  {cp.PLANNING_SPACE_NAMES[space]} ({cp.PLANNING_AP[space]} AP): {text}", "#000000", False))
    lines.append(("contracts", "#000000", True))
    for space in range(8):
        card = r.contract_at(s, space)
        if space < 3 and not r.deck_active(s, space):
            continue
        text = cp.contract_name(card) if card >= 0 else "-"
        lines.append((f"  {cp.CONTRACT_SPACE_NAMES[space]} ({cp.CONTRACT_AP[space]} AP): {text}", "#000000", False))
    decks = ", ".join(f"{cp.DECK_NAMES[d]} {len(s.decks[d])}" for d in range(3))
    lines.append((f"decks: planning {len(s.planning_deck)}, {decks}", "#000000", False))
    lines.append(
        (
            f"election pawn: {cp.OFFICE_NAMES[s.pawn]}; Airport {'yes' if s.airport else 'no'}, "
            f"Sports Team {'yes' if s.sports else 'no'}",
            "#000000",
            False,
        )
    )
    return lines


def _seat_lines(s: State) -> list[tuple[str, str, bool]]:
    lines = []
    if s.decision == r.GAME_OVER:
        note = " (max_turns)" if s.truncated else ""
        lines.append((f"game over{note} - winners: " + ", ".join(f"seat {w}" for w in s.winners), "#b03a2e", True))
    else:
        lines.append(
            (
                f"turn {s.turns + 1}, seat {s.active} active ({s.ap} AP); "
                f"seat {s.decider}: {r.Decision.name_of(s.decision)}",
                "#b03a2e",
                True,
            )
        )
    for seat in range(s.n):
        offices = ", ".join(cp.OFFICE_NAMES[o] for o in range(6) if s.offices[o] == seat)
        extra = " + Extra Favor" if s.extra_favor == seat else ""
        lines.append(
            (
                f"seat {seat}{' <' if seat == s.active else ''}: wealth {s.wealth[seat]}, prestige "
                f"{s.prestige[seat]}  {offices}{extra}",
                SEAT_COLOURS[seat],
                True,
            )
        )
        vocations = ", ".join(f"{cp.VOCATION_NAMES[v]} {k}" for v, k in enumerate(s.vocations[seat]) if k) or "-"
        hand = " ".join(f"P{c:02d}" for c in s.hands[seat]) or "-"
        favors = " ".join(cp.CONTRACT_ID[c] for c in s.favors[seat]) or "-"
        lines.append((f"  hand {hand}; favors {favors}", "#000000", False))
        lines.append((f"  vocations {vocations}", "#000000", False))
    return lines


def _new_figure() -> tuple[Figure, object]:
    """The figure and the city's axes (one lot = one data unit, y down)."""
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    board = fig.add_axes((0.0, 0.0, 0.5, 1.0))
    extent = 12 * CELL + 5 * STREET + 2.0
    board.set_xlim(0.3, extent + 0.3)
    board.set_ylim(extent + 0.3, 0.3)
    board.set_aspect("equal")
    board.axis("off")
    return fig, board


def render_image(s: State) -> np.ndarray:
    fig, board = _new_figure()
    _draw_city(board, s)
    panel = fig.add_axes((0.51, 0.0, 0.49, 1.0))
    panel.axis("off")
    lines = _card_lines(s) + [("", "#000000", False)] + _seat_lines(s)
    for index, (text, colour, bold) in enumerate(lines):
        panel.text(
            0.0,
            0.98 - index * 0.0315,
            text,
            fontsize=8,
            color=colour,
            weight="bold" if bold else "normal",
            va="top",
            transform=panel.transAxes,
            family="monospace",
        )
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def placement_shape(
    block: int, size: int, variant: int, lot_xy: Callable[[int], tuple[float, float]], cell: float
) -> tuple[tuple[float, float], ...]:
    """Where to click for one placement of a building in a block, so that the placements of one size never
    overlap: a lot for size 1, the block's triangle on the covered side for size 2, the L's corner lot
    (the one diagonal to the uncovered lot) for size 3, the whole block for size 4. `lot_xy` gives a
    lot's top left corner in the drawing's units and `cell` a lot's side (the PNG's and the SVG's)."""
    x, y = lot_xy(4 * block)
    inset = 0.06 * cell
    if size == 1:
        lx, ly = lot_xy(4 * block + variant)
        return rectangle(lx + inset, ly + inset, cell - 2 * inset, cell - 2 * inset)
    if size == 3:
        lx, ly = lot_xy(4 * block + 3 - variant)
        return rectangle(lx + inset, ly + inset, cell - 2 * inset, cell - 2 * inset)
    side = x + 2 * cell, y + 2 * cell
    if size == 4:
        return rectangle(x, y, 2 * cell, 2 * cell)
    centre = (x + cell, y + cell)
    corners = {
        (0, 1): ((x, y), (side[0], y)),
        (2, 3): ((x, side[1]), side),
        (0, 2): ((x, y), (x, side[1])),
        (1, 3): ((side[0], y), side),
    }
    first, second = cp.FOOTPRINTS[2][variant]
    return (*corners[first, second], centre)


def board_map(s: State, mask: np.ndarray) -> BoardMap:
    """Clickable placements (PLACE), lots (buildings to pick, parks) and grey circles (markers)."""
    fig, ax = _new_figure()
    regions = []
    lots = np.flatnonzero(mask[r.LOT : r.CIRCLE]).tolist()
    if s.decision == r.Decision.PLACE:
        size = cp.CONTRACT_SIZE[r.building_card(s)]
        regions += [
            Region(r.LOT + x, pixel_points(ax, placement_shape(x // 4, size, x % 4, _lot_xy, CELL))) for x in lots
        ]
    else:
        for x in lots:
            lx, ly = _lot_xy(x)
            regions.append(
                Region(r.LOT + x, pixel_points(ax, rectangle(lx + 0.06, ly + 0.06, CELL - 0.12, CELL - 0.12)))
            )
    for g in np.flatnonzero(mask[r.CIRCLE : r.PLAYER]).tolist():
        regions.append(Region(r.CIRCLE + g, pixel_points(ax, circle(*_circle_centre(g), 0.3))))
    return BoardMap(int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI), legal_only(mask, regions))
