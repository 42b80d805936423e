"""Urban Sprawl as text: action descriptions and the public board (render_mode="ansi")."""

from __future__ import annotations

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r
from city_envs.urban_sprawl.rules import State

ZONE_LETTERS = "CMIRP"  # CIV, COM (Merchant), IND, RES, PARK


def lot_name(lot: int) -> str:
    i, j = cp.LOT_COORDS[lot]
    return f"L({i},{j})"


def _seat(s: State, relative: int) -> int:
    return (s.decider + relative) % s.n


def describe_action(s: State, action: int) -> str:
    decision = s.decision
    if action < r.PASS:
        verb = "invest" if decision == r.INVEST else "pay"
        extra = f" (+{cp.INVESTMENT[action]} wealth)" if decision == r.INVEST else ""
        return f"{verb} {cp.planning_name(action)}{extra}"
    if action == r.PASS:
        return {r.INVEST: "end investments", r.MAIN: "end the turn"}.get(decision, "decline")
    if action < r.BUILD:
        space = action - r.TAKE_PLANNING
        card = r.planning_at(s, space)
        return f"take {cp.planning_name(card)} from {cp.PLANNING_SPACE_NAMES[space]} ({cp.PLANNING_AP[space]} AP)"
    if action < r.TAKE_FAVOR:
        space = action - r.BUILD
        card = r.contract_at(s, space)
        return f"build {cp.contract_name(card)} from {cp.CONTRACT_SPACE_NAMES[space]} ({cp.CONTRACT_AP[space]} AP)"
    if action < r.BUILD_FAVOR:
        space = action - r.TAKE_FAVOR
        card = r.contract_at(s, space)
        return f"take {cp.contract_name(card)} as a Favor ({cp.CONTRACT_AP[space]} AP)"
    if action < r.LOT:
        k = action - r.BUILD_FAVOR
        return f"build Favor {cp.contract_name(s.favors[s.decider][k])}"
    if action < r.CIRCLE:
        x = action - r.LOT
        if decision == r.PLACE:
            block, variant = divmod(x, 4)
            size = cp.CONTRACT_SIZE[s.build["card"]]
            lots = ", ".join(lot_name(4 * block + sub) for sub in cp.FOOTPRINTS[size][variant])
            return f"place on block {block} ({lots}), value {r.block_value(s, block)}"
        if decision in (r.PICK_BUILDING, r.START_BUY):
            bid = s.lot_building[x]
            zone, size = s.buildings[bid][0], s.buildings[bid][1]
            return f"the {cp.ZONE_NAMES[zone]} {size}-lot building at {lot_name(x)} (value {r.block_value(s, x // 4)})"
        return f"a park on {lot_name(x)}"
    if action < r.PLAYER:
        g = action - r.CIRCLE
        held = s.circles[g]
        what = f" (holds marker {held})" if held else ""
        return f"grey circle {cp.CIRCLE_NAMES[g]}{what}"
    if action < r.OPT_A:
        seat = _seat(s, action - r.PLAYER)
        return f"player {seat}" + (" (self)" if seat == s.decider else "")
    a_text = {r.VOC_PAYOUT: "take wealth", r.TRIBUTE_PAY: "pay wealth", r.AUCTION: "pay 8 wealth for a park",
              r.DISASTER_CHOICE: "pay the alternative", r.BLIGHT_CHOICE: "pay 3 prestige to keep it"}
    b_text = {r.VOC_PAYOUT: "take prestige", r.TRIBUTE_PAY: "pay prestige", r.AUCTION: "decline",
              r.DISASTER_CHOICE: "demolish a building", r.BLIGHT_CHOICE: "let it be demolished"}
    return (a_text if action == r.OPT_A else b_text).get(decision, "option")


def _amounts(wealth: int, prestige: int) -> str:
    return ", ".join(text for text in (f"w={wealth}" if wealth else "", f"p={prestige}" if prestige else "") if text)


def _filter(zones: tuple[int, ...], size: int) -> str:
    return "+".join(cp.ZONE_NAMES[z] for z in zones) + (f" size {size}" if size else "")


def effect_text(effect: tuple) -> str:
    """One effect row of components.CONTRACTS in the notation of docs/games/urban_sprawl.md."""
    template = effect[0]
    if template == cp.GAIN:
        return f"GAIN({_amounts(effect[1], effect[2])})"
    if template == cp.PER_BUILDING:
        _, recipients, wealth, prestige, zones, size, scope = effect
        who = ("ACTIVE_OWN", "ACTIVE_ALL", "EACH_OWN")[recipients]
        where = ("CITY", "ADJACENT", "THESE_ROWS")[scope]
        return f"PER_BUILDING({who}, {_amounts(wealth, prestige)}, {_filter(zones, size)}, {where})"
    if template in (cp.ELECTION, cp.WIN_ELECTION):
        return f"{cp.EFFECT_NAMES[template]}({cp.OFFICE_NAMES[effect[1]]})"
    if template in (cp.MARKER, cp.PARK_EFFECT):
        return f"{cp.EFFECT_NAMES[template]}({effect[1]})"
    if template == cp.TRIBUTE:
        return f"TRIBUTE({effect[1]}, {_filter(effect[2], 0)}, {f'size {effect[3]}' if effect[3] else 'any size'})"
    return cp.EFFECT_NAMES[template]


def restriction_text(restriction: tuple[int, int] | None) -> str:
    if restriction is None:
        return "-"
    kind, argument = restriction
    if kind == cp.NOT_ADJ:
        return f"NOT_ADJ({cp.ZONE_NAMES[argument]})"
    if kind in (cp.MIN_VALUE, cp.MAX_VALUE):
        return f"{cp.RESTRICTION_NAMES[kind]}({argument})"
    return cp.RESTRICTION_NAMES[kind]


def contract_details(card: int) -> str:
    """A contract's printed side in one line: restriction, vocations, effects, payout icon."""
    parts = [] if cp.CONTRACT_RESTRICTION[card] is None else [restriction_text(cp.CONTRACT_RESTRICTION[card])]
    parts += [f"{cp.VOCATION_NAMES[v]}-{k}" for v, k in cp.CONTRACT_VOCATIONS[card]]
    parts += [effect_text(e) for e in cp.CONTRACT_EFFECTS[card]]
    if cp.CONTRACT_PAYOUT[card]:
        parts.append(f"P{cp.CONTRACT_PAYOUT[card]}")
    return "; ".join(parts)


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
                zone, _, _, owner = s.buildings[bid]
                cell = ZONE_LETTERS[zone] + (str(owner) if owner >= 0 else ".")
            row.append(cell + (" " if j % 2 else ""))
        values = " ".join(f"{r.block_value(s, 6 * (i // 2) + c):2d}" for c in range(6)) if i % 2 == 0 else ""
        lines.append(f"{i:2d}   " + " ".join(row) + ("   values " + values if values else ""))
    markers = ", ".join(f"{cp.CIRCLE_NAMES[g]}={m}" for g, m in enumerate(s.circles) if m) or "none"
    lines.append(f"markers on circles: {markers}")
    return lines


def render_text(s: State) -> str:
    lines = render_city(s)
    lines.append("planning: " + " | ".join(
        f"{cp.PLANNING_SPACE_NAMES[k]}: {cp.planning_name(c) if c >= 0 else '-'}"
        for k, c in ((k, r.planning_at(s, k)) for k in range(5))))
    for k in range(8):
        card = r.contract_at(s, k)
        if card >= 0:
            details = contract_details(card)
            lines.append(f"  {cp.CONTRACT_SPACE_NAMES[k]} ({cp.CONTRACT_AP[k]} AP): {cp.contract_name(card)}"
                         + (f" [{details}]" if details else ""))
    lines.append(f"decks: planning {len(s.planning_deck)}, " + ", ".join(
        f"{cp.DECK_NAMES[d]} {len(s.decks[d])}" for d in range(3)) + f"; pawn on {cp.OFFICE_NAMES[s.pawn]}; "
        f"Airport {'done' if s.airport else 'pending'}, Sports Team {'done' if s.sports else 'pending'}")
    for seat in range(s.n):
        offices = ", ".join(cp.OFFICE_NAMES[o] for o in range(6) if s.offices[o] == seat) or "-"
        vocs = ", ".join(f"{cp.VOCATION_NAMES[v]} x{k}" for v, k in enumerate(s.vocations[seat]) if k) or "-"
        hand = ", ".join(f"P{c:02d}" for c in s.hands[seat]) or "-"
        favors = ", ".join(cp.CONTRACT_ID[c] for c in s.favors[seat]) or "-"
        marker = "*" if seat == s.active else " "
        lines.append(f"{marker}player {seat}: wealth {s.wealth[seat]}, prestige {s.prestige[seat]}; hand {hand}; "
                     f"favors {favors}; vocations {vocs}; offices {offices}")
    if s.decision == r.GAME_OVER:
        lines.append(f"game over; winners {s.winners}" + (" (truncated)" if s.truncated else ""))
    else:
        lines.append(f"turn {s.turns + 1}: player {s.active} active, {s.ap} AP; "
                     f"pending {r.DECISION_NAMES[s.decision]} for player {s.decider}")
    return "\n".join(lines)
