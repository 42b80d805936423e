"""A rule-based Blue Moon City player (the strategy notes in docs/games/blue_moon_city.md).

It reads only its seat's information set: `view()` and the legal action ids, plus the static tile
data and the pure payment search `rules.can_finish`. The generator only breaks exact ties.

- Movement: the Courtyard when an offering is affordable; otherwise the reachable tile whose
  payable sections promise most (crystals + scales + 0.6 per card, with the completion rewards when
  the hand can fill every empty section, and the scales of dragons standing there). Grey cards are
  spent only to reach a clearly better tile; a dragon is flown onto the target when its scale is
  worth the card.
- Building: the leftmost payable section (it wins master-builder ties), paid with exact change:
  ordinary cards of the colour first, then Khind, Mimix pairs, Hoax last.
- Offering: every offering and yellow extra that is affordable.
- Discarding: the two least useful cards (value-3 cards of colours with nothing left to build first),
  keeping Khind, Hoax, grey and, when rich, yellow cards.
"""

from __future__ import annotations

from city_envs.agents.base import HeuristicAgent
from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
from city_envs.core.infoset import InfoSet

CARD_WORTH = 0.6  # a reward card, in crystals
SCALE_WORTH = 1.0
CARD_COST = 0.4  # spending an ordinary card
POWER_COST = 0.8  # spending a power card
SECTION_WORTH = 1.0  # a marker placed, towards a later completion
OFFER_WORTH = 12.0
GREY_MARGIN = 1.5  # a grey card is spent only for a tile this much better
KEEP_THRESHOLD = 2.5  # cards at least this useful are never discarded
NO_CAPS = (0,) * cp.NUM_COLOURS


def reward_worth(reward: tuple[int, int, int]) -> float:
    crystals, cards, scales = reward
    return crystals + CARD_WORTH * cards + SCALE_WORTH * scales


class Table:
    """What one `view()` says, in the shape the decisions need."""

    def __init__(self, v: dict) -> None:
        self.v = v
        self.me = v["player"]
        self.hand = tuple(v["hand"])
        self.here = v["figures"][self.me]
        self.markers = v["markers"][self.me]
        self.coverable: dict[tuple[int, int], bool] = {}  # (value, colour or ANY) -> can the hand pay it
        self.open_counts: dict[int, int] = {}  # colour -> open tiles it could pay on

    def can_offer(self) -> bool:
        return self.markers > 0 and self.v["crystals"][self.me] >= self.v["next_offer_cost"]

    def payable_sections(self, position: int) -> list[int]:
        tile = self.v["tile_at"][position]
        if self.v["complete"][position] or tile == cp.COURTYARD or self.markers < 1:
            return []
        markers = self.v["markers_on"][position]
        sections = enumerate(cp.SECTIONS[tile])
        return [i for i, (colour, value) in sections if markers[i] < 0 and self.can_pay(value, colour)]

    def can_pay(self, value: int, colour: int) -> bool:
        """`r.can_finish` for this hand in `colour` (any one colour for a palace section: `cp.ANY`),
        asked once per value and colour in a decision."""
        key = (value, colour)
        if key not in self.coverable:
            colours = range(cp.NUM_COLOURS) if colour == cp.ANY else (colour,)
            self.coverable[key] = any(r.can_finish(value, c, self.hand, NO_CAPS, 0) for c in colours)
        return self.coverable[key]

    def tile_worth(self, position: int) -> float:
        """What contributing on `position` this turn is worth (0 if nothing is payable)."""
        if position == cp.COURTYARD_POSITION:
            return OFFER_WORTH if self.can_offer() else 0.0
        payable = self.payable_sections(position)
        if not payable:
            return 0.0
        tile = self.v["tile_at"][position]
        markers = self.v["markers_on"][position]
        empty = [i for i in range(len(cp.SECTIONS[tile])) if markers[i] < 0]
        worth = SECTION_WORTH * len(payable)
        worth += SCALE_WORTH * sum(d == position for d in self.v["dragons"])
        if len(payable) == len(empty) and len(empty) <= 2:  # likely to complete it myself
            worth += reward_worth(cp.EACH_REWARD[tile])
            mine = sum(m == self.me for m in markers) + len(empty)
            others = max(
                (sum(m == seat for m in markers) for seat in set(markers) if seat not in (-1, self.me)), default=0
            )
            if mine >= others:
                worth += reward_worth(cp.STAR_REWARD[tile])
            for q in cp.NEIGHBOURS_NESW[position]:
                if self.v["complete"][q]:
                    worth += reward_worth(cp.NEIGHBOUR_REWARD[self.v["tile_at"][q]])
        return worth

    def usefulness(self, card: int) -> float:
        """How much a card in hand is worth keeping."""
        colour, value = cp.CARD_COLOUR[card], cp.CARD_VALUE[card]
        if card == cp.GREEN_CARD:
            return 3.0
        if card in (cp.WHITE_1, cp.WHITE_2):
            return 2.5
        if colour == cp.GREY and value < 3:
            return 2.0
        if colour == cp.YELLOW and value < 3:
            return 2.6 if self.v["crystals"][self.me] >= 7 else 1.2
        if colour == cp.BROWN and value < 3:
            return 1.5 if self.hand[cp.BROWN_1] + self.hand[cp.BROWN_2] >= 2 else 0.8
        return 0.5 + 0.4 * min(self.open_tiles(colour), 4) + 0.2 * value

    def open_tiles(self, colour: int) -> int:
        """Unfinished tiles with an empty section a card of `colour` could pay, once per colour in a decision."""
        if colour not in self.open_counts:
            self.open_counts[colour] = sum(
                1
                for position, tile in enumerate(self.v["tile_at"])
                if not self.v["complete"][position]
                and any(
                    sc in (colour, cp.ANY) and self.v["markers_on"][position][i] < 0
                    for i, (sc, _) in enumerate(cp.SECTIONS[tile])
                )
            )
        return self.open_counts[colour]


class BlueMoonCityHeuristicAgent(HeuristicAgent):
    """The strategy of §11 (its docs page's Heuristic agent); `act` always returns a legal id."""

    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        table = Table(info_set.view())
        decision = table.v["decision"]
        if decision == "MOVE":
            action = self._move(table, legal)
        elif decision == "BUILD":
            action = min(a for a in legal if r.SELECT_SECTION <= a < r.END_CONTRIBUTION)
        elif decision == "PAY":
            action = self._pay(table, legal)
        elif decision == "OFFER":
            action = min(a for a in legal if a != r.END_CONTRIBUTION)  # the normal offering first
        else:
            action = self._discard(table, legal)
        return action if action in legal else legal[-1]

    # ----- movement -----------------------------------------------------------------------------
    def _move(self, table: Table, legal: list[int]) -> int:
        reachable = [a - r.MOVE_FIGURE for a in legal if r.MOVE_FIGURE <= a < r.SELECT_SECTION]
        worth = {p: table.tile_worth(p) for p in range(cp.NUM_POSITIONS)}
        best_here = max(reachable, key=lambda p: (worth[p], -cp.DISTANCE[table.here][p]))
        best_anywhere = max(range(cp.NUM_POSITIONS), key=lambda p: worth[p])
        if worth[best_anywhere] > worth[best_here] + GREY_MARGIN:
            allowance = table.v["turn"]["allowance"]
            distance = cp.DISTANCE[table.here][best_anywhere]
            if r.FLIT_BOOST in legal and distance <= allowance + cp.BOOST_STEPS:
                return r.FLIT_BOOST
            if r.FLIT_TELEPORT in legal:
                return r.FLIT_TELEPORT
        target = best_here
        if worth[target] > 0 and target != cp.COURTYARD_POSITION:
            # a dragon on the building I pay at brings a scale (worth more than the flight card)
            for d in range(3):
                fly = r.DRAGON_MOVE + 42 * d + target
                if fly in legal:
                    return fly
        if worth[target] <= 0:  # nothing to do anywhere in reach: head for the richest tile
            target = min(reachable, key=lambda p: (cp.DISTANCE[p][best_anywhere], p))
        return r.MOVE_FIGURE + target

    # ----- paying -------------------------------------------------------------------------------
    def _pay(self, table: Table, legal: list[int]) -> int:
        pay = table.v["payment"]
        if pay["colour"] < 0:

            def colour_score(a: int) -> float:
                c = a - r.PALACE_COLOR
                return sum(table.hand[3 * c + v] * (v + 1) for v in range(3) if 3 * c + v not in cp.POWER_CARDS)

            return self._best([a for a in legal if r.PALACE_COLOR <= a < r.ADD_CARD], colour_score)
        need = pay["value"] - pay["total"]

        def cost(a: int) -> float:
            if r.ADD_CARD <= a < r.ADD_MIMIX_PAIR:
                x = a - r.ADD_CARD
                value = 1 if x == cp.GREEN_CARD else cp.CARD_VALUE[x]
                overshoot = max(0, value - need)
                penalty = POWER_COST if x in cp.POWER_CARDS else CARD_COST
                if x == cp.GREEN_CARD:
                    penalty += 0.3
                return penalty + 0.5 * overshoot - 0.05 * value
            if r.ADD_MIMIX_PAIR <= a < r.USE_HOAX1:
                return 2 * POWER_COST + 0.5 * max(0, cp.MIMIX_VALUE - need)
            return 3 * POWER_COST  # Hoax: only when nothing else will do

        return self._best(legal, lambda a: -cost(a))

    # ----- end of the turn ----------------------------------------------------------------------
    def _discard(self, table: Table, legal: list[int]) -> int:
        cards = [a - r.DISCARD for a in legal if r.DISCARD <= a < r.END_TURN]
        worst = min(cards, key=lambda x: (table.usefulness(x), x))
        if table.usefulness(worst) < KEEP_THRESHOLD:
            return r.DISCARD + worst
        return r.END_TURN
