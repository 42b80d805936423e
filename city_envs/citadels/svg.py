"""The public Citadels table as SVG: the eight characters by rank and name with what each does and what
the table knows of it this round (face up, who revealed it, killed, robbed, being called); then one row
per seat, its public state in a column of its own and its city's districts (name, type, cost) beside it,
wrapping onto more lines rather than shrinking. Hands and the characters held face down are never shown.
"""

from __future__ import annotations

import textwrap

import numpy as np

from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.citadels.render import character_notes, played_characters, seat_marks
from city_envs.citadels.rules import State
from city_envs.core.svg import Drawing, Point

WIDTH = 1000.0
HEADER = 52.0
CHAR_TOP, CHAR_W, CHAR_H = HEADER, 123.0, 112.0
SEATS_TOP = CHAR_TOP + CHAR_H + 12
INFO_W = 196.0  # a seat's own column, left of its city
INFO_CHARS = 25  # the characters of 13 px text that fit that column; longer lines wrap
LINE_H = 20.0  # between two lines of a seat's column
CARD_W, CARD_H, CARD_GAP = 100.0, 78.0, 4.0
PER_LINE = int((WIDTH - INFO_W - 8) // (CARD_W + CARD_GAP))
# pale tints per district type (noble, religious, trade, military, unique); the card also names its type
TYPE_TINTS = ("#fcf3cf", "#d6eaf8", "#d5f5e3", "#fadbd8", "#ebdef0")
FACE_UP, CALLED, PLAIN = "#d5d8dc", "#fff3c4", "#fbfcfc"
INK, MUTED = "#1b2631", "#4d5656"


def _box(left: float, top: float, width: float, height: float) -> tuple[Point, ...]:
    return (left, top), (left + width, top), (left + width, top + height), (left, top + height)


def _character_box(rank: int) -> tuple[float, float, float, float]:
    return 4 + (rank - 1) * CHAR_W, CHAR_TOP, CHAR_W - 6, CHAR_H


def _seat_rows(s: State) -> list[tuple[float, float]]:
    """Each seat's row: its top and height (one line of cards, or more for a large city; its column's
    lines of text all inside it)."""
    rows, top = [], SEATS_TOP
    for seat in range(s.n):
        lines = max(1, -(-int(s.cities[seat].sum()) // PER_LINE))
        text_lines = len(_seat_lines(s, seat, r.score(s, seat)))
        height = max(112.0, 12 + lines * (CARD_H + CARD_GAP), 16 + text_lines * LINE_H)
        rows.append((top, height))
        top += height + 6
    return rows


def _card_box(top: float, slot: int) -> tuple[float, float, float, float]:
    line, column = divmod(slot, PER_LINE)
    return INFO_W + 8 + column * (CARD_W + CARD_GAP), top + 6 + line * (CARD_H + CARD_GAP), CARD_W, CARD_H


def _draw_characters(d: Drawing, s: State) -> None:
    for rank in cp.RANKS:
        left, top, width, height = _character_box(rank)
        face_up = bool(s.face_up & r.bit(rank))
        d.rect(
            left,
            top,
            width,
            height,
            fill=FACE_UP if face_up else CALLED if rank == s.called and s.decision != r.GAME_OVER else PLAIN,
            stroke="#555555",
            rx=6,
        )
        d.circle(left + 14, top + 15, 10, fill="#34495e")
        d.text(left + 14, top + 15.5, rank, size=13, anchor="middle", middle=True, fill="#ffffff", bold=True)
        d.text(left + 28, top + 20, cp.CHARACTERS[rank].name, size=14, bold=True)
        d.text_block(left + 5, top + 40, cp.CHARACTER_SHORT[rank], size=13, fill=MUTED)
        notes = character_notes(s, rank)
        for index, note in enumerate(notes[:2]):
            seat = s.revealed[rank] if note.startswith("seat") else None
            d.text(left + 5, top + 84 + index * 17, note, size=13, bold=True, seat=seat)


def _seat_lines(s: State, seat: int, score: int) -> list[tuple[str, int | None, bool]]:
    """A seat's column, line by line (text, seat colour, bold): every line fits the column (`INFO_CHARS`)."""
    marks = seat_marks(s, seat)
    played = played_characters(s, seat)
    to_act = " (to act)" if seat == s.actor and s.decision != r.GAME_OVER else ""
    lines = [
        (f"seat {seat}{to_act}", seat, True),
        (f"{s.gold[seat]} gold, {int(s.hands[seat].sum())} cards", None, False),
    ]
    wrapped = textwrap.wrap(f"score {score}" + (f"; {', '.join(marks)}" if marks else ""), INFO_CHARS)
    wrapped += textwrap.wrap("played " + ", ".join(played), INFO_CHARS) if played else []
    return lines + [(text, None, False) for text in wrapped]


def _draw_seats(d: Drawing, s: State) -> None:
    for seat, (top, height) in enumerate(_seat_rows(s)):
        active = seat == s.actor and s.decision != r.GAME_OVER
        d.rect(2, top, WIDTH - 4, height, fill="#fffbea" if active else "#ffffff", stroke="#aab7b8", rx=5)
        d.rect(4, top + 2, INFO_W - 4, height - 4, fill=None, seat=seat, stroke_width=3 if active else 1.5, rx=4)
        lines = _seat_lines(s, seat, r.score(s, seat))
        text_top = top + 6
        for index, (text, colour_seat, bold) in enumerate(lines):
            if text:
                d.text(12, text_top + 18 + index * LINE_H, text, size=14 if bold else 13, bold=bold, seat=colour_seat)
        for slot, kind in enumerate(np.flatnonzero(s.cities[seat]).tolist()):
            district = cp.DISTRICTS[kind]
            left, card_top, width, card_h = _card_box(top, slot)
            d.rect(left, card_top, width, card_h, fill=TYPE_TINTS[district.type], stroke="#555555", rx=5)
            words = district.name.split(" ", 1) if len(district.name) > 11 else [district.name]
            d.text_block(left + width / 2, card_top + 19, words, size=13, anchor="middle", bold=True, fill=INK)
            d.text(left + 6, card_top + card_h - 8, cp.TYPE_NAMES[district.type], size=13, fill=MUTED)
            d.text(left + width - 6, card_top + card_h - 8, district.cost, size=14, anchor="end", bold=True)


def _choices(d: Drawing, s: State, choices: dict[int, str]) -> None:
    """Characters to keep, discard, kill or rob; seats to swap hands with; districts to destroy."""
    actor = s.turn_seat if s.turn_seat >= 0 else s.actor
    rows = _seat_rows(s)
    for action, text in sorted(choices.items()):
        if action < r.GATHER_GOLD or r.ASSASSINATE <= action < r.MAGICIAN_SWAP:
            rank = (action if action < r.GATHER_GOLD else action - r.ASSASSINATE) % cp.NUM_CHARACTERS + 1
            d.choice(action, text, _box(*_character_box(rank)))
        elif r.MAGICIAN_SWAP <= action < r.MAGICIAN_MARK:
            seat = (actor + action - r.MAGICIAN_SWAP + 1) % s.n
            top, height = rows[seat]
            d.choice(action, text, _box(4, top + 2, INFO_W - 4, height - 4))
        elif r.DESTROY <= action < r.BUILD:
            offset, kind = divmod(action - r.DESTROY, cp.NUM_KINDS)
            seat = (actor + offset) % s.n
            slot = np.flatnonzero(s.cities[seat]).tolist().index(kind)
            d.choice(action, text, _box(*_card_box(rows[seat][0], slot)))


def _status(s: State) -> str:
    if s.decision == r.GAME_OVER:
        who = ", ".join(f"seat {w}" for w in r.winners(s))
        return f"game over: {who} won" + (" (max_rounds reached)" if s.truncated else "")
    if s.called:
        return f"calling the {cp.CHARACTERS[s.called].name}; seat {s.actor} to act"
    return f"choosing characters; seat {s.actor} to choose"


def render_svg(s: State, choices: dict[int, str]) -> str:
    top, height = _seat_rows(s)[-1]
    d = Drawing(WIDTH, top + height + 96, f"Citadels: the characters and each seat's city, round {s.round}")
    d.text(
        6,
        20,
        f"Citadels, round {s.round}, {s.n} players; cities complete at {s.completion}; deck {len(s.deck)}",
        size=15,
        bold=True,
    )
    d.text(6, 42, _status(s), size=14, bold=True)
    if s.graveyard_card >= 0:
        d.text(WIDTH - 6, 42, f"awaiting the Graveyard: {cp.DISTRICTS[s.graveyard_card].name}", size=13, anchor="end")
    _draw_characters(d, s)
    _draw_seats(d, s)
    _choices(d, s, choices)
    items: list[tuple[str, str | int]] = [(f"seat {seat}", seat) for seat in range(s.n)]
    items += [(f"{name} district", TYPE_TINTS[kind]) for kind, name in enumerate(cp.TYPE_NAMES)]
    items += [("character out (face up)", FACE_UP), ("character being called", CALLED)]
    d.legend(6, top + height + 6, items, columns=5, column_width=(WIDTH - 12) / 5)
    return d.document()
