"""The players' panels of the play and replay pages: each seat's public score, with what it adds up
from where that is public, and its public resources (gold, crystals, cards in hand, wealth ...); and
the log's payout lines, one per change of a score part or a resource.

Everything here is public: a seat's hidden items (its cards, its secret objective) are never read,
only how many it holds, and a score part is named only while every seat may see it (`public_parts`).
A seat's own private items come from `Game.render_private`, shown by the page to that seat alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from city_envs.big_city import components as big
from city_envs.core.game import Game
from city_envs.core.state_game import StateGame
from city_envs.metropolys import components as met
from city_envs.urban_sprawl import components as urb
from city_envs.web.at_hand import python_game

Resources = list[tuple[str, int]]  # (what, how many) of one seat, all public


def _citadels(s: Any) -> list[Resources]:
    return [
        [("gold", s.gold[seat]), ("cards in hand", int(s.hands[seat].sum())), ("districts built", s.city_size[seat])]
        for seat in range(s.n)
    ]


def _metropolys(s: Any) -> list[Resources]:
    rows = []
    for seat in range(s.n):
        row = [("buildings left", bin(s.supply[seat]).count("1")), ("buildings built", s.built[seat])]
        row += [(f"{met.TOKEN_NAMES[kind + 1]} tokens", s.tokens[seat][kind]) for kind in range(3)]
        rows.append(row)
    return rows


def _blue_moon_city(s: Any) -> list[Resources]:
    return [
        [
            ("crystals", s.crystals[seat]),
            ("cards in hand", sum(s.hands[seat])),
            ("scales", s.scales[seat]),
            ("markers left", s.markers[seat]),
        ]
        for seat in range(s.n)
    ]


def _big_city(s: Any) -> list[Resources]:
    return [
        [
            ("cards in hand", len(s.hands[seat])),
            ("buildings", sum(1 for p in s.pieces if p.owner == seat and p.kind < big.PARK2)),
        ]
        for seat in range(s.n)
    ]


def _urban_sprawl(s: Any) -> list[Resources]:
    rows = []
    for seat in range(s.n):
        row = [("wealth", s.wealth[seat]), ("planning cards", len(s.hands[seat]))]
        row += [("Favors", len(s.favors[seat]))]
        row += [
            (f"{urb.VOCATION_NAMES[voc].lower()} vocation", count)
            for voc, count in enumerate(s.vocations[seat])
            if count
        ]
        row += [(f"office: {name}", 1) for office, name in enumerate(urb.OFFICE_NAMES) if s.offices[office] == seat]
        rows.append(row)
    return rows


RESOURCES: dict[str, Callable[[Any], list[Resources]]] = {
    "citadels": _citadels,
    "metropolys": _metropolys,
    "blue_moon_city": _blue_moon_city,
    "big_city": _big_city,
    "urban_sprawl": _urban_sprawl,
}


def resources(game: Game) -> list[Resources]:
    """Each seat's public resources (empty lists for a game that keeps no such state)."""
    state_game = python_game(game)
    if state_game is None or game.name not in RESOURCES:
        return [[] for _ in range(game.num_players)]
    return RESOURCES[game.name](state_game.state)


def _big_city_parts(s: Any) -> list[list[tuple[str, float]]]:
    """Big City's score by the kind of building that scored it (a piece's points are fixed when it is built)."""
    parts = []
    for seat in range(s.n):
        by_kind: dict[int, float] = {}
        for piece in s.pieces:
            if piece.owner == seat and piece.points:
                by_kind[piece.kind] = by_kind.get(piece.kind, 0.0) + piece.points
        parts.append([(f"points for {big.KIND_NAMES[kind]}", points) for kind, points in sorted(by_kind.items())])
    return parts


SCORE_PARTS: dict[str, Callable[[Any], list[list[tuple[str, float]]]]] = {"big_city": _big_city_parts}


def public_parts(game: Game) -> list[list[tuple[str, float]]] | None:
    """Each seat's score parts while every seat may see them: always in a game that counts no secret
    points, and at the end in one that does (Metropolys' objectives); else None. A game that names its
    score as one part is broken down here where its public state says more (Big City, by building)."""
    reference = python_game(game)
    secret = reference is None or type(reference).public_scores is not StateGame.public_scores
    if secret and not game.is_over():
        return None
    if reference is not None and game.name in SCORE_PARTS:
        return SCORE_PARTS[game.name](reference.state)
    return game.score_parts()


def payout_lines(before: Game, after: Game, names: Callable[[int], str] = lambda seat: f"seat {seat}") -> list[str]:
    """One line per change between `before` and `after` of a seat's public score part or resource,
    saying what changed and its new value; lines of the move that ended the game say "final scoring"."""
    lines = []
    final = "final scoring: " if after.is_over() and not before.is_over() else ""
    parts_before, parts_after = public_parts(before), public_parts(after)
    scores_before, scores_after = before.public_scores(), after.public_scores()
    old_resources, new_resources = resources(before), resources(after)
    for seat in range(after.num_players):
        if parts_after is not None:
            old = dict(parts_before[seat]) if parts_before is not None else {}
            if set(old) <= {what for what, _ in parts_after[seat]}:
                lines += [
                    f"{final}{names(seat)} {value - old.get(what, 0.0):+g} {what} (now {value:g})"
                    for what, value in parts_after[seat]
                    if value != old.get(what, 0.0)
                ]
            else:  # the score is counted anew (the end's scoring): each part, and the total before and after
                lines += [f"{final}{names(seat)}: {value:g} {what}" for what, value in parts_after[seat] if value]
                lines.append(f"{final}{names(seat)}: score {scores_before[seat]:g} → {scores_after[seat]:g}")
        elif scores_after[seat] != scores_before[seat]:
            change = scores_after[seat] - scores_before[seat]
            lines.append(f"{final}{names(seat)} {change:+g} {after.standing_names[0]} (now {scores_after[seat]:g})")
        if final:
            total = " + ".join(f"{value:g} {what}" for what, value in parts_after[seat]) if parts_after else ""
            lines.append(f"{final}{names(seat)} ends with {scores_after[seat]:g}" + (f" = {total}" if total else ""))
        old_row = dict(old_resources[seat]) if seat < len(old_resources) else {}
        for what, value in new_resources[seat]:
            if value != old_row.get(what, 0):
                change = value - old_row.get(what, 0)
                lines.append(f"{final}{names(seat)} {change:+d} {what} (now {value})")
        for what, value in old_row.items():
            if what not in dict(new_resources[seat]) and value:
                lines.append(f"{final}{names(seat)} {-value:+d} {what} (now 0)")
    return lines
