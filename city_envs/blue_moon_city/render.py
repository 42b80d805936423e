"""Blue Moon City as text: action descriptions and the public city (render_mode="ansi")."""

from __future__ import annotations

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.blue_moon_city.rules import Payment, State


def card_name(card: int) -> str:
    return f"{cp.COLOUR_NAMES[cp.CARD_COLOUR[card]]} {cp.CARD_VALUE[card]}"


def where(s: State, position: int) -> str:
    return f"p{position} {cp.TILE_NAMES[s.tile_at[position]]}"


def choice_group(s: State, action: int) -> str:
    """Where a long list of choices shows `action`, and the board's layer of it: a dragon's moves under
    that dragon and way of moving ("fly the Fire dragon"); "" for any other."""
    if r.DRAGON_MOVE <= action < r.FLIT_BOOST:
        d, rest = divmod(action - r.DRAGON_MOVE, 42)
        return f"{'walk' if rest >= 21 else 'fly'} the {cp.DRAGON_NAMES[d]} dragon"
    return ""


def describe_action(s: State, action: int) -> str:
    if action < r.FLIT_BOOST:
        d, rest = divmod(action - r.DRAGON_MOVE, 42)
        mode, target = divmod(rest, 21)
        verb = "walk" if mode else "fly"
        return f"{verb} the {cp.DRAGON_NAMES[d]} dragon to {where(s, target)}"
    if action == r.FLIT_BOOST:
        return "discard grey 2: two more steps"
    if action == r.FLIT_TELEPORT:
        return "discard grey 1: move anywhere"
    if action < r.SELECT_SECTION:
        target = action - r.MOVE_FIGURE
        return f"move to {where(s, target)}" + (" (stay)" if target == s.figures[s.active] else "")
    if action < r.END_CONTRIBUTION:
        section = action - r.SELECT_SECTION
        tile = s.tile_at[s.figures[s.active]]
        colour, value = cp.SECTIONS[tile][section]
        name = "cards of any one colour" if colour == cp.ANY else f"{cp.COLOUR_NAMES[colour]} cards"
        return f"build section {section} of the {cp.TILE_NAMES[tile]}: pay {value} in {name}"
    if action == r.END_CONTRIBUTION:
        return "stop contributing"
    if action < r.ADD_CARD:
        return f"pay the palace section in {cp.COLOUR_NAMES[action - r.PALACE_COLOR]}"
    if action < r.ADD_MIMIX_PAIR:
        card = action - r.ADD_CARD
        return f"play {card_name(card)}, worth {cp.CARD_VALUE[card]} toward the section"
    if action < r.USE_HOAX1:
        a, b = cp.MIMIX_PAIRS[action - r.ADD_MIMIX_PAIR]
        return f"play {card_name(a)} + {card_name(b)} together, worth 3 of any colour toward the section"
    if action < r.USE_HOAX2:
        return f"discard white 1: up to 4 {cp.COLOUR_NAMES[action - r.USE_HOAX1]} cards count as the section colour"
    if action == r.USE_HOAX2:
        return "discard white 2: one card of any colour counts as the section colour"
    if action == r.OFFER:
        return f"offer at the obelisk for {r.offer_cost(s)} crystals"
    if action in r.EXTRA_OFFER_CARD:
        card = r.EXTRA_OFFER_CARD[action]
        cost = r.offer_cost(s) + cp.EXTRA_OFFER_SURCHARGE[card]
        return f"discard {card_name(card)}: offer again for {cost} crystals"
    if action < r.END_TURN:
        return f"discard {card_name(action - r.DISCARD)}"
    return "end the turn: draw cards"


def _paying(s: State, pay: Payment) -> str:
    """The section being paid, with how much of it is covered: 'Library's section 1 (2 of 5 paid)'."""
    tile = s.tile_at[s.figures[s.active]]
    return f"{cp.TILE_NAMES[tile]}'s section {pay.section} ({pay.total} of {pay.value} paid)"


def describe_partial(s: State) -> str:
    """The section being paid and the colour it is paid in."""
    if s.payment is None or s.decision == r.GAME_OVER:
        return ""
    colour = cp.COLOUR_NAMES[s.payment.colour] if s.payment.colour >= 0 else "a colour still to choose"
    return f"paying the {_paying(s, s.payment)} in {colour}"


def hand_text(hand: list[int]) -> str:
    return ", ".join(f"{count}x {card_name(x)}" for x, count in enumerate(hand) if count) or "empty"


def render_private(s: State, p: int) -> str:
    return f"your hand: {hand_text(s.hands[p])}"


def render_text(s: State) -> str:
    """The public city: what every seat can see (no hands, no deck order, no pending cards)."""
    lines = [
        f"Blue Moon City, {s.n} players, turn {s.turns + 1}; obelisk {len(s.obelisk)}/"
        f"{len(cp.OBELISK_COSTS[s.n])} filled, next offering {r.offer_cost(s)}; scales left {s.scale_supply}; "
        f"deck {len(s.deck)}, discard pile {sum(s.discard)}"
    ]
    for position in range(cp.NUM_POSITIONS):
        tile = s.tile_at[position]
        if tile == cp.COURTYARD:
            state = "obelisk"
        elif s.complete[position]:
            state = "complete"
        else:
            parts = []
            for i, (colour, value) in enumerate(cp.SECTIONS[tile]):
                seat = s.markers_on[position][i]
                name = "any" if colour == cp.ANY else cp.COLOUR_NAMES[colour]
                parts.append(f"{name}{value}" + (f"=seat{seat}" if seat >= 0 else ""))
            state = " ".join(parts)
        extras = [f"{cp.DRAGON_NAMES[d]} dragon" for d in range(3) if s.dragons[d] == position]
        extras += [f"seat {seat}" for seat in range(s.n) if s.figures[seat] == position]
        lines.append(f"  {where(s, position):<22} {state}" + (f"  [{', '.join(extras)}]" if extras else ""))
    lines.append("  (each section: the colour and value it costs; =seat k: seat k's marker is on it)")
    for seat in range(s.n):
        mark = ">" if seat == s.active else " "
        pending = f", {len(s.pending)} pending" if seat == s.active and s.pending else ""
        lines.append(
            f"{mark} seat {seat}: {s.offerings[seat]} offerings, {s.crystals[seat]} crystals, "
            f"{s.scales[seat]} scales, {s.markers[seat]} markers, {sum(s.hands[seat])} cards{pending}"
        )
    if s.decision == r.GAME_OVER:
        reason = " (max_rounds reached)" if s.truncated else ""
        lines.append(f"game over{reason}; winners: {', '.join(f'seat {w}' for w in s.winners)}")
    else:
        lines.append(f"seat {s.active} to decide: {r.Decision.name_of(s.decision)}")
        if s.payment is not None:
            pay = s.payment
            paid_in = cp.COLOUR_NAMES[pay.colour] if pay.colour >= 0 else "(colour not chosen)"
            lines.append(f"  paying section {pay.section}: {pay.total}/{pay.value} in {paid_in}")
    return "\n".join(lines)
