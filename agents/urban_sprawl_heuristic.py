"""A rule-based Urban Sprawl player (the strategy notes in docs/games/urban_sprawl.md).

It reads only its seat's information set: `view()` and the legal action ids, plus the static card
and board data of components.py. The generator only breaks exact ties.

- Investments: permits whose zones match no visible contract, while wealth is below 10.
- Action points: score every legal build (neighbourhood bonus, own vocation payout minus what
  opponents collect, effect gains, the prestige icon of the block's rows, minus 0.3 x the block value,
  0.1 late) and build the best positive one; else take the cheapest permit whose zone matches a
  visible contract (an Urban Renewal card first when it holds none, so a crowded city can still grow);
  park a strong unaffordable Metropolis contract as a Favor; else end the turn.
- Choices: wealth early and prestige late, markers on rows I lead, pay a disaster or blight when
  cheaper than the building, ties to myself or the poorest rival.
"""

from __future__ import annotations

from functools import cached_property

from city_envs.agents.base import HeuristicAgent
from city_envs.core.infoset import InfoSet
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r

EARLY_COST, LATE_COST = 0.3, 0.1
ROW_WEIGHT = 0.5
RICH, VERY_RICH = 20, 25
POOR = 10
AUCTION_WEALTH = 30
FAVOR_WORTH = 6.0


# per size and place id: the lots around the placement, as a tuple and as a bit set, and its own lots as a
# bit set (read by every placement's score)
AROUND = {size: {place: around for place, _, around, _, _ in found} for size, found in cp.PLACEMENTS.items()}
AROUND_BITS = {size: {place: r.bit_set(around) for place, around in rings.items()} for size, rings in AROUND.items()}
LOT_BITS = {size: {place: r.bit_set(lots) for place, lots, *_ in found} for size, found in cp.PLACEMENTS.items()}
ADJACENT_BITS = tuple(r.bit_set(around) for around in cp.ADJACENT_LOTS)
# the lines whose leads the decisions weigh: the rows of the nine grey circles (cp.CIRCLE_BLOCKS: three double
# columns, then the six block rows), then the six block columns
ROW_LINE, COLUMN_LINE, LINES = 3, cp.CIRCLES, cp.CIRCLES + 6


class City:
    """What a view's buildings say, in the shape the decisions need. An agent keeps it while the buildings
    stay as they are (most decisions build, demolish or hand over nothing); its parts are made on first use."""

    def __init__(self, buildings: list, me: int, n: int) -> None:
        self.buildings = buildings
        self.me = me
        self.n = n
        self.leads: list[int | None] = [None] * LINES

    def describes(self, buildings: list, me: int, n: int) -> bool:
        return me == self.me and n == self.n and buildings == self.buildings

    @cached_property
    def lot_building(self) -> dict[int, int]:
        """The building on each built lot."""
        lot_building = {}
        for bid, b in enumerate(self.buildings):
            if b is not None:
                for x in b[r.LOTS_]:
                    lot_building[x] = bid
        return lot_building

    @cached_property
    def zone_lots(self) -> list[int]:
        """The lots under each zone's buildings as bit sets (parks included), so that a placement with no
        neighbour of a zone is told by one integer test."""
        zone_lots = [0] * len(cp.ZONE_NAMES)
        buildings = self.buildings
        for x, bid in self.lot_building.items():
            zone_lots[buildings[bid][0]] |= 1 << x
        return zone_lots

    @cached_property
    def line_owners(self) -> list[list[int]]:
        """Owned buildings (by their lowest lot) per line and seat: the counts behind every lead."""
        counts = [[0] * self.n for _ in range(LINES)]
        for b in self.buildings:
            if b is not None and b[r.OWNER] >= 0:
                row, column = divmod(b[r.LOTS_][0] // 4, 6)
                counts[column // 2][b[r.OWNER]] += 1
                counts[ROW_LINE + row][b[r.OWNER]] += 1
                counts[COLUMN_LINE + column][b[r.OWNER]] += 1
        return counts

    def neighbours(self, around: tuple[int, ...], lots_of_interest: int) -> set[int]:
        """The buildings on the lots `around` that lie in the bit set `lots_of_interest`."""
        lot_building = self.lot_building
        return {lot_building[y] for y in around if lots_of_interest >> y & 1}

    def lead(self, line: int) -> int:
        """My buildings in a line minus the best rival's (asked for a row and a column per placement)."""
        lead = self.leads[line]
        if lead is None:
            counts = self.line_owners[line]
            lead = self.leads[line] = counts[self.me] - max(counts[s] for s in range(self.n) if s != self.me)
        return lead


class Table:
    """What one `view()` says, in the shape the decisions need."""

    def __init__(self, v: dict, agent: UrbanSprawlHeuristicAgent) -> None:
        self.v = v
        self.me = v["player"]
        self.n = v["num_players"]
        self.wealth = v["wealth"][self.me]
        self.late = v["sports_team"] or self.wealth > VERY_RICH
        self.block_values = r.block_values(tuple(v["circles"]))
        self.agent = agent

    @cached_property
    def city(self) -> City:
        """The agent's `City` when it still describes this view's buildings, else a new one kept in its place."""
        city, buildings = self.agent.city, self.v["buildings"]
        if city is None or not city.describes(buildings, self.me, self.n):
            city = self.agent.city = City(buildings, self.me, self.n)
        return city

    def block_value(self, block: int) -> int:
        return self.block_values[block]

    def building(self, bid: int) -> list:
        """The view's building `bid`: its JSON form [zone, size, lots, owner], read through the
        record's field positions (`r.ZONE`, `r.SIZE`, `r.LOTS_`, `r.OWNER`)."""
        return self.v["buildings"][bid]

    def lead(self, line: int) -> int:
        return self.city.lead(line)

    def visible_contracts(self) -> list[int]:
        return [c for c in self.v["contract_spaces"] if c >= 0] + list(self.v["favors"][self.me])

    def take_wealth(self) -> bool:
        return not self.late and self.wealth <= RICH


class UrbanSprawlHeuristicAgent(HeuristicAgent):
    """The rules of thumb of §11 (its docs page's Heuristic agent) over the seat's view."""

    city: City | None = None  # the last decision's, kept while the buildings stay

    def _choose(self, info_set: InfoSet, legal: list[int]) -> int:
        t = Table(info_set.view(), self)
        return getattr(self, "_" + t.v["decision"].lower())(t, legal)  # one method per decision kind

    # ----- setup, investments, action points ---------------------------------------------------------
    def _start_buy(self, t: Table, legal: list[int]) -> int:
        return self._best(legal, lambda a: -t.block_value((a - r.LOT) // 4))

    def _invest(self, t: Table, legal: list[int]) -> int:
        if t.wealth >= POOR:
            return r.PASS
        wanted = {cp.CONTRACT_ZONE[c] for c in t.visible_contracts()}
        idle = [a for a in legal if a != r.PASS and not wanted & set(cp.PERMIT_ZONES[a - r.CARD])]
        return self._best(idle, lambda a: cp.INVESTMENT[a - r.CARD]) if idle else r.PASS

    def build_score(self, t: Table, card: int, ap_cost: int) -> float:
        """Worth of building `card` at its best cheap spot, without the placement bonus."""
        value = 0.0
        for voc, amount in cp.CONTRACT_VOCATIONS[card]:
            mine = t.v["vocations"][t.me][voc] + (1 if t.v["vocation_supply"][voc] else 0)
            theirs = sum(t.v["vocations"][s][voc] for s in range(t.n) if s != t.me)
            value += amount * (mine - theirs / max(1, t.n - 1))
        for effect in cp.CONTRACT_EFFECTS[card]:
            if isinstance(effect, cp.Gain):
                value += effect.wealth * (0.5 if t.late else 1.0) + effect.prestige
            elif isinstance(effect, cp.PerBuilding):
                value += 2.0 * (effect.wealth + effect.prestige)
            elif isinstance(effect, (cp.Election, cp.WinElection, cp.Marker, cp.ParkEffect)):
                value += 1.5
            elif isinstance(effect, cp.Tribute):
                value += 3.0
        return value + 1.0 - 0.25 * ap_cost

    def _main(self, t: Table, legal: list[int]) -> int:
        cost = LATE_COST if t.late else EARLY_COST
        builds = {}
        for a in legal:
            if r.BUILD <= a < r.TAKE_FAVOR:
                space = a - r.BUILD
                builds[a] = self.build_score(t, t.v["contract_spaces"][space], cp.CONTRACT_AP[space])
            elif r.BUILD_FAVOR <= a < r.LOT:
                builds[a] = self.build_score(t, t.v["favors"][t.me][a - r.BUILD_FAVOR], 0)
        cheapest_block = min(t.block_values)
        if builds:
            best = self._best(list(builds), builds.__getitem__)
            if builds[best] - cost * cheapest_block > 0:
                return best
        if not any(c in cp.URBAN_RENEWAL for c in t.v["hands"][t.me]):
            renewal = [
                a
                for a in legal
                if r.TAKE_PLANNING <= a < r.BUILD and t.v["planning_spaces"][a - r.TAKE_PLANNING] in cp.URBAN_RENEWAL
            ]
            if renewal:  # a crowded city can only grow by demolition
                return self._best(renewal, lambda a: -cp.PLANNING_AP[a - r.TAKE_PLANNING])
        wanted = {cp.CONTRACT_ZONE[c] for c in t.visible_contracts()}
        planning = [
            a
            for a in legal
            if r.TAKE_PLANNING <= a < r.BUILD
            and t.v["planning_spaces"][a - r.TAKE_PLANNING] < cp.NUM_PERMITS
            and wanted & set(cp.PERMIT_ZONES[t.v["planning_spaces"][a - r.TAKE_PLANNING]])
        ]
        if planning:
            return self._best(
                planning,
                lambda a: (
                    -cp.PLANNING_AP[a - r.TAKE_PLANNING]
                    + 0.5 * cp.PERMIT_VALUE[t.v["planning_spaces"][a - r.TAKE_PLANNING]]
                ),
            )
        favors = [
            a
            for a in legal
            if r.TAKE_FAVOR <= a < r.BUILD_FAVOR
            and self.build_score(t, t.v["contract_spaces"][a - r.TAKE_FAVOR], 0) >= FAVOR_WORTH
        ]
        if favors:
            return self._best(favors, lambda a: -cp.CONTRACT_AP[a - r.TAKE_FAVOR])
        return r.PASS

    def _pay_permit(self, t: Table, legal: list[int]) -> int:
        """Keep multi-zone permits: pay with the fewest zones, then the smallest value."""
        return self._best(legal, lambda a: -len(cp.PERMIT_ZONES[a - r.CARD]) - 0.1 * cp.PERMIT_VALUE[a - r.CARD])

    def _place(self, t: Table, legal: list[int]) -> int:
        card = t.v["building"]["card"]
        zone, size = cp.CONTRACT_ZONE[card], cp.CONTRACT_SIZE[card]
        cost = LATE_COST if t.late else EARLY_COST
        around, around_bits, lot_bits = AROUND[size], AROUND_BITS[size], LOT_BITS[size]
        zone_lots = t.city.zone_lots
        same_zone, occupied = zone_lots[zone], sum(zone_lots)  # the zones' bit sets are disjoint
        block_terms: dict[int, tuple[float, float]] = {}

        def terms(block: int) -> tuple[float, float]:
            """The row icons I lead, weighted, and the block's price: shared by the block's placements."""
            row, column = divmod(block, 6)
            rows = cp.PRESTIGE_BAND[row] * (t.lead(ROW_LINE + row) >= 0) + cp.WEALTH_COLUMN[column] * (
                t.lead(COLUMN_LINE + column) >= 0
            )
            return ROW_WEIGHT * rows, cost * t.block_values[block]

        def score(a: int) -> float:
            place = a - r.LOT
            block = place >> 2
            bonus = len(t.city.neighbours(around[place], same_zone)) if around_bits[place] & same_zone else 0
            if block not in block_terms:
                block_terms[block] = terms(block)
            rows, price = block_terms[block]
            destroyed = (lot_bits[place] & occupied).bit_count()
            return bonus + rows - price - destroyed

        return self._best(legal, score)

    # ----- choices ---------------------------------------------------------------------------------
    def _voc_payout(self, t: Table, legal: list[int]) -> int:
        return r.OPT_A if t.take_wealth() else r.OPT_B

    def _tribute_pay(self, t: Table, legal: list[int]) -> int:
        amount = t.v["context"]["amount"]
        if t.v["prestige"][t.me] < amount:
            return r.OPT_B
        return r.OPT_B if t.take_wealth() else r.OPT_A

    def _voc_source(self, t: Table, legal: list[int]) -> int:
        rivals = [a for a in legal if a != r.PASS]
        return self._best(rivals, lambda a: t.v["prestige"][(t.me + a - r.PLAYER) % t.n])

    def _election_tie(self, t: Table, legal: list[int]) -> int:
        return self._best(legal, lambda a: 1000 * (a == r.PLAYER) - t.v["prestige"][(t.me + a - r.PLAYER) % t.n])

    _media_tie = _election_tie

    def _lot_for_park(self, t: Table, legal: list[int]) -> int:
        mine = 0  # the lots under my buildings other than parks
        for b in t.v["buildings"]:
            if b is not None and b[r.OWNER] == t.me and b[r.ZONE] != cp.PARK:
                mine |= r.bit_set(b[r.LOTS_])

        def score(a: int) -> float:
            x = a - r.LOT
            near_mine = len(t.city.neighbours(cp.ADJACENT_LOTS[x], mine)) if ADJACENT_BITS[x] & mine else 0
            row, column = divmod(x // 4, 6)
            return (
                near_mine
                + 0.3 * (t.lead(ROW_LINE + row) >= 0)
                + 0.01 * cp.PRESTIGE_BAND[row]
                + (0.01 * cp.WEALTH_COLUMN[column])
            )

        return self._best(legal, score)

    _mayor_park = _lot_for_park
    _park_lot = _lot_for_park

    def _auction(self, t: Table, legal: list[int]) -> int:
        return r.OPT_A if r.OPT_A in legal and t.wealth >= AUCTION_WEALTH else r.OPT_B

    def _pick_building(self, t: Table, legal: list[int]) -> int:
        purpose = t.v["context"]["purpose"]

        def score(a: int) -> float:
            b = t.building(t.city.lot_building[a - r.LOT])
            value = t.block_value(b[r.LOTS_][0] // 4)
            if purpose == "demolish":
                return -value * b[r.SIZE]
            mine = b[r.OWNER] == t.me
            if purpose == "headlines":
                return 10.0 * mine + (t.v["prestige"][b[r.OWNER]] * -0.01 if b[r.OWNER] >= 0 and not mine else 0.0)
            return -10.0 * mine + (0.01 * t.v["prestige"][b[r.OWNER]] if b[r.OWNER] >= 0 else 0.0)

        return self._best(legal, score)

    def _disaster_choice(self, t: Table, legal: list[int]) -> int:
        if r.OPT_A not in legal:
            return r.OPT_B
        disaster = cp.DISASTERS[t.v["context"]["event"]]
        wealth, prestige = disaster.wealth, disaster.prestige
        mine = (b for b in t.v["buildings"] if b is not None and b[r.OWNER] == t.me)
        cheapest = min((t.block_value(b[r.LOTS_][0] // 4) for b in mine), default=0)
        return r.OPT_A if wealth + prestige < cheapest else r.OPT_B

    def _blight_choice(self, t: Table, legal: list[int]) -> int:
        bid = t.v["context"]["building"]
        return r.OPT_A if r.OPT_A in legal and 3 < t.block_value(t.building(bid)[r.LOTS_][0] // 4) else r.OPT_B

    def _marker_place(self, t: Table, legal: list[int]) -> int:
        return self._best([a for a in legal if a != r.PASS], lambda a: t.lead(a - r.CIRCLE))

    def _marker_move_dst(self, t: Table, legal: list[int]) -> int:
        best = self._marker_place(t, legal)
        number = t.v["context"]["marker"]
        if r.PASS in legal and number in t.v["circles"]:
            here = t.lead(t.v["circles"].index(number))
            if here >= t.lead(best - r.CIRCLE):
                return r.PASS
        return best

    def _marker_move_src(self, t: Table, legal: list[int]) -> int:
        worst = self._best([a for a in legal if a != r.PASS], lambda a: -t.lead(a - r.CIRCLE))
        return worst if t.lead(worst - r.CIRCLE) < 0 else r.PASS
