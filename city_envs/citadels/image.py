"""The public Citadels table as an RGB image (matplotlib, no window, no global pyplot state)."""

from __future__ import annotations

from typing import cast

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.citadels.render import character_notes, played_characters, seat_marks
from city_envs.citadels.rules import State
from city_envs.core.regions import BoardMap, Region, legal_only, pixel_points, rectangle

TYPE_COLOURS = ("#f2c230", "#3b7dd8", "#3aa655", "#d64541", "#8e44ad")  # noble .. unique
WIDTH_IN, DPI = 13.0, 96
ROW_H = 1.0  # one seat row, in data units
CARD_W = 1.0


def _winner_text(s: State) -> str:
    won = r.winners(s)
    who = ", ".join(f"seat {w}" for w in won)
    return f"game over - winner: {who}" + (" (max_rounds reached)" if s.truncated else "")


def _new_figure(n: int) -> tuple[Figure, Axes]:
    """The figure and its one axes: 13 data units wide, the header then one row per seat, y down."""
    height_units = 2.2 + n * ROW_H
    fig = Figure(figsize=(WIDTH_IN, 0.9 + 0.62 * height_units), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.005, 0.005, 0.99, 0.99))
    ax.set_xlim(0, 13)
    ax.set_ylim(height_units, 0)
    ax.axis("off")
    return fig, ax


def _character_x(rank: int) -> float:
    return 0.1 + (rank - 1) * 1.6


def _seat_top(seat: int) -> float:
    return 2.0 + seat * ROW_H


def _card_width(city_size: int) -> float:
    return min(CARD_W, 10.3 / max(1, city_size) - 0.05)  # cities may grow past completion


def _card_x(slot: int, card_w: float) -> float:
    return 2.6 + slot * (card_w + 0.05)


def render_image(s: State) -> np.ndarray:
    n = s.n
    fig, ax = _new_figure(n)

    if s.decision == r.GAME_OVER:
        status = _winner_text(s)
    else:
        status = f"seat {s.actor} to act: {r.Decision.name_of(s.decision)}"
    ax.text(
        0.1,
        0.35,
        f"Citadels - round {s.round} - {n} players - cities complete at {s.completion} - deck {len(s.deck)} - {status}",
        fontsize=12,
        weight="bold",
        va="center",
    )

    # Character row: face-up discards greyed, called ranks marked, revealers named.
    for rank in cp.RANKS:
        x = _character_x(rank)
        face_up = s.face_up & r.bit(rank)
        called = rank == s.called and s.decision != r.GAME_OVER
        colour = "#bbbbbb" if face_up else ("#fff3c4" if called else "#f4f4f4")
        ax.add_patch(FancyBboxPatch((x, 0.75), 1.45, 1.05, boxstyle="round,pad=0.02", fc=colour, ec="#555555"))
        ax.text(x + 0.72, 0.98, f"{rank} {cp.CHARACTERS[rank].name}", ha="center", fontsize=9, weight="bold")
        ax.text(x + 0.72, 1.4, "\n".join(character_notes(s, rank)), ha="center", va="center", fontsize=8)

    scores = [r.score(s, seat) for seat in range(n)]
    for seat in range(n):
        top = _seat_top(seat)
        active = seat == s.actor
        ax.add_patch(
            FancyBboxPatch(
                (0.05, top + 0.05),
                12.9,
                ROW_H - 0.1,
                boxstyle="round,pad=0.01",
                fc="#fff7d6" if active else "white",
                ec="#d4a017" if active else "#cccccc",
                lw=2 if active else 1,
            )
        )
        marks = seat_marks(s, seat)
        played = played_characters(s, seat)
        ax.text(0.15, top + 0.3, f"seat {seat}" + (" *" if active else ""), fontsize=11, weight="bold")
        ax.text(
            0.15,
            top + 0.55,
            f"{s.gold[seat]} gold  {int(s.hands[seat].sum())} cards  score {scores[seat]}",
            fontsize=8.5,
        )
        ax.text(
            0.15,
            top + 0.78,
            " ".join([", ".join(marks)] + ([f"[{', '.join(played)}]"] if played else [])),
            fontsize=7.5,
            color="#444444",
        )
        city = np.flatnonzero(s.cities[seat]).tolist()
        card_w = _card_width(len(city))
        for slot, kind in enumerate(city):
            district = cp.DISTRICTS[kind]
            x = _card_x(slot, card_w)
            ax.add_patch(
                FancyBboxPatch(
                    (x, top + 0.15),
                    card_w,
                    ROW_H - 0.3,
                    boxstyle="round,pad=0.01",
                    fc=TYPE_COLOURS[district.type],
                    ec="#333333",
                    alpha=0.85,
                )
            )
            ax.text(
                x + card_w / 2,
                top + 0.42,
                district.name.replace(" ", "\n", 1),
                ha="center",
                va="center",
                fontsize=6.5,
                color="white" if district.type != cp.NOBLE else "black",
                weight="bold",
            )
            ax.text(
                x + card_w / 2,
                top + 0.74,
                str(district.cost),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if district.type != cp.NOBLE else "black",
            )

    if s.graveyard_card >= 0:
        ax.text(
            12.9,
            0.35,
            f"awaiting the Graveyard: {cp.DISTRICTS[s.graveyard_card].name}",
            ha="right",
            fontsize=9,
            color="#8e44ad",
        )
    canvas = cast(FigureCanvasAgg, fig.canvas)  # _new_figure gave the figure an Agg canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def board_map(s: State, mask: np.ndarray) -> BoardMap:
    """Clickable characters (to assassinate or rob), seat rows (the Magician's swap) and districts in
    cities (the Warlord's destruction): the targets of a character's ability."""
    fig, ax = _new_figure(s.n)
    actor = s.turn_seat if s.turn_seat >= 0 else s.actor
    regions = []
    for rank in cp.RANKS:
        box = rectangle(_character_x(rank), 0.75, 1.45, 1.05)
        regions += [
            Region(r.ASSASSINATE + rank - 1, pixel_points(ax, box)),
            Region(r.ROB + rank - 1, pixel_points(ax, box)),
        ]
    for seat in range(s.n):
        offset = (seat - actor) % s.n
        if offset:
            box = rectangle(0.05, _seat_top(seat) + 0.05, 2.45, ROW_H - 0.1)  # the seat's name and purse
            regions.append(Region(r.MAGICIAN_SWAP + offset - 1, pixel_points(ax, box)))
        city = np.flatnonzero(s.cities[seat]).tolist()
        card_w = _card_width(len(city))
        for slot, kind in enumerate(city):
            box = rectangle(_card_x(slot, card_w), _seat_top(seat) + 0.15, card_w, ROW_H - 0.3)
            regions.append(Region(r.DESTROY + offset * cp.NUM_KINDS + kind, pixel_points(ax, box)))
    width, height = fig.canvas.get_width_height()
    return BoardMap(width, height, legal_only(mask, regions))
