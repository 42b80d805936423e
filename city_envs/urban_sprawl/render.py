"""Urban Sprawl as text: action descriptions and the public board (render_mode="ansi")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.rules import State

ZONE_LETTERS = "CMIRP"  # CIV, COM (Merchant), IND, RES, PARK


def lot_name(lot: int) -> str:
    """A lot as a person reads it off the board, chess-like: its column a..l and its row 1..12 from the top."""
    i, j = cp.LOT_COORDS[lot]
    return f"{cp.LOT_FILES[j]}{i + 1}"


def _seat(s: State, relative: int) -> int:
    return (s.decider + relative) % s.n


ZONE_WORDS = ("civic", "commercial", "industrial", "residential", "park")
SCOPE_WORDS = ("in the city", "adjacent to the new building", "in the new building's block row or column")


def choice_group(s: State, action: int) -> str:
    """Where a long list of choices shows `action`: a lot (a park's, a building's first) under its row of
    blocks; "" for any other choice."""
    if not r.LOT <= action < r.CIRCLE or s.decision in (r.Decision.PICK_BUILDING, r.Decision.START_BUY):
        return ""
    lot = action - r.LOT
    if s.decision == r.Decision.PLACE:
        block, variant = divmod(lot, 4)
        lot = 4 * block + cp.FOOTPRINTS[cp.CONTRACT_SIZE[r.building_card(s)]][variant][0]
    first = cp.LOT_COORDS[lot][0] // 2 * 2 + 1
    return f"lots in rows {first}-{first + 1}"


def describe_action(s: State, action: int) -> str:
    decision = s.decision
    if action < r.PASS:
        if decision == r.Decision.INVEST:
            return f"invest {cp.planning_name(action)}: gain {cp.INVESTMENT[action]} wealth"
        return f"pay with {cp.planning_name(action)} ({cp.PERMIT_VALUE[action]} toward the permits needed)"
    if action == r.PASS:
        return {r.Decision.INVEST: "end investments", r.Decision.MAIN: "end the turn"}.get(decision, "decline")
    if action < r.BUILD:
        space = action - r.TAKE_PLANNING
        card = r.planning_at(s, space)
        return f"take {cp.planning_name(card)} from {cp.PLANNING_SPACE_NAMES[space]} for {cp.PLANNING_AP[space]} AP"
    if action < r.TAKE_FAVOR:
        space = action - r.BUILD
        card = r.contract_at(s, space)
        return f"build {cp.contract_name(card)} from {cp.CONTRACT_SPACE_NAMES[space]}{build_price(card, space)}"
    if action < r.BUILD_FAVOR:
        space = action - r.TAKE_FAVOR
        card = r.contract_at(s, space)
        return f"take {cp.contract_name(card)} as a Favor for {cp.CONTRACT_AP[space]} AP{contract_sentence(card)}"
    if action < r.LOT:
        card = s.favors[s.decider][action - r.BUILD_FAVOR]
        return f"build Favor {cp.contract_name(card)}{build_price(card, -1)}"
    if action < r.CIRCLE:
        x = action - r.LOT
        if decision == r.Decision.PLACE:
            block, variant = divmod(x, 4)
            size = cp.CONTRACT_SIZE[r.building_card(s)]
            lots = ", ".join(lot_name(4 * block + sub) for sub in cp.FOOTPRINTS[size][variant])
            return f"place on {lots} for {r.block_value(s, block)} wealth"
        if decision in (r.Decision.PICK_BUILDING, r.Decision.START_BUY):
            bid = s.lot_building[x]
            zone, size = r.standing(s, bid).zone, r.standing(s, bid).size
            what = f"the {ZONE_WORDS[zone]} {size}-lot building at {lot_name(x)}"
            if decision == r.Decision.START_BUY:
                return f"buy {what} for {r.block_value(s, x // 4)} wealth"
            return f"{what} (block value {r.block_value(s, x // 4)})"
        return f"a park on {lot_name(x)}"
    if action < r.PLAYER:
        g = action - r.CIRCLE
        held = s.circles[g]
        what = f" (holds marker {held})" if held else ""
        return f"grey circle {cp.CIRCLE_NAMES[g]}{what}"
    if action < r.OPT_A:
        seat = _seat(s, action - r.PLAYER)
        return f"seat {seat}" + (" (yourself)" if seat == s.decider else "")
    return _option_text(s, action == r.OPT_A)


def build_price(card: int, space: int) -> str:
    """What building a contract from `space` (-1: a Favor, free of AP) costs, then what it does."""
    ap = cp.CONTRACT_AP[space] if space >= 0 else 0
    size = cp.CONTRACT_SIZE[card]
    return (
        f" for {ap} AP, {size} permit{'s' if size > 1 else ''} and the block's value in wealth{contract_sentence(card)}"
    )


def _option_text(s: State, first: bool) -> str:
    """The two answers of a yes/no or wealth/prestige decision, with their amounts."""
    decision = s.decision
    if decision in (r.Decision.VOC_PAYOUT, r.Decision.TRIBUTE_PAY):
        verb = "take" if decision == r.Decision.VOC_PAYOUT else "pay"
        return f"{verb} {cast(r.TributeContext, s.ctx)['amount']} {'wealth' if first else 'prestige'}"
    if decision == r.Decision.AUCTION:
        return f"pay {cast(r.AuctionContext, s.ctx)['price']} wealth for a park" if first else "decline"
    if decision == r.Decision.DISASTER_CHOICE:
        disaster = cp.DISASTERS[cast(r.DisasterContext, s.ctx)["event"]]
        amounts = _amounts(disaster.wealth, disaster.prestige)
        return f"pay {amounts} to keep the building" if first else "demolish a building"
    if decision == r.Decision.BLIGHT_CHOICE:
        return "pay 3 prestige to keep it" if first else "let it be demolished"
    return "yes" if first else "no"


def _amounts(wealth: int, prestige: int) -> str:
    return (
        " and ".join(
            text for text in (f"{wealth} wealth" if wealth else "", f"{prestige} prestige" if prestige else "") if text
        )
        or "nothing"
    )


def _kinds(zones: tuple[int, ...], size: int) -> str:
    """'residential', 'civic or residential', with the size when it matters."""
    return " or ".join(ZONE_WORDS[z] for z in zones) + (f" {size}-lot" if size else "")


def effect_text(effect: cp.Effect) -> str:
    """One effect of a contract (components.CONTRACTS) as a sentence, built from its record's fields."""
    if isinstance(effect, cp.Gain):
        return f"you gain {_amounts(effect.wealth, effect.prestige)}"
    if isinstance(effect, cp.PerBuilding):
        who, whose = (("you gain", "of your"), ("you gain", "(anyone's)"), ("every player gains", "of their own"))[
            effect.recipients
        ]
        kinds = f"{_kinds(effect.zones, effect.size)} building"
        building = f"{kinds} {whose}" if effect.recipients == cp.ACTIVE_ALL else f"{whose} {kinds}s"
        return f"{who} {_amounts(effect.wealth, effect.prestige)} for each {building} {SCOPE_WORDS[effect.scope]}"
    if isinstance(effect, cp.Election):
        return f"an election for {cp.OFFICE_NAMES[effect.office]} is held"
    if isinstance(effect, cp.WinElection):
        return f"you become {cp.OFFICE_NAMES[effect.office]} (if that office is in play)"
    if isinstance(effect, cp.Marker):
        return f"you put marker {effect.number} on a grey circle"
    if isinstance(effect, cp.ParkEffect):
        return f"you place {effect.parks} park{'s' if effect.parks > 1 else ''} next to it"
    if isinstance(effect, cp.ExtraFavor):
        return "you may hold one more Favor"
    return (
        f"every other player pays you {effect.amount} wealth or prestige for each {_kinds(effect.zones, effect.size)} "
        "building they control"
    )


def restriction_text(restriction: cp.Restriction | None) -> str:
    """Where a contract may be built, in words ("" without a restriction)."""
    if restriction is None:
        return ""
    kind, argument = restriction
    if kind == cp.NOT_ADJ:
        return f"not next to a {ZONE_WORDS[argument]} building"
    if kind in (cp.MIN_VALUE, cp.MAX_VALUE):
        return f"only on a block worth at {'least' if kind == cp.MIN_VALUE else 'most'} {argument}"
    return {
        cp.ADJ_WATER: "it must touch the water",
        cp.ADJ_FOREST: "it must touch the forest",
        cp.IGNORE_ZONING: "it ignores zoning",
    }[kind]


def contract_sentence(card: int) -> str:
    """What building a contract does, as '; '-led clauses (restriction, effects, vocations, payout)."""
    parts = [restriction_text(cp.CONTRACT_RESTRICTION[card])] if cp.CONTRACT_RESTRICTION[card] else []
    parts += [effect_text(e) for e in cp.CONTRACT_EFFECTS[card]]
    parts += [f"{cp.VOCATION_NAMES[v].lower()} vocation {k}" for v, k in cp.CONTRACT_VOCATIONS[card]]
    if cp.CONTRACT_PAYOUT[card]:
        parts.append(f"prestige payout {cp.CONTRACT_PAYOUT[card]}")
    return "".join(f"; {part}" for part in parts)


def contract_details(card: int) -> str:
    """A contract's printed side in one line: restriction, effects, vocations, payout icon."""
    return contract_sentence(card).removeprefix("; ")


def describe_partial(s: State) -> str:
    """The building under way: its contract and the permits paid so far."""
    if s.decision in (r.Decision.PAY_PERMIT, r.Decision.PLACE) and s.build:
        card = s.build["card"]
        return f"building {cp.contract_name(card)}: permits paid {s.build['paid']} of {cp.CONTRACT_SIZE[card]} needed"
    return ""


def render_city(s: State) -> list[str]:
    """The 12 x 12 lots: zone letter and owner digit ('.' uncontrolled, '  ' empty); block values."""
    lines = []
    top = "      " + "".join(f"{c:^6}" for c in "012345")
    lines.append(top)
    for i in range(cp.GRID):
        row = []
        for j in range(cp.GRID):
            lot = cp.lot_index(i, j)
            bid = s.lot_building[lot]
            if bid < 0:
                cell = "__"
            else:
                zone, _, _, owner = r.standing(s, bid)
                cell = ZONE_LETTERS[zone] + (str(owner) if owner >= 0 else ".")
            row.append(cell + (" " if j % 2 else ""))
        values = " ".join(f"{r.block_value(s, 6 * (i // 2) + c):2d}" for c in range(6)) if i % 2 == 0 else ""
        lines.append(f"{i:2d}   " + " ".join(row) + ("   values " + values if values else ""))
    markers = ", ".join(f"{cp.CIRCLE_NAMES[g]}={m}" for g, m in enumerate(s.circles) if m) or "none"
    lines.append(f"markers on circles: {markers}")
    return lines


def _offers(s: State) -> list[str]:
    """The planning cards and contracts on offer, each space with its card in words."""
    lines = [
        "planning: "
        + " | ".join(
            f"{cp.PLANNING_SPACE_NAMES[k]}: {cp.planning_name(c) if c >= 0 else '-'}"
            for k, c in ((k, r.planning_at(s, k)) for k in range(5))
        )
    ]
    for k in range(8):
        card = r.contract_at(s, k)
        if card >= 0:
            details = contract_details(card)
            lines.append(
                f"  {cp.CONTRACT_SPACE_NAMES[k]} ({cp.CONTRACT_AP[k]} AP): {cp.contract_name(card)}"
                + (f" [{details}]" if details else "")
            )
    return lines


def _count(what: Sequence[str]) -> str:
    """'2 residential, 1 park' from the list of what there is ('none' for nothing)."""
    counts = Counter(what)
    return ", ".join(f"{number} {name}" for name, number in sorted(counts.items(), key=lambda item: -item[1])) or "none"


def describe_table(s: State) -> str:
    """The table in words for a person (the web app's final table, under the board it draws): each
    seat's wealth, prestige, buildings by zone, offices, vocations, hand and Favors; the buildings no
    seat controls, the markers on the grey circles, the cards on offer and the decks."""
    zones: list[list[str]] = [[] for _ in range(s.n + 1)]  # the last: buildings no seat controls
    for bid in r.live_buildings(s):
        building = r.standing(s, bid)
        zones[building.owner if building.owner >= 0 else s.n].append(ZONE_WORDS[building.zone])
    lines = []
    for seat in range(s.n):
        vocations = [f"{k} {cp.VOCATION_NAMES[v].lower()}" for v, k in enumerate(s.vocations[seat]) if k]
        lines += [
            f"seat {seat}: {s.prestige[seat]} prestige, {s.wealth[seat]} wealth",
            f"  buildings it controls: {_count(zones[seat])}",
            "  offices: " + (", ".join(cp.OFFICE_NAMES[o] for o in range(6) if s.offices[o] == seat) or "none"),
            "  vocations: " + (", ".join(vocations) or "none"),
            "  planning cards in hand: " + (", ".join(cp.planning_name(c) for c in s.hands[seat]) or "none"),
            "  Favors: " + (", ".join(cp.contract_name(c) for c in s.favors[seat]) or "none"),
        ]
    lines.append(f"buildings no seat controls: {_count(zones[s.n])}")
    markers = [f"marker {m} on grey circle {cp.CIRCLE_NAMES[g]}" for g, m in enumerate(s.circles) if m]
    lines.append("markers on the grey circles: " + (", ".join(markers) or "none"))
    lines += _offers(s)
    lines.append(
        f"cards left: {len(s.planning_deck)} planning, "
        + ", ".join(f"{len(s.decks[d])} {cp.DECK_NAMES[d]}" for d in range(3))
        + f"; the pawn is on the {cp.OFFICE_NAMES[s.pawn]}"
    )
    done = {True: "has come", False: "has not come"}
    lines.append(f"the Airport {done[bool(s.airport)]}; the Sports Team {done[bool(s.sports)]}")
    if s.decision == r.GAME_OVER:
        lines.append("winners: " + ", ".join(f"seat {w}" for w in s.winners))
    return "\n".join(lines)


def render_text(s: State) -> str:
    lines = render_city(s)
    lines += _offers(s)
    lines.append(
        f"decks: planning {len(s.planning_deck)}, "
        + ", ".join(f"{cp.DECK_NAMES[d]} {len(s.decks[d])}" for d in range(3))
        + f"; pawn on {cp.OFFICE_NAMES[s.pawn]}; "
        f"Airport {'done' if s.airport else 'pending'}, Sports Team {'done' if s.sports else 'pending'}"
    )
    for seat in range(s.n):
        offices = ", ".join(cp.OFFICE_NAMES[o] for o in range(6) if s.offices[o] == seat) or "-"
        vocs = ", ".join(f"{cp.VOCATION_NAMES[v]} x{k}" for v, k in enumerate(s.vocations[seat]) if k) or "-"
        hand = ", ".join(f"P{c:02d}" for c in s.hands[seat]) or "-"
        favors = ", ".join(cp.CONTRACT_ID[c] for c in s.favors[seat]) or "-"
        marker = "*" if seat == s.active else " "
        lines.append(
            f"{marker}seat {seat}: wealth {s.wealth[seat]}, prestige {s.prestige[seat]}; hand {hand}; "
            f"favors {favors}; vocations {vocs}; offices {offices}"
        )
    if s.decision == r.GAME_OVER:
        winners = ", ".join(f"seat {w}" for w in s.winners)
        lines.append(f"game over; winners: {winners}" + (" (truncated)" if s.truncated else ""))
    else:
        lines.append(
            f"turn {s.turns + 1}: seat {s.active} active, {s.ap} AP; "
            f"pending {r.Decision.name_of(s.decision)} for seat {s.decider}"
        )
    return "\n".join(lines)
