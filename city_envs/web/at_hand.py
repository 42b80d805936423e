"""The game at hand, for the play and replay pages: each game's rules summary, the texts of the cards
and characters a seat can see (tooltips on the choice buttons and a legend beside the board), and why
a choice a person would expect is missing.

The texts themselves are data in each game's `components.py` (and the summaries its `summary.md`);
this module only picks which of them to show. What it shows is public, or belongs to the seats named
by the caller: the choice buttons' own texts (which name only what their seat may see), the public
table, and the hands of `seats`. Nothing here reads another seat's hidden cards.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from importlib import resources

from city_envs.big_city import components as big
from city_envs.big_city import rules as big_rules
from city_envs.blue_moon_city import components as moon
from city_envs.blue_moon_city import rules as moon_rules
from city_envs.citadels import components as cit
from city_envs.citadels import rules as cit_rules
from city_envs.core.game import Game
from city_envs.core.native import NativeGame
from city_envs.core.registry import GAMES
from city_envs.core.state_game import StateGame
from city_envs.metropolys import components as met
from city_envs.metropolys import rules as met_rules
from city_envs.urban_sprawl import components as urb
from city_envs.urban_sprawl import render as urb_render
from city_envs.urban_sprawl import rules as urb_rules

SUMMARY_FILE = "summary.md"
Notes = list[tuple[str, str]]


# ----- rules summaries ----------------------------------------------------------------------------
def summary_text(game_name: str) -> str:
    """The rules summary of a game (its package's summary.md), as Markdown; KeyError for an unknown game."""
    if game_name not in GAMES:
        raise KeyError(game_name)
    return (resources.files(f"city_envs.{game_name}") / SUMMARY_FILE).read_text(encoding="utf-8")


def markdown_html(text: str) -> str:
    """Markdown as HTML with raw HTML switched off: any tag in the text shows as text, never as markup."""
    import markdown

    converter = markdown.Markdown(extensions=[], output_format="html")
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    return converter.convert(text)


@functools.lru_cache(maxsize=len(GAMES))
def summary_html(game_name: str) -> str:
    return markdown_html(summary_text(game_name))


# ----- the catalogue of texts, by the name a button or the board uses -------------------------------
def _citadels_catalogue() -> dict[str, str]:
    texts = {cit.CHARACTERS[rank].name: text for rank, text in cit.CHARACTER_TEXT.items()}
    texts |= {d.name: d.effect for d in cit.DISTRICTS if d.effect}
    return texts


def _moon_card_name(card: int) -> str:
    return f"{moon.COLOUR_NAMES[moon.CARD_COLOUR[card]]} {moon.CARD_VALUE[card]}"


def _moon_catalogue() -> dict[str, str]:
    texts = {_moon_card_name(card): text for card, text in moon.CARD_POWER_TEXT.items()}
    for dragon, name in enumerate(moon.DRAGON_NAMES):
        colour = moon.COLOUR_NAMES[moon.DRAGON_CARD_COLOUR[dragon]]
        texts[f"{name} dragon"] = f"moved by {colour} 1s (fly) and {colour} 2s (walk). " + moon.DRAGON_TEXT
    return texts


def _big_city_catalogue() -> dict[str, str]:
    texts = {big.KIND_NAMES[kind]: text for kind, text in big.SPECIAL_BUILDING_TEXT.items()}
    texts |= {big.card_name(card): text for card, text in big.SPECIAL_CARD_TEXT.items()}
    return texts


def _metropolys_catalogue() -> dict[str, str]:
    texts = {f"{met.TOKEN_NAMES[kind]} token": text for kind, text in met.TOKEN_TEXT.items()}
    return texts | {"Subway card": met.SUBWAY_CARD_TEXT, "Archaeological-site card": met.ARCH_CARD_TEXT}


def _urban_sprawl_catalogue() -> dict[str, str]:
    # a contract's button already says what it does; a planning card's says only its permit
    return {f"P{card:02d}": urb.planning_text(card) for card in range(urb.PLANNING_CARDS)}


CATALOGUES: dict[str, Callable[[], dict[str, str]]] = {
    "citadels": _citadels_catalogue,
    "blue_moon_city": _moon_catalogue,
    "big_city": _big_city_catalogue,
    "metropolys": _metropolys_catalogue,
    "urban_sprawl": _urban_sprawl_catalogue,
}


@functools.lru_cache(maxsize=len(GAMES))
def catalogue(game_name: str) -> tuple[dict[str, str], re.Pattern | None]:
    """Every card, character or token text of a game by its name, and a pattern finding those names
    as whole words (longest first, case as written: Citadels' district "Keep" is not the verb "keep")."""
    texts = CATALOGUES[game_name]() if game_name in CATALOGUES else {}
    if not texts:
        return texts, None
    names = sorted(texts, key=len, reverse=True)
    return texts, re.compile(r"(?<![\w-])(" + "|".join(re.escape(name) for name in names) + r")(?![\w-])")


def action_notes(game: Game, items: Sequence[tuple[int, str]]) -> dict[int, str]:
    """The tooltip of each choice button: the texts of the cards, characters or tokens its own text
    names (a button names only what its seat may see, so this adds nothing hidden)."""
    texts, pattern = catalogue(game.name)
    notes = {}
    for action, text in items:
        if pattern is None:
            break
        named = list(dict.fromkeys(pattern.findall(text)))
        if named:
            notes[action] = " · ".join(f"{name}: {texts[name]}" for name in named)
    return notes


# ----- the legend: what is on the table, and in the seats' own hands --------------------------------
def _citadels_legend(game: StateGame, seats: Sequence[int]) -> Notes:
    s = game.state
    notes = [(f"{rank} {cit.CHARACTERS[rank].name}", cit.CHARACTER_TEXT[rank]) for rank in cit.RANKS]
    kinds = {kind for kind in range(cit.NUM_KINDS) if s.cities[:, kind].any()}  # cities are public
    for seat in seats:
        kinds |= {kind for kind in range(cit.NUM_KINDS) if s.hands[seat, kind] > 0}
        if s.actor == seat:
            kinds |= set(s.drawn)
    notes += [(d.name, d.effect) for d in cit.DISTRICTS if d.effect and d.kind in kinds]
    return notes


def _moon_legend(game: StateGame, seats: Sequence[int]) -> Notes:
    s = game.state
    texts, _ = catalogue(game.name)
    notes = []
    for dragon, name in enumerate(moon.DRAGON_NAMES):
        where = s.dragons[dragon]
        place = "off the board" if where == moon.OFF_BOARD else f"on p{where} {moon.TILE_NAMES[s.tile_at[where]]}"
        colour = moon.COLOUR_NAMES[moon.DRAGON_CARD_COLOUR[dragon]]
        notes.append((f"{name} dragon", f"{place}; moved by {colour} 1s (fly) and {colour} 2s (walk)"))
    notes.append(("dragons", moon.DRAGON_TEXT))
    held = sorted({card for seat in seats for card in range(moon.NUM_TYPES) if s.hands[seat][card] > 0})
    notes += [(_moon_card_name(card), texts[_moon_card_name(card)]) for card in held if card in moon.CARD_POWER_TEXT]
    return notes


def _big_city_legend(game: StateGame, seats: Sequence[int]) -> Notes:
    s = game.state
    notes = []
    for kind, text in big.SPECIAL_BUILDING_TEXT.items():
        left = s.supply[kind]
        notes.append((big.KIND_NAMES[kind], f"{text} ({left} left)" if left else f"{text} (none left)"))
    for card, text in big.SPECIAL_CARD_TEXT.items():
        state = " (played)" if s.out[card] else ""
        mine = [seat for seat in seats if card in s.hands[seat]]
        notes.append((f"{big.card_name(card)} card", text + state + (" (in your hand)" if mine else "")))
    return notes


def _metropolys_legend(game: StateGame, seats: Sequence[int]) -> Notes:
    s = game.state
    notes = [(f"{met.TOKEN_NAMES[kind]} token", text) for kind, text in met.TOKEN_TEXT.items()]
    for name, text, holder in (
        ("Subway card", met.SUBWAY_CARD_TEXT, s.subway_card),
        ("Archaeological-site card", met.ARCH_CARD_TEXT, s.arch_card),
    ):
        notes.append((name, text + (f" (held by seat {holder})" if holder >= 0 else " (nobody holds it yet)")))
    for seat in seats:
        whose = f"seat {seat}'s secret card"
        if s.family_card and s.family_card[seat] >= 0:
            card = s.family_card[seat]
            notes.append((f"{whose}: {met.FAMILY_CARD_NAMES[card]}", met.FAMILY_CARD_TEXT[card]))
        if s.colour_card and s.colour_card[seat] >= 0:
            colour = met.COLOUR_NAMES[s.colour_card[seat]]
            notes.append((f"{whose}: {colour}", met.COLOUR_CARD_TEXT.format(colour=colour)))
        if s.area_card and s.area_card[seat] >= 0:
            card = s.area_card[seat]
            notes.append((f"{whose}: {met.EXPERT_AREA_NAMES[card]}", met.EXPERT_AREA_TEXT[card]))
    return notes


def _urban_sprawl_legend(game: StateGame, seats: Sequence[int]) -> Notes:
    s = game.state  # everything in Urban Sprawl is public but the order of the decks
    notes = []
    for space in range(len(urb.PLANNING_SPACE_NAMES)):
        card = urb_rules.planning_at(s, space)
        if card >= 0:
            notes.append((f"{urb.PLANNING_SPACE_NAMES[space]}: P{card:02d}", urb.planning_text(card)))
    for space in range(len(urb.CONTRACT_SPACE_NAMES)):
        card = urb_rules.contract_at(s, space)
        if card >= urb.EVENT_BASE:
            event_id = urb.CONTRACT_EVENTS[card - urb.EVENT_BASE][0]
            notes.append((f"{urb.CONTRACT_SPACE_NAMES[space]}: {event_id}", urb.CONTRACT_EVENT_TEXT[event_id]))
        elif card >= 0:
            details = urb_render.contract_details(card)
            notes.append((f"{urb.CONTRACT_SPACE_NAMES[space]}: {urb.contract_name(card)}", details or "no effect"))
    return notes


LEGENDS: dict[str, Callable[[StateGame, Sequence[int]], Notes]] = {
    "citadels": _citadels_legend,
    "blue_moon_city": _moon_legend,
    "big_city": _big_city_legend,
    "metropolys": _metropolys_legend,
    "urban_sprawl": _urban_sprawl_legend,
}


def python_game(game: Game) -> StateGame | None:
    """The Python engine's match at `game`'s position (a native match's twin), whose state the notes
    below read; None for a game that keeps no such state."""
    reference = game.reference() if isinstance(game, NativeGame) else game
    return reference if isinstance(reference, StateGame) else None


def legend(game: Game, seats: Sequence[int]) -> Notes:
    """(name, text) of the characters, cards and tokens on the public table and in the hands of
    `seats` (the viewing seat; every seat for a replay's full view)."""
    state_game = python_game(game)
    return LEGENDS[game.name](state_game, seats) if state_game is not None and game.name in LEGENDS else []


# ----- why a choice is missing ----------------------------------------------------------------------
def _names(ranks: Sequence[int]) -> str:
    words = [f"the {cit.CHARACTERS[rank].name}" for rank in ranks]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _citadels_missing(game: StateGame, seat: int) -> list[str]:
    s = game.state
    reasons = []
    if s.decision in (cit_rules.Decision.SELECT_CHARACTER, cit_rules.Decision.SELECT_DISCARD):
        face_up = [rank for rank in cit.RANKS if s.face_up & cit_rules.bit(rank)]
        if face_up:
            verb, them = ("is", "it") if len(face_up) == 1 else ("are", "them")
            names = _names(face_up)
            reasons.append(
                f"{names[0].upper()}{names[1:]} {verb} face up, out of this round: nobody may choose {them}."
            )
        unseen = cit.NUM_CHARACTERS - len(face_up) - bin(s.pile).count("1")
        if unseen > 0:
            reasons.append(
                f"{unseen} more character{'s are' if unseen > 1 else ' is'} not offered: laid face down, "
                "or kept by the players who chose before you."
            )
    elif s.decision == cit_rules.Decision.MAIN and s.turn_seat == seat:
        rank, hand, city, gold = s.called, s.hands[seat], s.cities[seat], s.gold[seat]
        if rank == cit.THIEF and not s.ability_used:
            barred = [cit.ASSASSIN, cit.THIEF] + ([s.killed] if s.killed >= 3 else [])
            reasons.append(f"The Thief may not rob {_names(barred)}.")
        if rank == cit.WARLORD and not s.destroy_used:
            for other in range(s.n):
                if other == seat or not s.city_size[other]:
                    continue
                if s.city_size[other] >= s.completion:
                    reasons.append(f"Seat {other}'s city is complete: the Warlord cannot destroy in it.")
                elif s.revealed[cit.BISHOP] == other:
                    reasons.append(f"Seat {other} is the Bishop: the Warlord cannot destroy in that city.")
                elif s.cities[other, cit.KEEP]:
                    reasons.append(f"Seat {other}'s Keep cannot be destroyed.")
        in_hand = [kind for kind in range(cit.NUM_KINDS) if hand[kind] > 0]
        if in_hand and not s.gathered:
            reasons.append("You build after gathering (gold or cards).")
        elif in_hand and s.builds_done >= s.build_limit:
            reasons.append(
                "You have built your district this turn."
                if s.build_limit == 1
                else f"You have built {s.builds_done} districts, the most the Architect may."
            )
        elif in_hand:
            twins = [cit.DISTRICTS[k].name for k in in_hand if city[k]]
            if twins:
                reasons.append(f"Your city already holds {', '.join(twins)}: no two districts of one name.")
            dear = [
                f"{cit.DISTRICTS[k].name} ({cit.COST_LIST[k]})"
                for k in in_hand
                if not city[k] and cit.COST_LIST[k] > gold
            ]
            if dear:
                reasons.append(f"You have {gold} gold, not enough for {', '.join(dear)}.")
    return reasons


def _big_city_missing(game: StateGame, seat: int) -> list[str]:
    s = game.state
    reasons = []
    if s.decision == big_rules.Decision.DRAW:
        full = [str(i + 1) for i in range(8) if s.piles[i] and s.drawn[i] >= big.MAX_DRAWS_PER_PILE]
        empty = [str(i + 1) for i in range(8) if not s.piles[i]]
        if full:
            reasons.append(
                f"Pile{'s' if len(full) > 1 else ''} {', '.join(full)}: you drew {big.MAX_DRAWS_PER_PILE} cards "
                f"from {'each' if len(full) > 1 else 'it'} this turn, the most one pile gives per turn."
            )
        if empty:
            reasons.append(f"Pile{'s' if len(empty) > 1 else ''} {', '.join(empty)}: no cards left.")
    elif s.decision == big_rules.Decision.MAIN:
        if not big_rules.city_hall_built(s):
            reasons.append(
                "Until City Hall stands (plot 15, with card 15), nobody may build special buildings, play "
                "parks or factories, lay trams or add a neighbourhood."
            )
        else:
            gone = [big.KIND_NAMES[k] for k in range(big.NUM_KINDS) if k != big.CITY_HALL and not s.supply[k]]
            if gone:
                reasons.append(f"None left in the supply: {', '.join(gone)}.")
            if len(s.trams) >= big.NUM_TRAMS:
                reasons.append("All the tram segments are laid.")
    return reasons


def _moon_missing(game: StateGame, seat: int) -> list[str]:
    s = game.state
    reasons = []
    if s.decision == moon_rules.Decision.MOVE:
        for dragon, name in enumerate(moon.DRAGON_NAMES):
            walk = moon.DRAGON_WALK_CARD[dragon]
            if s.hands[seat][walk] and s.dragons[dragon] == moon.OFF_BOARD:
                reasons.append(
                    f"Your {_moon_card_name(walk)} cannot walk the {name} dragon: it is not on the board yet "
                    f"(a {_moon_card_name(moon.DRAGON_FLY_CARD[dragon])} flies it in)."
                )
    if s.figures[seat] == moon.COURTYARD_POSITION and s.decision in (
        moon_rules.Decision.MOVE,
        moon_rules.Decision.OFFER,
        moon_rules.Decision.DISCARD,
    ):
        cost = moon_rules.offer_cost(s)
        if s.offers_this_turn == 0 and cost < 10**6 and s.crystals[seat] < cost:
            reasons.append(f"An offering costs {cost} crystals now; you have {s.crystals[seat]}.")
        if s.markers[seat] < 1:
            reasons.append("You have no marker left to put on the obelisk.")
    return reasons


def _metropolys_missing(game: StateGame, seat: int) -> list[str]:
    s = game.state
    if not s.bids:
        return []
    top_seat, nbhd, value = s.bids[-1]
    if s.decision == met_rules.Decision.NBHD:
        return [
            f"You may bid only on a free neighbourhood next to the latest bid (neighbourhood {nbhd}, "
            f"building {value} of seat {top_seat}), with a building higher than {value}; or pass."
        ]
    if s.decision == met_rules.Decision.VALUE:
        return [f"Only your buildings higher than {value}, the latest bid, are offered."]
    return []


def _urban_sprawl_missing(game: StateGame, seat: int) -> list[str]:
    s = game.state
    if s.decision != urb_rules.Decision.MAIN:
        return []
    reasons = []
    dear = [
        space for space, cost in enumerate(urb.PLANNING_AP) if cost > s.ap and urb_rules.planning_at(s, space) >= 0
    ] + [space for space, cost in enumerate(urb.CONTRACT_AP) if cost > s.ap and urb_rules.contract_at(s, space) >= 0]
    if dear:
        points = f"{s.ap} action point{'' if s.ap == 1 else 's'}"
        reasons.append(f"You have {points} left: the cards on spaces costing more are not offered.")
    capacity = urb_rules.favor_capacity(s, seat)
    if s.ap and len(s.favors[seat]) >= capacity:
        reasons.append(
            f"You hold {len(s.favors[seat])} Favor{'s' if capacity > 1 else ''}, the most you may: no more Favors."
        )
    return reasons


MISSING: dict[str, Callable[[StateGame, int], list[str]]] = {
    "citadels": _citadels_missing,
    "blue_moon_city": _moon_missing,
    "big_city": _big_city_missing,
    "metropolys": _metropolys_missing,
    "urban_sprawl": _urban_sprawl_missing,
}


def missing_choices(game: Game, seat: int) -> list[str]:
    """One line per choice a rule removes that a person would expect, for `seat` when it is deciding,
    from the public state and that seat's own hand."""
    state_game = python_game(game)
    if game.is_over() or game.current_player() != seat or state_game is None or game.name not in MISSING:
        return []
    return MISSING[game.name](state_game, seat)
