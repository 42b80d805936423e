"""A rule-based Metropolys player (shared/rules/metropolys.md section 11).

It reads only its seat's information set: `view()` and the legal action ids. Every decision is a
score over the legal options; the agent's generator only breaks exact ties, so a seeded agent is
deterministic.

- Worth of a neighbourhood: its token (trendy 3, subway 1 plus the Subway card if it would move,
  archaeological -1 plus the Arch card's -2 if it would come to me) plus my secret objective (family
  Area card +3; expert: Neighbourhood colour +2, the marginal points of my expert Area card and a
  little for progress towards a set, 5 for taking the lead in a district's height comparison).
- Price of a bid: the building it uses, value/13 x 4 points, less as the game nears its end.
- A bid is safe when nobody still in the call holds a higher value, or when the spot has no free
  neighbour left (nobody can follow): then the smallest such value is enough.
- Opening: the best spot minus a risk of 0.5 per free neighbour; the smallest value on a spot
  nobody can follow, else the smallest safe value if affordable, else a middling one.
- Outbidding: the best legal spot if its worth beats the price of my smallest legal value, else pass.
"""

from __future__ import annotations

from agents.base import make_rng
from city_envs.core.infoset import InfoSet
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r

TOKEN_WORTH = {"trendy": 3.0, "subway": 1.0, "archaeological": -1.0}
BUILDING_PRICE = 4.0  # points a building of value 13 is worth keeping, early in the game
LATE_DISCOUNT = 0.6  # share of the price that disappears as the leader nears 13 buildings
RISK_PER_FREE_NEIGHBOUR = 0.5
PROGRESS_BONUS = 1.0  # expert Area card: per own building that a spot joins towards a set
MID_VALUE = 5
EPS = 1e-9


class Board:
    """What one `view()` says about the board, in the shape the decisions need."""

    def __init__(self, v: dict) -> None:
        self.v = v
        self.me = v["player"]
        self.n = v["num_players"]
        removed = {cp.DISTRICT_NAMES.index(name) for name in v["removed_districts"]}
        self.in_play = [cp.DISTRICT[nb] not in removed for nb in range(cp.NUM_NBHDS)]
        self.owner = [-1] * cp.NUM_NBHDS
        self.value = [0] * cp.NUM_NBHDS
        for nb, (seat, value) in v["buildings"].items():
            self.owner[int(nb)] = seat
            self.value[int(nb)] = value
        self.bid_at = {nb for _, nb, _ in v["bids"]}
        self.token = {int(nb): name for nb, name in v["tokens_on_board"].items()}
        self.supply = v["supply"]
        self.mine = [nb for nb in range(cp.NUM_NBHDS) if self.owner[nb] == self.me]
        self.cards = v["my_cards"]
        self.version = v["version"]
        self.top = v["bids"][-1] if v["bids"] else None
        self.clock = max(v["built"]) / cp.NUM_BUILDINGS

    def is_free(self, nb: int) -> bool:
        return self.in_play[nb] and self.owner[nb] < 0 and nb not in self.bid_at

    def free_neighbours(self, nb: int) -> list[int]:
        return [other for other in cp.ADJ[nb] if self.is_free(other)]

    # ----- worth of a spot -----------------------------------------------------------------------
    def token_worth(self, nb: int) -> float:
        name = self.token.get(nb)
        if name is None:
            return 0.0
        worth = TOKEN_WORTH[name]
        tokens = self.v["tokens"]
        if name == "subway":
            holder = self.v["subway_card"]
            mine = tokens[self.me]["subway"] + 1
            if holder < 0 or (holder != self.me and mine > tokens[holder]["subway"]):
                worth += cp.SUBWAY_CARD_POINTS if holder < 0 else 2 * cp.SUBWAY_CARD_POINTS  # I gain, they lose
        elif name == "archaeological" and self.v["arch_card"] != self.me:
            worth += cp.ARCH_CARD_POINTS
        return worth

    def objective_worth(self, nb: int, value: int) -> float:
        if self.version == r.FAMILY:
            card = self.cards["area"]
            if card is None:
                return 0.0
            qualifying = cp.FAMILY_QUALIFYING[cp.FAMILY_CARD_NAMES.index(card)]
            return float(cp.FAMILY_POINTS_PER_BUILDING) if nb in qualifying else 0.0
        colour = cp.COLOUR_NAMES.index(self.cards["neighbourhood"])
        area = cp.EXPERT_AREA_NAMES.index(self.cards["area"])
        worth = float(cp.NEIGHBOURHOOD_POINTS_PER_BUILDING) if cp.COLOUR[nb] == colour else 0.0
        worth += r.area_points(area, [*self.mine, nb]) - r.area_points(area, self.mine)
        worth += PROGRESS_BONUS * self.progress(area, nb)
        worth += self.height_gain(nb, value)
        return worth

    def progress(self, area: int, nb: int) -> float:
        """Own buildings this spot would group with, for an expert Area card (capped)."""
        mine = set(self.mine)
        if area == cp.EXPERT_BRIDGES:
            return float(any((nb, o) in cp.BRIDGES or (o, nb) in cp.BRIDGES for o in mine))
        if area == cp.EXPERT_CHAINS:
            return min(2.0, float(sum(o in mine for o in cp.ADJ[nb])))
        if area == cp.EXPERT_LAKES:
            return min(2.0, max((sum(o in mine for o in lake) for lake in cp.LAKES if nb in lake), default=0))
        if area == cp.EXPERT_STATUES:
            return min(2.0, max((sum(o in mine for o in statue) for statue in cp.STATUES if nb in statue), default=0))
        district = cp.DISTRICT[nb]
        return float(0 < sum(cp.DISTRICT[o] == district for o in mine) < cp.DISTRICT_SET_SIZE)

    def height_gain(self, nb: int, value: int) -> float:
        """5 if building `value` here makes me (co-)best in the district's height comparison."""
        district = cp.DISTRICT[nb]
        lists: dict[int, list[int]] = {}
        for other in range(cp.NUM_NBHDS):
            if self.owner[other] >= 0 and cp.DISTRICT[other] == district:
                lists.setdefault(self.owner[other], []).append(cp.HEIGHT_CLASS[self.value[other]])

        def leads(heights: dict[int, list[int]]) -> bool:
            ranked = {seat: sorted(h, reverse=True) for seat, h in heights.items()}
            return self.me in ranked and ranked[self.me] == max(ranked.values())

        before = leads(lists)
        lists.setdefault(self.me, []).append(cp.HEIGHT_CLASS[value])
        return cp.HIGHEST_BUILDING_POINTS * (leads(lists) - before)

    def worth(self, nb: int, value: int) -> float:
        return self.token_worth(nb) + self.objective_worth(nb, value)

    # ----- prices and safety ---------------------------------------------------------------------
    def price(self, value: int) -> float:
        return value / cp.NUM_BUILDINGS * BUILDING_PRICE * (1.0 - LATE_DISCOUNT * self.clock)

    def safe_above(self, nb: int) -> int:
        """Lowest value nobody still in the call can beat on `nb` (0: nobody can follow at all)."""
        if not any(other for other in cp.ADJ[nb] if self.is_free(other) and other != nb):
            return 0
        return max((max(self.supply[seat], default=0) for seat in self.rivals_after_me()), default=0)

    def rivals_after_me(self) -> list[int]:
        """Seats that could answer my bid: still in the call, not me (the current top bidder too)."""
        passed = set(self.v["passed"])
        return [seat for seat in range(self.n) if seat != self.me and seat not in passed]

    def my_values(self, above: int) -> list[int]:
        return [v for v in self.supply[self.me] if v > above]


class MetropolysHeuristicAgent:
    """Section 11's heuristic; `act` always returns a legal id."""

    def __init__(self, seed=None) -> None:
        self.rng = make_rng(seed)

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        if len(legal) == 1:
            return legal[0]
        board = Board(info_set.view())
        if board.v["decision"] == "VALUE":
            return self._value(board, legal)
        spots = [a for a in legal if a < r.VALUE_ACTION]
        if r.PASS not in legal:
            return self._open(board, spots)
        return self._outbid(board, spots)

    def _best(self, options: list, score) -> int:
        values = [score(o) for o in options]
        top = max(values)
        tied = [o for o, x in zip(options, values, strict=True) if x >= top - EPS]
        return tied[int(self.rng.integers(len(tied)))] if len(tied) > 1 else tied[0]

    def _bid_value(self, board: Board, nb: int, floor: int) -> int:
        """The value I would bid on `nb` above `floor`: the smallest safe one if affordable, else the smallest."""
        values = board.my_values(floor)
        safe = board.safe_above(nb)
        winning = [v for v in values if v > safe]
        if winning and board.price(winning[0]) <= board.worth(nb, winning[0]) + board.price(values[0]):
            return winning[0]
        if floor == 0 and safe > 0:  # an open spot: a middling value to discourage cheap outbids
            middling = [v for v in values if v >= MID_VALUE]
            return middling[0] if middling else values[0]
        return values[0]

    def _open(self, board: Board, spots: list[int]) -> int:
        def score(nb: int) -> float:
            value = self._bid_value(board, nb, 0)
            risk = RISK_PER_FREE_NEIGHBOUR * len(board.free_neighbours(nb)) if board.safe_above(nb) >= value else 0.0
            return board.worth(nb, value) - risk - board.price(value)

        return self._best(spots, score)

    def _outbid(self, board: Board, spots: list[int]) -> int:
        floor = board.top[2]

        def gain(nb: int) -> float:
            value = self._bid_value(board, nb, floor)
            return board.worth(nb, value) - board.price(value)

        best = self._best(spots, gain)
        return best if gain(best) > 0 else r.PASS

    def _value(self, board: Board, legal: list[int]) -> int:
        nb = board.v["chosen"]
        floor = board.top[2] if board.top else 0
        value = self._bid_value(board, nb, floor)
        action = r.VALUE_ACTION + value - 1
        return action if action in legal else min(legal)
