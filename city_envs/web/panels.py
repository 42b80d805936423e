"""The players' panels of the play and replay pages: each seat's public score, with what it adds up
from where that is public, and its public resources (gold, crystals, cards in hand, wealth ...); and
the log's payout lines, one per change of a score part or a resource.

Everything here is public: a seat's hidden items (its cards, its secret objective) are never read,
only how many it holds, and a score part is named only while every seat may see it (`public_parts`).
A seat's own private items come from `Game.render_private`, shown by the page to that seat alone.
The games say what their panels hold (`Game.public_resources` and `public_score_parts`).
"""

from __future__ import annotations

from collections.abc import Callable

from city_envs.core.game import Game

Resources = list[tuple[str, int]]  # (what, how many) of one seat, all public


def resources(game: Game) -> list[Resources]:
    """Each seat's public resources (`Game.public_resources`; empty lists for a game that names none)."""
    return game.public_resources()


def public_parts(game: Game) -> list[list[tuple[str, float]]] | None:
    """Each seat's score parts while every seat may see them (`Game.public_score_parts`); else None."""
    return game.public_score_parts()


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
