"""The public Metropolys board as an RGB image (matplotlib, no window, no global pyplot state).

Neighbourhoods are drawn at their approximate board positions as discs of their colour, joined by
their adjacencies (bridges dashed); lakes and statues are marked; tokens, built buildings (filled
squares in the player's colour with the value) and bids (rings with the value, the top bid
highlighted) sit on them. A side panel lists every seat's public state. Secret cards appear only
once the game is over.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.rules import State
from city_envs.metropolys.view import secret_cards

NBHD_COLOURS = ("#9a9a9a", "#f29b38", "#5cb85c", "#d9534f", "#4a7fd1")  # gray, orange, green, red, blue
SEAT_COLOURS = ("#1f5fbf", "#c0392b", "#ffffff", "#6d6d6d")  # blue, red, white, grey pieces
TOKEN_STYLE = {cp.TRENDY: ("T", "#8e44ad"), cp.SUBWAY: ("S", "#2e86de"), cp.ARCH: ("A", "#e84393")}
WIDTH_IN, HEIGHT_IN, DPI = 12.5, 8.0, 80  # 1000 x 640 pixels
_EDGES = tuple((a, b) for a in range(cp.NUM_NBHDS) for b in cp.ADJ[a] if a < b)


def _xy(nb: int) -> tuple[float, float]:
    x, y = cp.POSITION[nb]
    return x, y


def _draw_board(ax, s: State) -> None:
    for a, b in _EDGES:
        bridge = cp.DISTRICT[a] != cp.DISTRICT[b]
        faded = not (s.in_play[a] and s.in_play[b])
        (xa, ya), (xb, yb) = _xy(a), _xy(b)
        ax.plot((xa, xb), (ya, yb), color="#8c6d3f" if bridge else "#c8c8c8", lw=2.2 if bridge else 1.2,
                ls="--" if bridge else "-", alpha=0.25 if faded else 0.9, zorder=1)
    for index, lake in enumerate(cp.LAKES, start=1):
        x = float(np.mean([_xy(nb)[0] for nb in lake]))
        y = float(np.mean([_xy(nb)[1] for nb in lake]))
        ax.scatter([x], [y], s=260, c="#aed6f1", marker="o", zorder=1.5, alpha=0.8)
        ax.text(x, y, f"L{index}", ha="center", va="center", fontsize=7, color="#1b4f72", zorder=1.6)
    for statue in cp.STATUES:
        x = float(np.mean([_xy(nb)[0] for nb in statue]))
        y = float(np.mean([_xy(nb)[1] for nb in statue]))
        ax.scatter([x], [y], s=30, c="#b7950b", marker="*", zorder=1.5)
    for nb in range(cp.NUM_NBHDS):
        x, y = _xy(nb)
        alpha = 1.0 if s.in_play[nb] else 0.15
        edge = "#000000" if nb in cp.BORDER else "#555555"
        ax.scatter([x], [y], s=520, c=NBHD_COLOURS[cp.COLOUR[nb]], edgecolors=edge, linewidths=1.0,
                   alpha=alpha, zorder=2)
        ax.text(x - 2.3, y - 2.3, str(nb), fontsize=6.5, color="#333333", alpha=max(alpha, 0.4), zorder=5)


def _draw_pieces(ax, s: State) -> None:
    for nb in range(cp.NUM_NBHDS):
        x, y = _xy(nb)
        if s.token[nb] != cp.NO_TOKEN:
            letter, colour = TOKEN_STYLE[s.token[nb]]
            ax.text(x + 2.2, y + 2.4, letter, fontsize=7.5, weight="bold", color="white", ha="center", va="center",
                    bbox={"boxstyle": "circle,pad=0.15", "fc": colour, "ec": "none"}, zorder=6)
        if s.owner[nb] >= 0:
            seat = s.owner[nb]
            ax.scatter([x], [y], s=240, c=SEAT_COLOURS[seat], marker="s", edgecolors="black", linewidths=1.0,
                       zorder=3)
            ax.text(x, y, str(s.built_value[nb]), ha="center", va="center", fontsize=8, weight="bold",
                    color="black" if seat == 2 else "white", zorder=4)
    top = s.bids[-1] if s.bids else None
    for seat, nb, value in s.bids:
        x, y = _xy(nb)
        is_top = (seat, nb, value) == top
        ax.scatter([x], [y], s=300, facecolors="none", edgecolors="#f1c40f" if is_top else "black",
                   linewidths=3.0 if is_top else 1.5, zorder=3)
        ax.scatter([x], [y], s=150, c=SEAT_COLOURS[seat], edgecolors="black", linewidths=0.8, zorder=3.5)
        ax.text(x, y, str(value), ha="center", va="center", fontsize=8, weight="bold",
                color="black" if seat == 2 else "white", zorder=4)


def _panel_lines(s: State) -> list[tuple[str, str, bool]]:
    """(text, colour, bold) lines of the side panel."""
    over = s.decision == r.GAME_OVER
    lines = [(f"Metropolys ({s.version}), {s.n} players", "#000000", True),
             (f"calls completed: {s.calls}", "#000000", False)]
    if s.removed:
        lines.append(("removed: " + ", ".join(cp.DISTRICT_NAMES[d] for d in s.removed), "#000000", False))
    if over:
        lines.append(("game over - winner: " + ", ".join(f"seat {w}" for w in r.winners(s)), "#b03a2e", True))
    elif s.bids:
        seat, nb, value = s.bids[-1]
        step = "choose a value" if s.decision == r.VALUE else "outbid or pass"
        lines.append((f"top bid: seat {seat}, {value} on {nb}", "#000000", False))
        lines.append((f"seat {s.actor} to {step}", "#b03a2e", True))
    else:
        lines.append((f"seat {s.actor} opens a call", "#b03a2e", True))
    lines.append(("", "#000000", False))
    for seat in range(s.n):
        trendy, subway, arch = s.tokens[seat]
        marks = [name for name, held in (("Subway card", s.subway_card == seat), ("Arch card", s.arch_card == seat))
                 if held]
        if s.passed >> seat & 1:
            marks.append("passed")
        head = f"seat {seat} ({cp.PLAYER_COLOURS[seat]})" + (" <" if seat == s.actor else "")
        lines.append((head, SEAT_COLOURS[seat] if seat != 2 else "#000000", True))
        lines.append((f"  built {s.built[seat]}/13, tokens T{trendy} S{subway} A{arch}", "#000000", False))
        lines.append((f"  supply {' '.join(map(str, r.values_of(s.supply[seat])))}", "#000000", False))
        public = f"  public score {r.token_points(s, seat)}"
        lines.append((public + (f"  {', '.join(marks)}" if marks else ""), "#000000", False))
        if over:
            cards = ", ".join(f"{kind} {name}" for kind, name in secret_cards(s, seat).items())
            lines.append((f"  cards: {cards}; final {r.score(s, seat)}", "#b03a2e", False))
    lines.append(("", "#000000", False))
    lines.append(("squares: built (value)  discs in rings: bids", "#555555", False))
    lines.append(("T trendy  S subway  A archaeological", "#555555", False))
    return lines


def render_image(s: State) -> np.ndarray:
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI)
    FigureCanvasAgg(fig)
    board = fig.add_axes((0.0, 0.0, 0.66, 1.0))
    board.set_xlim(-2, 102)
    board.set_ylim(102, -2)
    board.axis("off")
    _draw_board(board, s)
    _draw_pieces(board, s)
    panel = fig.add_axes((0.67, 0.0, 0.33, 1.0))
    panel.axis("off")
    lines = _panel_lines(s)
    step = min(0.045, 0.96 / max(len(lines), 1))
    for index, (text, colour, bold) in enumerate(lines):
        panel.text(0.0, 0.98 - index * step, text, fontsize=9, color=colour, weight="bold" if bold else "normal",
                   va="top", transform=panel.transAxes)
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
