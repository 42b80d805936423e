"""Metropolys as text: action descriptions and the public board (render_mode="ansi")."""

from __future__ import annotations

from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r
from city_envs.metropolys.rules import State
from city_envs.metropolys.view import secret_cards

_TOKEN_MARK = {cp.NO_TOKEN: "", cp.TRENDY: "T", cp.SUBWAY: "S", cp.ARCH: "A"}


def nbhd_label(nb: int) -> str:
    colour = cp.COLOUR[nb]
    return f"{nb} ({cp.DISTRICT_NAMES[cp.DISTRICT[nb]]} district, {cp.COLOUR_NAMES[colour]} {cp.TYPE_NAMES[colour]})"


def choice_group(s: State, action: int) -> str:
    """Where a long list of choices shows `action`: a bid's neighbourhood under its district; "" for any other."""
    if action < r.VALUE_ACTION:
        return f"bid in the {cp.DISTRICT_NAMES[cp.DISTRICT[action]]} district"
    return ""


def describe_action(s: State, action: int) -> str:
    if action == r.PASS:
        return "pass (out of this call)"
    if action < r.VALUE_ACTION:
        token = cp.TOKEN_NAMES[s.token[action]]
        extra = f", with {'an' if token[0] in 'aeiou' else 'a'} {token} token" if s.token[action] != cp.NO_TOKEN else ""
        return f"bid on neighbourhood {nbhd_label(action)}{extra}"
    value = action - r.VALUE_ACTION + 1
    where = f" on neighbourhood {nbhd_label(s.chosen)}" if s.chosen >= 0 else ""
    return f"bid {value}{where}"


def describe_partial(s: State) -> str:
    """The neighbourhood chosen for the bid whose value comes next."""
    bidding = s.decision == r.Decision.VALUE and s.chosen >= 0
    return f"bidding on neighbourhood {nbhd_label(s.chosen)}" if bidding else ""


def describe_outcome(before: State, after: State) -> list[str]:
    """The buildings a finished call put up: who won it, where, with which value."""
    return [
        f"seat {after.owner[nb]} wins the call and builds {after.built_value[nb]} on neighbourhood {nbhd_label(nb)}"
        for nb in range(cp.NUM_NBHDS)
        if before.owner[nb] < 0 <= after.owner[nb]
    ]


def render_private(s: State, p: int) -> str:
    cards = ", ".join(f"{kind}: {name}" for kind, name in secret_cards(s, p).items())
    return f"your secret cards: {cards}; your supply: {r.values_of(s.supply[p])}"


def render_text(s: State) -> str:
    """The public board: what every seat can see (secret cards only once the game is over)."""
    lines = [
        f"Metropolys ({s.version}), {s.n} players, call {s.calls + 1}"
        + (f", removed: {', '.join(cp.DISTRICT_NAMES[d] for d in s.removed)}" if s.removed else "")
    ]
    for district in range(5):
        if district in s.removed:
            continue
        cells = []
        for nb in range(cp.NUM_NBHDS):
            if cp.DISTRICT[nb] != district:
                continue
            if s.owner[nb] >= 0:
                cell = f"{nb}=seat{s.owner[nb]}:{s.built_value[nb]}"
            elif s.bid_owner[nb] >= 0:
                cell = f"{nb}?seat{s.bid_owner[nb]}:{s.bid_value[nb]}"
            else:
                cell = f"{nb}"
            cells.append(cell + _TOKEN_MARK[s.token[nb]])
        lines.append(f"  {cp.DISTRICT_NAMES[district]:>6}: " + " ".join(cells))
    lines.append(
        "  (n=seatk:v: neighbourhood n built by seat k, value v; n?seatk:v: seat k bids v on it; "
        "T trendy, S subway, A archaeological token on the board)"
    )
    for seat in range(s.n):
        trendy, subway, arch = s.tokens[seat]
        cards = ("Subway card " if s.subway_card == seat else "") + ("Arch card " if s.arch_card == seat else "")
        status = " passed" if s.passed >> seat & 1 else ""
        mark = ">" if seat == s.actor else " "
        line = (
            f"{mark} seat {seat}: built {s.built[seat]}/13, supply {r.values_of(s.supply[seat])}, "
            f"tokens {trendy} trendy, {subway} subway, {arch} archaeological; "
            f"{cards}public score {r.token_points(s, seat)}{status}"
        )
        if s.decision == r.GAME_OVER:
            secret = ", ".join(f"{k} {v}" for k, v in secret_cards(s, seat).items())
            line += f", cards: {secret}, final {r.score(s, seat)}"
        lines.append(line)
    if s.decision == r.GAME_OVER:
        lines.append(f"game over; winners: {', '.join(f'seat {w}' for w in r.winners(s))}")
    elif s.bids:
        seat, nb, value = s.bids[-1]
        lines.append(
            f"top bid: seat {seat} {value} on {nb}; seat {s.actor} to "
            + ("choose a value" if s.decision == r.Decision.VALUE else "outbid or pass")
        )
    else:
        lines.append(f"seat {s.actor} opens the call")
    return "\n".join(lines)
