"""A rule-based Citadels player (the strategy notes in docs/games/citadels.md).

It reads only its seat's information set: `view()` and the legal action ids. Every decision is a
score over the legal options; the agent's generator is used only to break exact ties, so a seeded
agent is deterministic.

Outline of the strategy:

- Selection: each offered character gets a value for this seat (income it would collect, gold it
  could steal, builds the Architect allows, the Warlord's and Bishop's endgame roles, ...). In the
  2-player draft the face-down discard removes what the opponent values most.
- Turn: character ability first (Assassin/Thief targets come from an estimate of who holds which
  character, inferred from the sets this seat was offered), then gold or cards, then builds (most
  valuable affordable district, missing types and scoring uniques preferred), income collected
  before building only when it pays for a better build, the Warlord's destruction with spare gold,
  Smithy and Laboratory when the hand calls for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from city_envs.agents.base import HeuristicAgent
from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.core.infoset import InfoSet

# Extra build value of a unique district's effect, on top of its points.
EFFECT_BONUS = {
    cp.LIBRARY: 2.0,
    cp.LABORATORY: 1.5,
    cp.SMITHY: 1.0,
    cp.OBSERVATORY: 1.0,
    cp.SCHOOL_OF_MAGIC: 1.5,
    cp.KEEP: 1.0,
    cp.GREAT_WALL: 0.5,
    cp.IMPERIAL_TREASURY: 1.0,
    cp.MAP_ROOM: 1.0,
    cp.HAUNTED_QUARTER: 1.0,
}
MISSING_TYPE_BONUS = 2.0  # building toward the five-type bonus
# Base selection values of the characters whose worth is not income or builds; the 2-player
# and full-table figures differ, chosen by seat-rotated self-play comparisons of variants.
ASSASSIN_VALUE = 2.5
ASSASSIN_VALUE_TWO_PLAYERS = 6.0
THIEF_VALUE = 2.5
THIEF_VALUE_TWO_PLAYERS = 0.5
BISHOP_VALUE = 1.5  # safe from the Warlord, and rarely the Assassin's or Thief's target
BISHOP_VALUE_TWO_PLAYERS = 0.5
SOON = 4  # "affordable within about two turns": cost <= gold + SOON
EPS = 1e-9


@dataclass
class Seat:
    """Public facts about one seat, from the view."""

    index: int
    gold: int
    hand_size: int
    city: list[int]
    score: float
    complete: bool
    types: tuple[int, ...] = (0,) * cp.NUM_TYPES

    @property
    def size(self) -> int:
        return len(self.city)


@lru_cache(maxsize=1024)
def _type_counts(city: tuple[int, ...]) -> tuple[int, ...]:
    """Districts per type in a city (public, so one memo serves every seat: cities recur between decisions)."""
    counts = [0] * cp.NUM_TYPES
    for kind in city:
        counts[cp.TYPE_LIST[kind]] += 1
    return tuple(counts)


def _income(city: list[int], types: tuple[int, ...], rank: int) -> int:
    if rank not in cp.INCOME_TYPE:
        return 0
    return int(types[cp.INCOME_TYPE[rank]]) + (cp.SCHOOL_OF_MAGIC in city)


class Situation:
    """Everything the agent derives from one `view()`; built once per decision."""

    def __init__(self, v: dict) -> None:
        self.v = v
        self.me = v["player"]
        self.n = v["num_players"]
        self.C = v["completion_size"]
        self.seats = [
            Seat(
                i,
                s["gold"],
                s["hand_size"],
                list(s["city"]),
                float(v["scores"][i]),
                s["complete"],
                _type_counts(tuple(s["city"])),
            )
            for i, s in enumerate(v["seats"])
        ]
        self.my = self.seats[self.me]
        self.hand: list[int] = v["hand"]
        self.held = [k for k, count in enumerate(self.hand) if count]  # distinct kinds in hand
        self.city = set(self.my.city)
        self.gold = self.my.gold
        self.others = [s for s in self.seats if s.index != self.me]
        self.game_ending = bool(v["game_ending"])
        self.my_chars = list(v["my_characters"])
        self.face_up = set(v["face_up_discards"])
        self.crown = v["crown"]
        self.turn = v["turn"]
        self.rank = v["called_rank"] if v["turn_player"] == self.me else 0
        self._holders: dict[int, dict[int, float]] | None = None

    # ----- hand ---------------------------------------------------------------------------------
    def buildable(self) -> list[int]:
        """Distinct hand kinds not yet in the city."""
        return [k for k in self.held if k not in self.city]

    def junk(self) -> list[int]:
        """Hand cards worth throwing away: duplicates of the city, spare copies, unaffordable ones."""
        out = []
        for k in self.held:
            spare = self.hand[k] > 1 or cp.COST_LIST[k] > self.gold + 2 * SOON
            if k in self.city or spare:
                out.append(k)
        return out

    def missing_types(self) -> set[int]:
        return {t for t in range(cp.NUM_TYPES) if self.my.types[t] == 0}

    def build_value(self, kind: int) -> float:
        value = float(cp.POINTS[kind]) + EFFECT_BONUS.get(kind, 0.0)
        missing = self.missing_types()
        t = cp.TYPE_LIST[kind]
        # The five-type bonus is realistic only if the remaining slots can cover the missing types.
        if t in missing and len(missing) <= max(self.C - self.my.size, 0):
            value += MISSING_TYPE_BONUS
        return value

    def card_value(self, kind: int, gold: int) -> float:
        """How much a drawn card is worth keeping (§11: new, missing type, affordable soon)."""
        if kind in self.city:
            return -10.0 + cp.COST_LIST[kind] * 0.01
        value = self.build_value(kind)
        if self.hand[kind] > 0:
            value -= 6.0
        cost = cp.COST_LIST[kind]
        if cost <= gold + SOON:
            value += 6.0
        else:
            value -= 1.5 * (cost - gold - SOON)
        return value

    def greedy_builds(self, gold: int, limit: int, kinds: list[int] | None = None) -> list[int]:
        """Kinds built cheapest first with `gold`, at most `limit` of them."""
        chosen: list[int] = []
        for k in sorted(kinds if kinds is not None else self.buildable(), key=lambda k: cp.COST_LIST[k]):
            if len(chosen) >= limit or cp.COST_LIST[k] > gold:
                break
            chosen.append(k)
            gold -= cp.COST_LIST[k]
        return chosen

    def income_now(self) -> int:
        return _income(self.my.city, self.my.types, self.rank)

    # ----- the opponents ------------------------------------------------------------------------
    def leader(self) -> Seat:
        return max(self.others, key=lambda s: (s.score + 0.3 * s.gold, s.size))

    def threat(self, seat: Seat) -> float:
        """How much hurting this seat helps me (everyone equally in 2 players; the leader most)."""
        if self.n == 2:
            return 1.0
        best = max(s.score for s in self.others)
        weight = 1.0 + (0.6 if seat.score >= best else 0.0)
        if seat.size >= self.C - 1:
            weight += 1.0
        return weight

    def near_completion(self, seat: Seat) -> bool:
        return not seat.complete and seat.size >= self.C - 1

    # ----- who holds which character ------------------------------------------------------------
    def holders(self) -> dict[int, dict[int, float]]:
        """rank -> {other seat: probability it holds that rank this round}."""
        if self._holders is None:
            self._holders = _holder_probabilities(self.v)
        return self._holders

    def p_held(self, rank: int, seat: int) -> float:
        return self.holders()[rank].get(seat, 0.0)


def _crown_at_selection(v: dict) -> int:
    """The seat that picked first this round (the crown may have moved since the King's reveal)."""
    offered = v["offered"]
    if v["called_rank"] == 0 or not offered:
        return v["crown"]
    n = v["num_players"]
    size = len(offered[0])
    pos = (cp.NUM_CHARACTERS - 1 - len(v["face_up_discards"])) - size
    if n == 7 and size == 2 and v["known_facedown"]:
        pos = 6  # the 7th picker also got the face-down card and saw the other one go down
    return (v["player"] - pos) % n


def _holder_probabilities(v: dict) -> dict[int, dict[int, float]]:
    """Spread each character over the seats that could have taken it, segment by segment.

    Between two of my picks the other seats took exactly the ranks that left the pile; a rank is
    given to each picker of that segment in proportion to its picks. After my last pick the pile
    left is spread over the later pickers. Reveals, calls and face-up cards then fix what they fix.
    """
    n, me = v["num_players"], v["player"]
    probs: dict[int, dict[int, float]] = {rank: {} for rank in cp.RANKS}
    steps = r.selection_steps(n, _crown_at_selection(v))
    mine = set(v["my_characters"])
    known_down = set(v["known_facedown"])
    pile = set(cp.RANKS) - set(v["face_up_discards"])
    my_picks = [i for i, (seat, d) in enumerate(steps) if seat == me and d == r.Decision.SELECT_CHARACTER]
    start = 0
    for j, offered in enumerate(v["offered"]):
        if j >= len(my_picks):
            break
        offered = set(offered)
        stop = my_picks[j]
        pickers = [seat for seat, d in steps[start:stop] if seat != me and d == r.Decision.SELECT_CHARACTER]
        removed = pile - offered
        for rank in removed:
            for seat in pickers:
                probs[rank][seat] = probs[rank].get(seat, 0.0) + 1.0 / len(removed)
        pile = offered - mine - known_down
        start = stop + 1
    pickers = [seat for seat, d in steps[start:] if seat != me and d == r.Decision.SELECT_CHARACTER]
    rest = pile - mine - known_down
    for rank in rest:
        for seat in pickers:
            probs[rank][seat] = probs[rank].get(seat, 0.0) + 1.0 / len(rest)
    called, killed = v["called_rank"], v["killed_rank"]
    for rank in cp.RANKS:
        if rank in mine or rank in known_down or rank in v["face_up_discards"]:
            probs[rank] = {}
        elif rank in v["revealed"]:
            seat = v["revealed"][rank]
            probs[rank] = {seat: 1.0} if seat != me else {}
        elif rank < called and rank != killed:
            probs[rank] = {}  # called, nobody answered
        else:
            total = sum(probs[rank].values())
            if total > 1.0:
                probs[rank] = {s: p / total for s, p in probs[rank].items()}
    return probs


class CitadelsHeuristicAgent(HeuristicAgent):
    """The strategy of §11 (its docs page's Heuristic agent); `act` always returns a legal id."""

    # ----- entry point --------------------------------------------------------------------------
    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        v = info_set.view()
        sit = Situation(v)
        allowed = set(legal)
        decision = v["decision"]
        if decision == "SELECT_CHARACTER":
            action = self._select(sit, allowed)
        elif decision == "SELECT_DISCARD":
            action = self._discard_character(sit, allowed)
        elif decision == "KEEP_DRAWN":
            action = self._keep_drawn(sit, allowed)
        elif decision == "MAGICIAN_DISCARD":
            action = self._magician_discard(sit, allowed)
        elif decision == "GRAVEYARD":
            action = self._graveyard(sit, allowed)
        else:
            action = self._main(sit, allowed)
        if action not in allowed:  # defensive: never hand back an illegal id
            action = self._fallback(allowed)
        return int(action)

    def _fallback(self, allowed: set[int]) -> int:
        for preferred in (r.END_TURN, r.GATHER_GOLD, r.MAGICIAN_DONE, r.GRAVEYARD_DECLINE):
            if preferred in allowed:
                return preferred
        return self._best(sorted(allowed), lambda a: 0.0)

    # ----- selection ----------------------------------------------------------------------------
    def _select(self, sit: Situation, allowed: set[int]) -> int:
        return self._best(sorted(allowed), lambda a: character_value(sit, a - r.PICK_CHARACTER + 1, sit.my))

    def _discard_character(self, sit: Situation, allowed: set[int]) -> int:
        """2 players: put face down what the opponent wants most, keeping what I may still get."""
        (opponent,) = sit.others
        return self._best(
            sorted(allowed),
            lambda a: (
                character_value(sit, a - r.DISCARD_CHARACTER + 1, opponent)
                - 0.3 * character_value(sit, a - r.DISCARD_CHARACTER + 1, sit.my)
            ),
        )

    # ----- the turn -----------------------------------------------------------------------------
    def _main(self, sit: Situation, allowed: set[int]) -> int:
        turn = sit.turn
        rank = sit.rank
        if rank == cp.ASSASSIN and any(r.ASSASSINATE + t - 1 in allowed for t in cp.RANKS):
            return self._assassinate(sit, allowed)
        if rank == cp.THIEF and any(r.ROB + t - 1 in allowed for t in cp.RANKS):
            return self._rob(sit, allowed)
        if rank == cp.MAGICIAN and not turn["ability_used"]:
            action = self._magician(sit, allowed)
            if action is not None:
                return action
        lab = self._laboratory(sit, allowed)
        if lab is not None:
            return lab
        if not turn["gathered"]:
            return self._gather(sit, allowed)
        income_open = r.COLLECT_INCOME in allowed
        builds = [a - r.BUILD for a in allowed if r.BUILD <= a < r.BUILD + cp.NUM_KINDS]
        if turn["builds_left"] > 0:
            best_now = max(builds, key=sit.build_value, default=None)
            if income_open:
                income = sit.income_now()
                richer = [k for k in sit.buildable() if cp.COST_LIST[k] <= sit.gold + income]
                best_later = max(richer, key=sit.build_value, default=None)
                if best_later is not None and (
                    best_now is None or sit.build_value(best_later) > sit.build_value(best_now) + EPS
                ):
                    return r.COLLECT_INCOME
            if best_now is not None:
                return r.BUILD + self._best(builds, sit.build_value)
            if r.USE_SMITHY in allowed and sit.gold >= cp.SMITHY_PRICE + 2:
                return r.USE_SMITHY
        if income_open:
            return r.COLLECT_INCOME
        destroy = self._destroy(sit, allowed)
        if destroy is not None:
            return destroy
        if r.USE_SMITHY in allowed and len(sit.buildable()) <= 1 and sit.gold >= cp.SMITHY_PRICE + 2:
            return r.USE_SMITHY
        return r.END_TURN if r.END_TURN in allowed else self._fallback(allowed)

    def _gather(self, sit: Situation, allowed: set[int]) -> int:
        if r.GATHER_CARDS not in allowed:
            return r.GATHER_GOLD
        buildable = sit.buildable()
        if not buildable:
            return r.GATHER_CARDS
        gold = sit.gold + sit.income_now() * (not sit.turn["income_done"])
        if min(cp.COST_LIST[k] for k in buildable) > gold + SOON:
            return r.GATHER_CARDS  # nothing buildable within about two turns
        if sit.game_ending:
            # Last round: only this turn's builds count.
            with_gold = sit.greedy_builds(gold + cp.GATHER_GOLD_AMOUNT, sit.turn["builds_left"])
            return r.GATHER_GOLD if with_gold else r.GATHER_CARDS
        # Rich in gold but short of cards: the builds I can already pay for leave nothing behind.
        now = sit.greedy_builds(gold, sit.turn["builds_left"])
        if now and len(now) == len(buildable):
            return r.GATHER_CARDS
        return r.GATHER_GOLD

    def _keep_drawn(self, sit: Situation, allowed: set[int]) -> int:
        if sit.game_ending:
            # Last round: a card I can build right now, the most valuable one.
            return self._best(
                sorted(allowed),
                lambda a: (
                    sit.card_value(a - r.KEEP_DRAWN, sit.gold)
                    + (20.0 if cp.COST_LIST[a - r.KEEP_DRAWN] <= sit.gold else 0.0)
                ),
            )
        return self._best(sorted(allowed), lambda a: sit.card_value(a - r.KEEP_DRAWN, sit.gold))

    def _assassinate(self, sit: Situation, allowed: set[int]) -> int:
        options = [a for a in allowed if r.ASSASSINATE <= a < r.ASSASSINATE + cp.NUM_CHARACTERS]
        return self._best(sorted(options), lambda a: kill_value(sit, a - r.ASSASSINATE + 1))

    def _rob(self, sit: Situation, allowed: set[int]) -> int:
        options = [a for a in allowed if r.ROB <= a < r.ROB + cp.NUM_CHARACTERS]
        return self._best(sorted(options), lambda a: rob_value(sit, a - r.ROB + 1))

    def _magician(self, sit: Situation, allowed: set[int]) -> int | None:
        """Swap with the largest hand when mine is poor; else redraw junk; else keep the ability."""
        useful = [k for k in sit.buildable() if cp.COST_LIST[k] <= sit.gold + SOON + 2]
        my_hand = sum(sit.hand)
        swaps = [a for a in allowed if r.MAGICIAN_SWAP <= a < r.MAGICIAN_MARK]
        if swaps and (my_hand <= 1 or len(useful) <= 1):

            def gain(a: int) -> float:
                seat = sit.seats[(sit.me + a - r.MAGICIAN_SWAP + 1) % sit.n]
                return seat.hand_size + 0.01 * sit.threat(seat)

            best = self._best(sorted(swaps), gain)
            target = sit.seats[(sit.me + best - r.MAGICIAN_SWAP + 1) % sit.n]
            if target.hand_size >= max(3, my_hand + 2):
                return best
        junk = sit.junk()
        if junk:
            return r.MAGICIAN_MARK + self._best(sorted(junk), lambda k: -sit.card_value(k, sit.gold))
        return None

    def _magician_discard(self, sit: Situation, allowed: set[int]) -> int:
        junk = [k for k in sit.junk() if r.MAGICIAN_MARK + k in allowed]
        if junk:
            return r.MAGICIAN_MARK + self._best(sorted(junk), lambda k: -sit.card_value(k, sit.gold))
        return r.MAGICIAN_DONE

    def _laboratory(self, sit: Situation, allowed: set[int]) -> int | None:
        options = [a - r.LAB_DISCARD for a in allowed if r.LAB_DISCARD <= a < r.LAB_DISCARD + cp.NUM_KINDS]
        if not options:
            return None
        junk = [k for k in sit.junk() if k in options]
        if not junk and sum(sit.hand) >= 4:
            junk = options  # a big hand: the weakest card is worth more as gold
        if not junk:
            return None
        return r.LAB_DISCARD + self._best(sorted(junk), lambda k: -sit.card_value(k, sit.gold))

    def _graveyard(self, sit: Situation, allowed: set[int]) -> int:
        kind = sit.v["graveyard_card"]
        if kind >= 0 and kind not in sit.city and cp.COST_LIST[kind] >= 2 and r.GRAVEYARD_RECOVER in allowed:
            return r.GRAVEYARD_RECOVER
        return r.GRAVEYARD_DECLINE

    def _destroy(self, sit: Situation, allowed: set[int]) -> int | None:
        """The leader's district that hurts most for the gold; never my own city."""
        last_round = sit.game_ending and cp.IMPERIAL_TREASURY not in sit.city
        if last_round:
            spare = sit.gold
        else:
            costs = [cp.COST_LIST[k] for k in sit.buildable()]
            reserve = max(0, min(costs) - cp.GATHER_GOLD_AMOUNT) if costs else 0
            spare = sit.gold - reserve
        gold_worth = 0.0 if last_round else 1.0
        best_action, best_value = None, 0.0
        for a in sorted(allowed):
            if not r.DESTROY <= a < r.BUILD:
                continue
            offset, kind = divmod(a - r.DESTROY, cp.NUM_KINDS)
            if offset == 0:
                continue
            seat = sit.seats[(sit.me + offset) % sit.n]
            price = (
                cp.COST_LIST[kind]
                - 1
                + (cp.GREAT_WALL_SURCHARGE if kind != cp.GREAT_WALL and cp.GREAT_WALL in seat.city else 0)
            )
            if price > spare:
                continue
            loss = float(cp.POINTS[kind])
            if seat.types[cp.TYPE_LIST[kind]] == 1 and all(seat.types):
                loss += cp.FIVE_TYPES_BONUS
            if sit.near_completion(seat):
                loss += 4.0
            value = loss * sit.threat(seat) * (1.0 if sit.n == 2 else 0.6) - price * gold_worth
            if value > best_value + EPS:
                best_action, best_value = a, value
        return best_action


# ===== values shared by selection and the abilities =============================================
class Holding(NamedTuple):
    """A seat that would hold a character this round, as `character_value` weighs it."""

    sit: Situation
    seat: Seat
    others: list[Seat]
    costs: list[int]  # the costs of its hand: mine exact, a rival's as ordinary cards
    mine: bool


def character_value(sit: Situation, rank: int, seat: Seat) -> float:
    """What holding `rank` this round is worth to `seat` (my own exact hand, others' estimates)."""
    mine = seat.index == sit.me
    others = [s for s in sit.seats if s.index != seat.index]
    if mine:
        costs = sorted(cp.COST_LIST[k] for k in sit.buildable())
    else:  # unknown hand: assume it holds ordinary cards
        costs = [3] * seat.hand_size
    holding = Holding(sit, seat, others, costs, mine)
    value = 0.0
    if rank in cp.INCOME_TYPE:
        value += _income(seat.city, seat.types, rank)
    ability = ABILITY_VALUE.get(rank)
    if ability is not None:
        value = ability(holding, value)
    return _endgame_value(holding, rank, value)


# Each adds what the character's ability is worth to `value` (in this order: the sums stay bit-identical).
def _assassin_value(h: Holding, value: float) -> float:
    # With two players the Assassin usually finds one of the opponent's two characters (the
    # draft shows most of them) and nobody can kill mine: worth far more than at a full table.
    return value + (ASSASSIN_VALUE_TWO_PLAYERS if h.sit.n == 2 else ASSASSIN_VALUE)


def _thief_value(h: Holding, value: float) -> float:
    base = THIEF_VALUE_TWO_PLAYERS if h.sit.n == 2 else THIEF_VALUE
    return value + (base + 0.4 * max(s.gold for s in h.others))


def _magician_value(h: Holding, value: float) -> float:
    useful = [c for c in h.costs if c <= h.seat.gold + SOON]
    most = max(s.hand_size for s in h.others)
    if len(useful) <= 1 and most >= 3:
        return value + 0.6 * (most - len(h.costs))
    if h.mine:
        return value + 0.3 * len(h.sit.junk())
    return value


def _king_value(h: Holding, value: float) -> float:
    return value + (1.0 + (1.0 if h.sit.crown != h.seat.index else 0.3))


def _bishop_value(h: Holding, value: float) -> float:
    value += BISHOP_VALUE_TWO_PLAYERS if h.sit.n == 2 else BISHOP_VALUE
    if cp.WARLORD not in h.sit.face_up:
        value += 0.15 * h.seat.size
    return value


def _merchant_value(h: Holding, value: float) -> float:
    short = h.costs and h.costs[0] > h.seat.gold + 2
    return value + (1.5 + cp.MERCHANT_BONUS_GOLD * (0.5 if short else 0.0))


def _architect_value(h: Holding, value: float) -> float:
    value += 1.0
    extra = len(_cheapest_builds(h.costs, h.seat.gold + cp.GATHER_GOLD_AMOUNT, cp.ARCHITECT_BUILD_LIMIT)) - 1
    value += 2.0 * max(extra, 0)
    if h.seat.size + extra + 1 >= h.sit.C and extra > 0:
        value += 3.0
    return value


def _warlord_value(h: Holding, value: float) -> float:
    value += 0.5
    for other in h.others:
        if other.complete:
            continue
        cheapest = min((cp.COST_LIST[k] for k in other.city if k != cp.KEEP), default=None)
        if cheapest is None or cheapest - 1 > h.seat.gold + cp.GATHER_GOLD_AMOUNT:
            continue
        if h.sit.near_completion(other):
            value += 3.0
        elif other.score >= max(s.score for s in h.others):
            value += 0.5
    return value


ABILITY_VALUE = {
    cp.ASSASSIN: _assassin_value,
    cp.THIEF: _thief_value,
    cp.MAGICIAN: _magician_value,
    cp.KING: _king_value,
    cp.BISHOP: _bishop_value,
    cp.MERCHANT: _merchant_value,
    cp.ARCHITECT: _architect_value,
    cp.WARLORD: _warlord_value,
}


def _endgame_value(h: Holding, rank: int, value: float) -> float:
    """Endgame (§11): the near-finisher protects itself, the others go for the Warlord/Assassin."""
    sit, seat = h.sit, h.seat
    if sit.near_completion(seat) or seat.size >= sit.C - 2 and rank == cp.ARCHITECT:
        if rank == cp.BISHOP and cp.WARLORD not in sit.face_up:
            value += 3.0
        elif rank in (cp.WARLORD, cp.ASSASSIN):
            value += 1.5
    if any(sit.near_completion(o) for o in h.others):
        if rank == cp.WARLORD:
            value += 1.5
        elif rank == cp.ASSASSIN:
            value += 2.0
    return value


def _cheapest_builds(costs: list[int], gold: int, limit: int) -> list[int]:
    out: list[int] = []
    for c in sorted(costs):
        if len(out) >= limit or c > gold:
            break
        out.append(c)
        gold -= c
    return out


def kill_value(sit: Situation, rank: int) -> float:
    """Expected harm of killing `rank`: who probably holds it, times what that turn is worth to them."""
    total = 0.0
    for seat_index, p in sit.holders()[rank].items():
        if seat_index == sit.me or p <= 0:
            continue
        seat = sit.seats[seat_index]
        worth = 3.0 + _income(seat.city, seat.types, rank)
        if rank == cp.ARCHITECT:
            worth += 1.0 + 0.7 * min(seat.hand_size, 4)
        elif rank == cp.MERCHANT:
            worth += cp.MERCHANT_BONUS_GOLD
        elif rank == cp.KING:
            worth += 0.5
        elif rank == cp.WARLORD:
            worth += 1.5 if sit.my.score >= max(s.score for s in sit.others) else 0.5
        elif rank == cp.THIEF:
            worth += 0.5 * sit.gold
        elif rank == cp.BISHOP and cp.WARLORD in sit.my_chars:
            worth += 1.5
        if sit.near_completion(seat):
            worth += 2.0
        total += p * worth * sit.threat(seat)
    return total + 0.01 * rank / cp.NUM_CHARACTERS  # no information: later ranks act later


def rob_value(sit: Situation, rank: int) -> float:
    """Expected gold stolen: probability each opponent holds `rank` times its gold."""
    total = 0.0
    for seat_index, p in sit.holders()[rank].items():
        if seat_index == sit.me:
            continue
        seat = sit.seats[seat_index]
        total += p * (seat.gold + 0.5)
    return total
