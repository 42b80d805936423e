"""A rule-based Metropolys player (the strategy notes in docs/games/metropolys.md).

It reads only its seat's information set: `view()` and the legal action ids. Every decision is a
score over the legal options; the agent's generator only breaks exact ties, so a seeded agent is
deterministic.

Outline of the strategy:

- Worth of a spot, `val(n)`: its token (trendy 3; subway 1, plus the Subway card it would bring,
  take from a rival or guard; archaeological -1, plus the Arch card's -2 growing as the game ages),
  my secret objective (family Area card +3; expert: Neighbourhood colour +2, the marginal points of
  my expert Area card, a little for progress towards a set, and a district's highest-building token
  the value would win me) and denial (what the spot is worth to the rivals' secret cards, inferred
  from where they built).
- Price of a bid: the building it uses, growing with its value and falling as the game nears its
  end; a few tall values are kept back for the last third.
- A bid wins outright when no seat still in the call holds a higher value, or when nobody can follow
  it (no free neighbour); then the smallest such value is enough, if the sure win is worth
  more than a cheap bid that may hold.
- Opening: every free spot scores its worth minus 0.5 per free neighbour; the smallest value on a
  spot nobody can follow, a sure winner if affordable, else a middling value.
- Outbidding: the best legal spot if its worth beats the price of its value, else pass; passing
  costs what the top bidder gains, so a spot that matters to a rival is contested.
- The clock: when a win ends the game (the 13th building), the estimated final scores
  decide; a rival about to finish as the leader must be outbid at any price.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from city_envs.agents.base import HeuristicAgent
from city_envs.core.infoset import InfoSet
from city_envs.core.memo import BoundedMemo
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r

TOKEN_WORTH = {"trendy": 3.0, "subway": 1.0, "archaeological": -1.0}
SUBWAY_GUARD = 1.5  # one more subway token when a rival could otherwise catch up with my count
SUBWAY_BLOCK = 1.5  # taking a subway token that would bring a rival the Subway card
ARCH_STICK_EARLY = 0.5  # share of the Arch card's -2 that sticks when taken at the start...
# points a value-13 building is worth keeping early in the game, by version (expert spots score more)
BUILDING_PRICE = {r.FAMILY: 4.0, r.EXPERT: 4.0}
LATE_DISCOUNT = 0.6  # share of the price that disappears as the leader nears 13 buildings
TALL, KEEP_TALL, TALL_RESERVE, LAST_THIRD = 10, 2, 1.5, 2 / 3
RISK_PER_FREE_NEIGHBOUR = 0.5
HOLD_CHANCE = 0.5  # chance that a bid some rival could beat still wins its call
MID_VALUES = range(5, 9)
PROGRESS_BONUS = 1.0  # expert Area card: per own building that a spot joins towards a set
DENIAL = 0.5  # share of a spot's worth to the rivals that taking it is worth to me
BELIEF_SHARPNESS = 1.0  # how strongly a rival's buildings reveal its secret cards
WEIGHT_LEADER, WEIGHT_OTHER = 0.6, 0.3  # with 3-4 players: the best rival's points, the others'
WIN = 30.0  # ending the game as the winner (or preventing a rival from doing so)
DERIVED_MEMO_SIZE = 64  # boards an agent remembers its `Derived` answers for


class Derived:
    """What a seat derives from the board (buildings, tokens, public scores and cards) and its own
    secret cards alone (read only once built): the same for every decision it takes until a call
    ends, so the agent keeps it across them."""

    def __init__(self, v: dict) -> None:
        removed = {cp.DISTRICT_NAMES.index(name) for name in v["removed_districts"]}
        self.districts = [d for d in range(5) if d not in removed]
        self.in_play = [cp.DISTRICT[nb] not in removed for nb in range(cp.NUM_NBHDS)]
        self.owner = [-1] * cp.NUM_NBHDS
        self.height = [0] * cp.NUM_NBHDS
        for nb, (seat, value) in v["buildings"].items():
            self.owner[nb] = seat
            self.height[nb] = cp.HEIGHT_CLASS[value]
        self.buildings: list[list[int]] = [[] for _ in range(v["num_players"])]
        for nb, seat in enumerate(self.owner):
            if seat >= 0:
                self.buildings[seat].append(nb)
        # the answers below are filled in when first asked
        self.beliefs: dict[int, Belief] | None = None
        self.estimates: list[float] | None = None
        self.weights: dict[int, float] = {}
        self.denial_worth: list[float] | None = None
        self.area_now: int | None = None
        self.height_lists: dict[int, dict[int, list[int]]] = {}
        self.token_worth: dict[str | None, float] = {}  # per token name (None: no token)
        self.objective_base: dict[int, float] = {}  # per spot, `Situation.objective_base`
        self.denial_array: np.ndarray | None = None  # `denial_worth` of every spot, for the opening
        self.token_kinds: np.ndarray | None = None  # per spot, its token's index in cp.TOKEN_NAMES (0: none)
        # the agent's `_gain` per spot, value and count of tall values left (which the price reads)
        self.gains: dict[tuple[int, int, int], float] = {}


def derived_key(v: dict) -> tuple:
    """Everything of a view that `Derived` depends on (the seat's own cards included: it is its memo).
    None of it changes while a call is bid, only when it ends."""
    return (
        v["player"],
        v["num_players"],
        v["version"],
        tuple(sorted(v["my_cards"].items())),
        tuple(v["removed_districts"]),
        tuple(v["buildings"].items()),
        tuple(v["public_scores"]),
        tuple(v["tokens_on_board"].items()),
        tuple(tuple(counts.values()) for counts in v["tokens"]),
        v["subway_card"],
        v["arch_card"],
        tuple(v["built"]),
    )


class Belief:
    """What I believe of one rival's secret card, from where it built (and my own cards): the same on
    every board until it builds again, so the agent remembers it by those."""

    __slots__ = ("points", "expected", "built_points")

    def __init__(self, version: str, cards: list[tuple[dict, float]], built: list[int]) -> None:
        # each guessed card (with its probability) as its `_card_points` per neighbourhood
        self.points = [(_points_table(version, tuple(guess.items())), p) for guess, p in cards]
        terms = [p * _points_array(table) for table, p in self.points]
        expected = terms[0]
        for term in terms[1:]:
            expected = expected + term
        self.expected: np.ndarray = expected  # the rival's expected objective points per neighbourhood
        # per guessed card, the expected points of the rival's buildings
        self.built_points = [p * sum(table[nb] for nb in built) for table, p in self.points]


class Situation:
    """Everything the agent derives from one `view()`; built once per decision."""

    def __init__(self, v: dict, derived: Derived | None = None, belief_memo: BoundedMemo | None = None) -> None:
        self.v = v
        self.me = v["player"]
        self.n = v["num_players"]
        self.version = v["version"]
        self.cards = v["my_cards"]
        self.derived = Derived(v) if derived is None else derived
        self.districts = self.derived.districts
        self.in_play = self.derived.in_play
        self.owner = self.derived.owner
        self.height = self.derived.height
        self.buildings = self.derived.buildings
        self.bid_at = {nb for _, nb, _ in v["bids"]}
        self.token = v["tokens_on_board"]
        self.supply = v["supply"]
        self.built = v["built"]
        self.counts = v["tokens"]
        self.top = v["bids"][-1] if v["bids"] else None
        self.passed = set(v["passed"])
        self.others = [seat for seat in range(self.n) if seat != self.me]
        self.mine = self.buildings[self.me]
        self.clock = max(self.built) / cp.NUM_BUILDINGS
        self.rival_max = {seat: max(self.supply[seat], default=0) for seat in self.others}
        # answers asked again for every value and spot the agent weighs: computed once per decision
        self._free_neighbours: dict[int, list[int]] = {}
        self._tall: int | None = None
        self._sure_bar: int | None = None
        self._bid_candidates: dict[tuple[int, int], tuple[int | None, int]] = {}
        self._belief_memo = BoundedMemo(1) if belief_memo is None else belief_memo
        # the agent's own answers per spot and value (`_bid_value`), asked again while it compares
        self.bid_values: dict[tuple[int, int], int] = {}

    # ----- the board -----------------------------------------------------------------------------
    def free_neighbours(self, nb: int) -> list[int]:
        if nb not in self._free_neighbours:
            in_play, owner, bid_at = self.in_play, self.owner, self.bid_at  # free: in play, unbuilt, unbid
            self._free_neighbours[nb] = [o for o in cp.ADJ[nb] if in_play[o] and owner[o] < 0 and o not in bid_at]
        return self._free_neighbours[nb]

    def rivals_in_call(self) -> list[int]:
        """Seats that could answer a bid of mine: still in the call (the top bidder included)."""
        return [seat for seat in self.others if seat not in self.passed]

    def my_values(self, above: int) -> list[int]:
        return [value for value in self.supply[self.me] if value > above]

    def bid_candidates(self, floor: int, needed: int) -> tuple[int | None, int]:
        """The smallest of my values above `floor` that beats `needed` (None if none does), and a cheap
        one: the smallest above `floor` (an opening with no sure winner: a middling one if I have it)."""
        key = (floor, needed)
        if key not in self._bid_candidates:
            values = self.my_values(floor)
            sure = [v for v in values if v > needed]
            if floor == 0 and not sure:
                middling = [v for v in values if v in MID_VALUES] or [v for v in values if v > MID_VALUES[-1]]
                cheap = middling[0] if middling else values[0]
            else:
                cheap = values[0]
            self._bid_candidates[key] = (sure[0] if sure else None, cheap)
        return self._bid_candidates[key]

    def sure_above(self, nb: int) -> int:
        """The value a bid on `nb` must exceed to win outright (0: nobody can follow it at all)."""
        return self.sure_bar() if self.free_neighbours(nb) else 0

    def sure_bar(self) -> int:
        """The highest value a seat still in the call holds: a bid above it wins outright."""
        if self._sure_bar is None:
            self._sure_bar = max((self.rival_max[seat] for seat in self.rivals_in_call()), default=0)
        return self._sure_bar

    def weight(self, seat: int) -> float:
        """How much a rival's points count against mine (all of them with two players; the leader most)."""
        if self.n == 2:
            return 1.0
        if not self.derived.weights:
            estimates = self.estimates()
            best = max(estimates[o] for o in self.others)
            self.derived.weights = {o: WEIGHT_LEADER if estimates[o] >= best else WEIGHT_OTHER for o in range(self.n)}
        return self.derived.weights[seat]

    # ----- worth of a spot -----------------------------------------------------------------------
    def token_worth(self, nb: int) -> float:
        return self.kind_worth(self.token.get(nb))

    def kind_worth(self, name: str | None) -> float:
        """What taking a token of this kind is worth (None: no token); the same on every spot."""
        if name not in self.derived.token_worth:
            self.derived.token_worth[name] = self._kind_worth_now(name)
        return self.derived.token_worth[name]

    def token_array(self, spots: np.ndarray) -> np.ndarray:
        """`token_worth` of every spot in `spots`."""
        if self.derived.token_kinds is None:
            kinds = np.zeros(cp.NUM_NBHDS, dtype=np.intp)
            for nb, name in self.token.items():
                kinds[nb] = cp.TOKEN_NAMES.index(name)
            self.derived.token_kinds = kinds
        present = set(self.token.values())
        table = [self.kind_worth(name) if name in present else 0.0 for name in _TOKEN_KINDS]
        return np.array(table)[self.derived.token_kinds[spots]]

    def _kind_worth_now(self, name: str | None) -> float:
        if name is None:
            return 0.0
        worth = TOKEN_WORTH[name]
        if name == "subway":
            worth += self._subway_card_worth()
        elif name == "archaeological" and self.v["arch_card"] != self.me:
            stick = ARCH_STICK_EARLY + (1.0 - ARCH_STICK_EARLY) * self.clock
            holder = self.v["arch_card"]
            relief = self.weight(holder) if holder >= 0 else 0.0
            worth += cp.ARCH_CARD_POINTS * stick * (1.0 + relief)
        return worth

    def _subway_card_worth(self) -> float:
        holder = self.v["subway_card"]
        subway = [counts["subway"] for counts in self.counts]
        mine = subway[self.me] + 1
        if holder == self.me:
            return SUBWAY_GUARD if max(subway[o] for o in self.others) >= mine - 1 else 0.0
        if holder < 0:
            return float(cp.SUBWAY_CARD_POINTS)
        if mine > subway[holder]:
            return cp.SUBWAY_CARD_POINTS * (1.0 + self.weight(holder))
        # a rival one token short of taking the card from its holder
        chasing = [o for o in self.others if o != holder and subway[o] + 1 > subway[holder]]
        return SUBWAY_BLOCK * max((self.weight(o) for o in chasing), default=0.0)

    def objective_worth(self, nb: int, value: int) -> float:
        if self.version == r.FAMILY:
            return self.objective_base(nb)
        return self.objective_base(nb) + self._height_gain(cp.DISTRICT[nb], cp.HEIGHT_CLASS[value])

    def objective_base(self, nb: int) -> float:
        """The part of `objective_worth` that the value bid does not change (all of it in the family game)."""
        bases = self.derived.objective_base
        if nb not in bases:
            bases[nb] = self._objective_base_now(nb)
        return bases[nb]

    def objective_array(self, spots: np.ndarray, value: int) -> np.ndarray:
        """`objective_worth` of `value` on every spot in `spots`."""
        if self.version == r.FAMILY:
            return _family_worth_array(self.cards["area"])[spots]
        bases = np.array([self.objective_base(nb) for nb in spots.tolist()])
        height = cp.HEIGHT_CLASS[value]
        gains = np.array([self._height_gain(district, height) for district in range(len(cp.DISTRICT_NAMES))])
        return bases + gains[_DISTRICTS[spots]]

    def _objective_base_now(self, nb: int) -> float:
        if self.version == r.FAMILY:
            return _family_worths(self.cards["area"])[nb]
        colour = cp.COLOUR_NAMES.index(self.cards["neighbourhood"])
        area = cp.EXPERT_AREA_NAMES.index(self.cards["area"])
        worth = float(cp.NEIGHBOURHOOD_POINTS_PER_BUILDING) if cp.COLOUR[nb] == colour else 0.0
        if self.derived.area_now is None:
            self.derived.area_now = r.area_points(area, self.mine)
        worth += r.area_points(area, [*self.mine, nb]) - self.derived.area_now
        worth += PROGRESS_BONUS * self._progress(area, nb)
        return worth

    def _progress(self, area: int, nb: int) -> float:
        """Own buildings this spot would group with, for an expert Area card (capped)."""
        mine = set(self.mine)
        if area == cp.EXPERT_BRIDGES:
            return float(any(other in mine and cp.DISTRICT[other] != cp.DISTRICT[nb] for other in cp.ADJ[nb]))
        if area == cp.EXPERT_CHAINS:
            return min(2.0, float(sum(other in mine for other in cp.ADJ[nb])))
        groups = cp.LAKES if area == cp.EXPERT_LAKES else cp.STATUES if area == cp.EXPERT_STATUES else None
        if groups is not None:
            return min(2.0, float(max((sum(o in mine for o in g) for g in groups if nb in g), default=0)))
        district = cp.DISTRICT[nb]
        return float(0 < sum(cp.DISTRICT[o] == district for o in mine) < cp.DISTRICT_SET_SIZE)

    def _height_lists(self, district: int) -> dict[int, list[int]]:
        """Per seat, its building heights in `district`, tallest first (a fresh dict; the lists are shared)."""
        if district not in self.derived.height_lists:
            lists: dict[int, list[int]] = {}
            for nb in range(cp.NUM_NBHDS):
                if self.owner[nb] >= 0 and cp.DISTRICT[nb] == district:
                    lists.setdefault(self.owner[nb], []).append(self.height[nb])
            self.derived.height_lists[district] = {seat: sorted(h, reverse=True) for seat, h in lists.items()}
        return dict(self.derived.height_lists[district])

    def _height_gain(self, district: int, height: int) -> float:
        """5 if building this height class in `district` makes me (co-)best in its comparison."""
        lists = self._height_lists(district)
        before = self.me in lists and lists[self.me] == max(lists.values())
        lists[self.me] = sorted([*lists.get(self.me, []), height], reverse=True)
        return cp.HIGHEST_BUILDING_POINTS * ((lists[self.me] == max(lists.values())) - before)

    def denial_worth(self, nb: int) -> float:
        """Expected objective points the rivals would get on `nb`, weighted by how much they matter."""
        if self.derived.denial_worth is None:
            self.derived.denial_worth = self.denial_array().tolist()
        return self.derived.denial_worth[nb]

    def denial_array(self) -> np.ndarray:
        """`denial_worth` of every neighbourhood at once (each sum in the same order)."""
        if self.derived.denial_array is None:
            weighted = [self.weight(seat) * self.beliefs()[seat].expected for seat in self.others]
            total = weighted[0]
            for term in weighted[1:]:
                total = total + term
            self.derived.denial_array = DENIAL * total
        return self.derived.denial_array

    def rival_worth(self, seat: int, nb: int) -> float:
        """What building on `nb` is worth to a rival: the token's face value and its expected objective."""
        gain = TOKEN_WORTH.get(self.token.get(nb), 0.0)
        return gain + sum(p * points[nb] for points, p in self.belief_points(seat))

    # ----- prices --------------------------------------------------------------------------------
    def price(self, value: int) -> float:
        price = value / cp.NUM_BUILDINGS * BUILDING_PRICE[self.version] * (1.0 - LATE_DISCOUNT * self.clock)
        if value >= TALL and self.clock < LAST_THIRD and self.tall() <= KEEP_TALL:
            price += TALL_RESERVE
        return price

    def tall(self) -> int:
        """How many tall values I have left."""
        if self._tall is None:
            self._tall = sum(v >= TALL for v in self.supply[self.me])
        return self._tall

    # ----- what the rivals hold ------------------------------------------------------------------
    def beliefs(self) -> dict[int, Belief]:
        """Per rival: its possible secret cards with their probabilities, from where it built."""
        if self.derived.beliefs is None:
            self.derived.beliefs = {}
            for seat in self.others:
                # a rival's belief changes only when it builds: remembered across boards, by its buildings
                key = (self.version, self.n, tuple(sorted(self.cards.items())), tuple(self.buildings[seat]))
                belief = self._belief_memo.get(key)
                if belief is None:
                    belief = Belief(self.version, self._belief(seat), self.buildings[seat])
                    self._belief_memo.put(key, belief)
                self.derived.beliefs[seat] = belief
        return self.derived.beliefs

    def belief_points(self, seat: int) -> list[tuple[tuple[float, ...], float]]:
        """`beliefs()[seat]`: each guessed card as its `_card_points` per neighbourhood, and its probability."""
        return self.beliefs()[seat].points

    def _belief(self, seat: int) -> list[tuple[dict, float]]:
        built = self.buildings[seat]
        if self.version == r.FAMILY:
            deck = [c for c in range(4) if not (self.n == 2 and c == cp.FAMILY_BORDERS)]
            mine = cp.FAMILY_CARD_NAMES.index(self.cards["area"])
            options = [{"area": c} for c in deck if c != mine]
            hits = [sum(nb in cp.FAMILY_QUALIFYING[o["area"]] for nb in built) for o in options]
        else:
            mine = cp.COLOUR_NAMES.index(self.cards["neighbourhood"])
            options = [{"colour": c} for c in range(5) if c != mine]
            hits = [sum(cp.COLOUR[nb] == o["colour"] for nb in built) for o in options]
        weights = [math.exp(BELIEF_SHARPNESS * (h - max(hits))) for h in hits]
        total = sum(weights)
        return [(o, w / total) for o, w in zip(options, weights, strict=True)]

    def estimates(self) -> list[float]:
        """Final scores if the game ended now: mine exact, the rivals' objective in expectation."""
        if self.derived.estimates is None:
            estimates = [float(x) for x in self.v["public_scores"]]
            for seat in range(self.n):
                estimates[seat] += self._objective_now(seat)
            self.derived.estimates = estimates
        return self.derived.estimates

    def _objective_now(self, seat: int) -> float:
        built = self.buildings[seat]
        points = 0.0
        if self.version == r.EXPERT:
            for district in self.districts:
                lists = self._height_lists(district)
                if seat in lists and lists[seat] == max(lists.values()):
                    points += cp.HIGHEST_BUILDING_POINTS
        if seat == self.me:
            if self.version == r.FAMILY:
                card = self.cards["area"]
                return points + r.family_points(cp.FAMILY_CARD_NAMES.index(card), built)
            colour = cp.COLOUR_NAMES.index(self.cards["neighbourhood"])
            area = cp.EXPERT_AREA_NAMES.index(self.cards["area"])
            return points + r.colour_points(colour, built) + r.area_points(area, built)
        for term in self.beliefs()[seat].built_points:
            points += term
        if self.version == r.EXPERT:
            points += 2.0 * len(built) / 3  # a rough share of an unknown expert Area card
        return points


_TOKEN_KINDS = (None, *cp.TOKEN_NAMES[1:])  # cp.TOKEN_NAMES, "none" as the missing token of `Situation.token`
_DISTRICTS = np.array(cp.DISTRICT)
_ADJACENCY = np.zeros((cp.NUM_NBHDS, cp.NUM_NBHDS), dtype=np.intp)  # cp.ADJ as a 0/1 matrix
for _nb, _around in enumerate(cp.ADJ):
    _ADJACENCY[_nb, list(_around)] = 1


@lru_cache(maxsize=8)
def _family_worths(card: str | None) -> tuple[float, ...]:
    """My objective's worth per spot under a family Area card (None: no card)."""
    if card is None:
        return (0.0,) * cp.NUM_NBHDS
    qualifying = cp.FAMILY_QUALIFYING[cp.FAMILY_CARD_NAMES.index(card)]
    return tuple(float(cp.FAMILY_POINTS_PER_BUILDING) if nb in qualifying else 0.0 for nb in range(cp.NUM_NBHDS))


@lru_cache(maxsize=8)
def _family_worth_array(card: str | None) -> np.ndarray:
    """`_family_worths` as an array (read-only: it is shared)."""
    array = np.array(_family_worths(card))
    array.flags.writeable = False
    return array


@lru_cache(maxsize=64)
def _points_table(version: str, cards: tuple[tuple[str, int], ...]) -> tuple[float, ...]:
    """`_card_points` of a guessed secret card for every neighbourhood."""
    return tuple(_card_points(version, dict(cards), nb) for nb in range(cp.NUM_NBHDS))


@lru_cache(maxsize=64)
def _points_array(points: tuple[float, ...]) -> np.ndarray:
    """A `_points_table` as an array (read-only: it is shared), for the denial sums."""
    array = np.asarray(points)
    array.flags.writeable = False
    return array


def _card_points(version: str, cards: dict, nb: int) -> float:
    """Points a building on `nb` earns under a guessed secret card (family Area, expert colour)."""
    if version == r.FAMILY:
        return float(cp.FAMILY_POINTS_PER_BUILDING) if nb in cp.FAMILY_QUALIFYING[cards["area"]] else 0.0
    return float(cp.NEIGHBOURHOOD_POINTS_PER_BUILDING) if cp.COLOUR[nb] == cards["colour"] else 0.0


class MetropolysHeuristicAgent(HeuristicAgent):
    """The strategy of §11 (its docs page's Heuristic agent); `act` always returns a legal id."""

    def __init__(self, seed: int | np.random.Generator | None = None, native: bool = True) -> None:
        super().__init__(seed, native)
        # Derived answers per `derived_key`: a seat bids and passes several times on one board. The
        # keys hold the seat's own cards, so this memo is the agent's alone (never shared between agents).
        self._derived = BoundedMemo(DERIVED_MEMO_SIZE)
        self._beliefs = BoundedMemo(DERIVED_MEMO_SIZE)  # `Situation.beliefs` per rival's buildings

    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        v = info_set.view()
        key = derived_key(v)
        derived = self._derived.get(key)
        if derived is None:
            derived = Derived(v)
            self._derived.put(key, derived)
        sit = Situation(v, derived, self._beliefs)
        if sit.v["decision"] == "VALUE":
            value = self._bid_value(sit, sit.v["chosen"], sit.top[2] if sit.top else 0)
            return r.VALUE_ACTION + value - 1
        spots = [a for a in legal if a < r.VALUE_ACTION]
        if sit.top is None:  # the opening bid of a call (the one time PASS is not legal)
            return self._open(sit, spots)
        return self._outbid(sit, spots, sit.top)

    def _gain(self, sit: Situation, nb: int, value: int) -> float:
        """Worth minus price of building `value` on `nb`, with the endgame."""
        key = (nb, value, sit.tall())
        gains = sit.derived.gains
        if key not in gains:
            gains[key] = self._gain_now(sit, nb, value)
        return gains[key]

    def _gain_now(self, sit: Situation, nb: int, value: int) -> float:
        # the spot's worth (token, my objective, denial) minus the price of the value
        gain = sit.token_worth(nb) + sit.objective_worth(nb, value) + sit.denial_worth(nb) - sit.price(value)
        if sit.built[sit.me] == cp.NUM_BUILDINGS - 1:  # this win ends the game
            mine = sit.estimates()[sit.me] + sit.token_worth(nb) + sit.objective_worth(nb, value)
            gain += WIN if mine > max(sit.estimates()[o] for o in sit.others) else -WIN
        return gain

    def _gains(self, sit: Situation, spots: np.ndarray, value: int) -> np.ndarray:
        """`_gain` of `value` on every spot in `spots` at once: the same sums in the same order."""
        token, objective = sit.token_array(spots), sit.objective_array(spots, value)
        gain = token + objective + sit.denial_array()[spots] - sit.price(value)
        if sit.built[sit.me] == cp.NUM_BUILDINGS - 1:  # this win ends the game
            estimates = sit.estimates()
            mine = estimates[sit.me] + token + objective
            gain += np.where(mine > max(estimates[o] for o in sit.others), WIN, -WIN)
        return gain

    def _bid_value(self, sit: Situation, nb: int, floor: int) -> int:
        """The value to bid on `nb` above `floor`: a sure winner if worth it, else a cheap or middling one."""
        key = (nb, floor)
        if key not in sit.bid_values:
            sit.bid_values[key] = self._bid_value_now(sit, nb, floor)
        return sit.bid_values[key]

    def _bid_value_now(self, sit: Situation, nb: int, floor: int) -> int:
        sure, cheap = sit.bid_candidates(floor, sit.sure_above(nb))
        if sure is None:
            return cheap
        if sure == cheap or self._gain(sit, nb, sure) >= HOLD_CHANCE * self._gain(sit, nb, cheap):
            return sure
        return cheap

    def _open(self, sit: Situation, spots: list[int]) -> int:
        """Every free spot scored at once (a new board each time: nothing to remember): the value
        `_bid_value` would bid there, its `_gain`, less the risk if a rival can still follow it."""
        at = np.array(spots)
        free = np.zeros(cp.NUM_NBHDS, dtype=np.intp)
        free[at] = 1  # before the opening bid every free spot is a legal one
        neighbours = _ADJACENCY[at] @ free
        scores = np.empty(len(spots))
        for followed in (neighbours == 0, neighbours > 0):  # spots no rival can follow, then the others
            if not followed.any():
                continue
            group = at[followed]
            needed = sit.sure_bar() if neighbours[followed][0] else 0  # `sure_above` of the group's spots
            sure, cheap = sit.bid_candidates(0, needed)
            value = np.full(len(group), cheap if sure is None else sure)
            gain = self._gains(sit, group, int(value[0]))
            if sure is not None and sure != cheap:
                cheap_gain = self._gains(sit, group, cheap)
                keep = gain >= HOLD_CHANCE * cheap_gain
                value = np.where(keep, sure, cheap)
                gain = np.where(keep, gain, cheap_gain)
            risky = value <= needed
            gain[risky] -= RISK_PER_FREE_NEIGHBOUR * neighbours[followed][risky]
            scores[followed] = gain
        return spots[self._best_index(scores)]

    def _outbid(self, sit: Situation, spots: list[int], top: tuple[int, int, int]) -> int:
        floor = top[2]
        stake = self._pass_cost(sit, top)

        def gain(nb: int) -> float:
            return self._gain(sit, nb, self._bid_value(sit, nb, floor))

        best = self._best(spots, gain)
        return best if gain(best) + stake > 0 else r.PASS

    def _pass_cost(self, sit: Situation, top: tuple[int, int, int]) -> float:
        """What passing gives away: with one rival left, its top bid builds (a finishing leader: the game)."""
        seat, nb, value = top
        if len(sit.rivals_in_call()) > 1:
            return 0.0
        if sit.built[seat] == cp.NUM_BUILDINGS - 1:
            theirs = sit.estimates()[seat] + sit.rival_worth(seat, nb)
            rest = [sit.estimates()[o] for o in range(sit.n) if o != seat]
            return WIN if theirs >= max(rest) else 0.0
        return DENIAL * sit.weight(seat) * sit.rival_worth(seat, nb)
