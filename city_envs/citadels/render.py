"""Citadels for people: action descriptions, the public table as text, and as an image."""

from __future__ import annotations

import numpy as np

from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.citadels.rules import State, ranks_of


def character_name(rank: int) -> str:
    return f"{cp.CHARACTERS[rank].name} ({rank})"


def district_label(kind: int) -> str:
    d = cp.DISTRICTS[kind]
    return f"{d.name} [{cp.TYPE_NAMES[d.type]}, {d.cost}]"


def describe_action(s: State, action: int) -> str:
    """Human text for `action`, with relative seats turned into absolute ones for this state."""
    actor = s.turn_seat if s.turn_seat >= 0 else s.actor
    if action < r.DISCARD_CHARACTER:
        return f"keep {character_name(action + 1)}"
    if action < r.GATHER_GOLD:
        return f"discard {character_name(action - r.DISCARD_CHARACTER + 1)} face down"
    if action == r.GATHER_GOLD:
        return f"take {cp.GATHER_GOLD_AMOUNT} gold"
    if action == r.GATHER_CARDS:
        return "draw cards and keep one" if not s.cities[actor, cp.LIBRARY] else "draw cards and keep all"
    if action < r.ASSASSINATE:
        return f"keep {district_label(action - r.KEEP_DRAWN)}"
    if action < r.ROB:
        return f"assassinate the {character_name(action - r.ASSASSINATE + 1)}"
    if action < r.MAGICIAN_SWAP:
        return f"rob the {character_name(action - r.ROB + 1)}"
    if action < r.MAGICIAN_MARK:
        return f"swap hands with seat {(actor + action - r.MAGICIAN_SWAP + 1) % s.n}"
    if action < r.MAGICIAN_DONE:
        return f"discard {district_label(action - r.MAGICIAN_MARK)} to redraw"
    if action == r.MAGICIAN_DONE:
        return f"done discarding: redraw {len(s.marked)} card(s)"
    if action == r.COLLECT_INCOME:
        return f"collect {r.income(s, actor, s.called)} gold of income"
    if action < r.BUILD:
        offset, kind = divmod(action - r.DESTROY, cp.NUM_KINDS)
        target = (actor + offset) % s.n
        cost = r.destroy_cost(s, target, kind)
        return f"destroy {cp.DISTRICTS[kind].name} in seat {target}'s city (cost {cost})"
    if action < r.USE_SMITHY:
        return f"build {district_label(action - r.BUILD)}"
    if action == r.USE_SMITHY:
        return f"use the Smithy: pay {cp.SMITHY_PRICE} gold, draw {cp.SMITHY_CARDS}"
    if action < r.END_TURN:
        card = district_label(action - r.LAB_DISCARD)
        return f"use the Laboratory: discard {card} and take {cp.LABORATORY_GOLD} gold"
    if action == r.END_TURN:
        return "end turn"
    card = cp.DISTRICTS[s.graveyard_card].name if s.graveyard_card >= 0 else "the card"
    if action == r.GRAVEYARD_RECOVER:
        return f"Graveyard: pay {cp.GRAVEYARD_PRICE} gold to take {card} into your hand"
    return f"Graveyard: let {card} go"


def describe_public_action(s: State, action: int) -> str:
    """What the table sees of `action`: secret choices (characters, kept cards) stay hidden."""
    if action < r.DISCARD_CHARACTER:
        return "chooses a character"
    if action < r.GATHER_GOLD:
        return "discards a character face down"
    if r.KEEP_DRAWN <= action < r.ASSASSINATE:
        return f"keeps one of the {len(s.drawn)} drawn card(s)"
    if r.MAGICIAN_MARK <= action < r.MAGICIAN_DONE:
        return "sets a card aside to redraw"
    if r.LAB_DISCARD <= action < r.END_TURN:
        return f"uses the Laboratory: discards a card and takes {cp.LABORATORY_GOLD} gold"
    return describe_action(s, action)


def describe_outcome(before: State, after: State) -> list[str]:
    """What the table learns after an action: characters revealed as they are called (with their
    bonuses), the Thief's takings, the Assassin's victim passed over, a crown changing hands at the
    end of a round. Read from the public round log (`events`) and public fields only."""
    same_round = after.round == before.round
    texts = []
    killed = after.killed if same_round else before.killed
    called = after.called if same_round else cp.NUM_CHARACTERS
    if killed and before.called < killed <= called and before.called:
        texts.append(f"the {character_name(killed)} was assassinated and loses its turn")
    for event in after.events[len(before.events) :] if same_round else []:
        if event[0] == "reveal":
            seat, rank = event[1], event[2]
            bonus = {
                cp.KING: " and takes the crown",
                cp.MERCHANT: f" and takes {cp.MERCHANT_BONUS_GOLD} gold",
                cp.ARCHITECT: f" and draws {cp.ARCHITECT_BONUS_CARDS} cards",
            }.get(rank, "")
            texts.append(f"seat {seat} reveals the {character_name(rank)}{bonus}")
        elif event[0] == "robbed":
            texts.append(f"the Thief (seat {event[1]}) takes {event[3]} gold from seat {event[2]}")
    if not same_round and after.decision != r.GAME_OVER:
        heir = " (the assassinated King's heir)" if before.killed == cp.KING else ""
        texts.append(f"round {after.round} begins; seat {after.crown} holds the crown{heir}")
    return texts


def describe_partial(s: State) -> str:
    """The Magician's cards set aside so far (the drawn cards to keep from are the choices themselves)."""
    if s.decision == r.Decision.MAGICIAN_DISCARD and s.marked:
        return "set aside to redraw: " + ", ".join(district_label(k) for k in s.marked)
    return ""


def played_characters(s: State, seat: int) -> list[str]:
    """The characters `seat` has revealed this round, by rank."""
    return [cp.CHARACTERS[x].name for x in cp.RANKS if s.revealed[x] == seat]


def seat_marks(s: State, seat: int) -> list[str]:
    """What the table shows of a seat besides its gold, cards and score: crown, Bishop's protection,
    a complete city (and whether it was the first)."""
    marks = []
    if seat == s.crown:
        marks.append("crown")
    if s.revealed[cp.BISHOP] == seat:
        marks.append("protected")
    if s.city_size[seat] >= s.completion:
        marks.append("complete, first" if seat == s.first_completer else "complete")
    return marks


def character_notes(s: State, rank: int) -> list[str]:
    """What the table knows of a character this round: face up, who revealed it, passed over unplayed,
    being called, killed, robbed. Never who holds it face down."""
    face_up = bool(s.face_up & r.bit(rank))
    notes = []
    if face_up:
        notes.append("face up: out")
    if s.revealed[rank] >= 0:
        notes.append(f"seat {s.revealed[rank]}")
    elif s.called and rank < s.called and not face_up:
        notes.append("not played")
    if rank == s.called and s.decision != r.GAME_OVER:
        notes.append("called now")
    if rank == s.killed:
        notes.append("killed")
    if rank == s.robbed:
        notes.append("robbed")
    return notes


def render_text(s: State) -> str:
    """The public table: what every seat at a real game could see."""
    scores = [r.score(s, seat) for seat in range(s.n)]
    if s.decision == r.GAME_OVER:
        status = "game over" + (" (stopped at max_rounds)" if s.truncated else "")
    else:
        status = f"seat {s.actor} to act: {r.Decision.name_of(s.decision)}"
    lines = [
        f"Citadels - round {s.round}, {s.n} players, cities complete at {s.completion}; {status}",
        f"deck {len(s.deck)} cards; crown: seat {s.crown}"
        + (f"; calling {character_name(s.called)}" if s.called else "; choosing characters"),
    ]
    face_up = ranks_of(s.face_up)
    if face_up:
        lines.append("face-up discards: " + ", ".join(cp.CHARACTERS[x].name for x in face_up))
    if s.killed:
        lines.append(f"assassinated: {cp.CHARACTERS[s.killed].name}")
    if s.robbed:
        lines.append(f"robbed: {cp.CHARACTERS[s.robbed].name}")
    for seat in range(s.n):
        played = played_characters(s, seat)
        marks = ("*" if seat == s.actor else " ") + ("C" if seat == s.crown else " ")
        flags = ""
        if s.city_size[seat] >= s.completion:
            flags = " complete" + (" (first)" if seat == s.first_completer else "")
        lines.append(
            f"{marks} seat {seat}: {s.gold[seat]:>2} gold, {int(s.hands[seat].sum()):>2} cards, "
            f"score {scores[seat]:>2}{flags}" + (f"; played {', '.join(played)}" if played else "")
        )
        city = [district_label(int(k)) for k in np.flatnonzero(s.cities[seat])]
        lines.append("      city: " + (", ".join(city) if city else "(empty)"))
    if s.graveyard_card >= 0:
        lines.append(f"destroyed, awaiting the Graveyard: {cp.DISTRICTS[s.graveyard_card].name}")
    return "\n".join(lines)


def render_private(s: State, p: int) -> str:
    """Seat p's own information: hand, characters, what it was offered, cards in hand this turn."""
    hand = [
        f"{count}x {district_label(kind)}" if count > 1 else district_label(kind)
        for kind, count in enumerate(s.hands[p].tolist())
        if count
    ]
    lines = [f"you are seat {p}; hand: " + (", ".join(hand) if hand else "(empty)")]
    mine = [character_name(x) for x in cp.RANKS if s.holder[x] == p]
    if mine:
        lines.append("your characters: " + ", ".join(mine))
    if s.actor == p and s.decision in (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD):
        lines.append("offered: " + ", ".join(character_name(x) for x in ranks_of(s.pile)))
    known = ranks_of(s.known_facedown[p])
    if known:
        lines.append("you saw go face down: " + ", ".join(character_name(x) for x in known))
    if s.turn_seat == p and s.drawn:
        lines.append("drawn: " + ", ".join(district_label(k) for k in s.drawn))
    if s.turn_seat == p and s.marked:
        lines.append("marked for discard: " + ", ".join(district_label(k) for k in s.marked))
    return "\n".join(lines)
