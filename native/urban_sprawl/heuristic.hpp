// Urban Sprawl's heuristic agent, native: agents/urban_sprawl_heuristic.py (`_choose` and what it calls),
// decision for decision. Each function names the Python method it mirrors; scores are doubles computed in
// the Python order, and `best` draws ties as HeuristicAgent._best does. It reads only the public state (the
// seat's view: everything but the decks' order) and the seat's own hand.
#pragma once

#include "core/heuristic.hpp"
#include "game.hpp"

namespace city_envs::native::urban_sprawl {

namespace heuristic {
constexpr double kEarlyCost = 0.3, kLateCost = 0.1;  // EARLY_COST, LATE_COST
constexpr double kRowWeight = 0.5;                   // ROW_WEIGHT
constexpr int kRich = 20, kVeryRich = 25;            // RICH, VERY_RICH
constexpr int kPoor = 10;                            // POOR
constexpr int kAuctionWealth = 30;                   // AUCTION_WEALTH
constexpr double kFavorWorth = 6.0;                  // FAVOR_WORTH
// the lines whose leads the decisions weigh: three double columns, six block rows, six block columns
constexpr int kRowLine = 3, kColumnLine = cp::kCircles, kLines = cp::kCircles + 6;  // ROW_LINE, COLUMN_LINE, LINES
}  // namespace heuristic

// One decision of the heuristic: the seat, its generator, and the leads (City.lead) made on first use.
struct Game::Heuristic {
  const Game& g;
  int me;
  Random& rng;
  int wealth;
  bool late;  // Table.late
  bool leads_known = false;
  int leads[heuristic::kLines];

  Heuristic(const Game& game, int player, Random& random)
      : g(game), me(player), rng(random), wealth(game.wealth[player]),
        late(game.sports || game.wealth[player] > heuristic::kVeryRich) {}

  // HeuristicAgent._best: the option with the highest score, ties within the tolerance drawn from rng
  template <class Score>
  int best(const int* options, int count, Score score) {
    double values[kNumActions];
    for (int i = 0; i < count; ++i) values[i] = score(options[i]);
    return options[best_index(values, count, rng)];
  }

  // the legal ids that pass `keep`, in order, written to `out` (a Python list comprehension); returns how many
  template <class Keep>
  static int select(const int* legal, int count, int* out, Keep keep) {
    int found = 0;
    for (int i = 0; i < count; ++i)
      if (keep(legal[i])) out[found++] = legal[i];
    return found;
  }
  static bool not_pass(int a) { return a != cp::kAPass; }

  // City.lead: my owned buildings in a line minus the best rival's (City.line_owners, by lowest lot)
  int lead(int line) {
    if (!leads_known) count_leads();
    return leads[line];
  }
  void count_leads() {
    int counts[heuristic::kLines][kMaxSeats] = {};
    for (const Building& b : g.buildings) {
      if (!b.alive || b.owner < 0) continue;
      const int row = b.lots[0] / 4 / 6, column = b.lots[0] / 4 % 6;
      counts[column / 2][b.owner] += 1;
      counts[heuristic::kRowLine + row][b.owner] += 1;
      counts[heuristic::kColumnLine + column][b.owner] += 1;
    }
    for (int line = 0; line < heuristic::kLines; ++line) {
      int rival = 0;
      bool first = true;
      for (int s = 0; s < g.n; ++s)
        if (s != me && (first || counts[line][s] > rival)) {
          rival = counts[line][s];
          first = false;
        }
      leads[line] = counts[line][me] - rival;
    }
    leads_known = true;
  }

  bool take_wealth() const { return !late && wealth <= heuristic::kRich; }  // Table.take_wealth
  double cost() const { return late ? heuristic::kLateCost : heuristic::kEarlyCost; }

  // the zones (as a bit mask) of the visible contracts: Table.visible_contracts
  int wanted_zones() const {
    int spaces[8];
    g.contract_spaces(spaces);
    int wanted = 0;
    for (int c : spaces)
      if (c >= 0 && c < cp::kNumContracts) wanted |= 1 << cp::kContractZone[c];
    for (int c : g.favors[me]) wanted |= 1 << cp::kContractZone[c];
    return wanted;
  }

  // how many distinct buildings stand on `lots` and pass `keep(bid)` (City.neighbours)
  template <class Keep>
  int neighbours(const int* lots, int count, Keep keep) const {
    int seen[12], nseen = 0;
    for (int i = 0; i < count; ++i) {
      const int bid = g.lot_building[lots[i]];
      if (bid < 0 || !keep(bid)) continue;
      bool again = false;
      for (int k = 0; k < nseen; ++k) again = again || seen[k] == bid;
      if (!again) seen[nseen++] = bid;
    }
    return nseen;
  }

  int choose(const int* legal, int count);

  // ----- setup, investments, action points -----
  int start_buy(const int* legal, int count) {
    return best(legal, count, [&](int a) { return -static_cast<double>(g.block_value((a - cp::kALot) / 4)); });
  }

  int invest(const int* legal, int count) {
    if (wealth >= heuristic::kPoor) return cp::kAPass;
    const int wanted = wanted_zones();
    int idle[kNumActions];
    const int nidle = select(legal, count, idle, [&](int a) {
      return a != cp::kAPass && (wanted & cp::kPermitZones[a - cp::kACard]) == 0;  // permits no contract wants
    });
    if (nidle == 0) return cp::kAPass;
    return best(idle, nidle, [](int a) { return static_cast<double>(cp::kInvestment[a - cp::kACard]); });
  }

  double build_score(int card, int ap_cost) const {  // build_score
    double value = 0.0;
    for (int k = 0; k < cp::kVocationCount[card]; ++k) {
      const int voc = cp::kContractVocations[card][k][0], amount = cp::kContractVocations[card][k][1];
      const int mine = g.vocations[me][voc] + (g.voc_supply[voc] != 0 ? 1 : 0);
      int theirs = 0;
      for (int s = 0; s < g.n; ++s)
        if (s != me) theirs += g.vocations[s][voc];
      value += amount * (mine - static_cast<double>(theirs) / std::max(1, g.n - 1));
    }
    for (int k = 0; k < cp::kEffectCount[card]; ++k) {
      const cp::Effect& effect = cp::kEffects[card][k];
      switch (effect.kind) {
        case cp::kTGain: value += effect.wealth * (late ? 0.5 : 1.0) + effect.prestige; break;
        case cp::kTPerBuilding: value += 2.0 * (effect.wealth + effect.prestige); break;
        case cp::kTElection:
        case cp::kTWinElection:
        case cp::kTMarker:
        case cp::kTParkEffect: value += 1.5; break;
        case cp::kTTribute: value += 3.0; break;
        default: break;
      }
    }
    return value + 1.0 - 0.25 * ap_cost;
  }

  int main_turn(const int* legal, int count) {  // _main: build, else renewal, else a permit, else a Favor
    int spaces[8];
    g.contract_spaces(spaces);
    const int built = worthy_build(legal, count, spaces);
    if (built >= 0) return built;
    int options[kNumActions];
    bool renewal_held = false;
    for (int c : g.hands[me]) renewal_held = renewal_held || is_renewal(c);
    int found = renewal_held ? 0 : select(legal, count, options, [&](int a) {
      return taking_planning(a) && is_renewal(g.planning_at(a - cp::kATakePlanning));
    });
    if (found > 0)  // a crowded city can only grow by demolition
      return best(options, found, [](int a) { return -static_cast<double>(cp::kPlanningAp[a - cp::kATakePlanning]); });
    const int wanted = wanted_zones();
    found = select(legal, count, options, [&](int a) {
      const int card = taking_planning(a) ? g.planning_at(a - cp::kATakePlanning) : cp::kNumPermits;
      return card < cp::kNumPermits && (wanted & cp::kPermitZones[card]) != 0;
    });
    if (found > 0)
      return best(options, found, [&](int a) {
        return -cp::kPlanningAp[a - cp::kATakePlanning] + 0.5 * cp::kPermitValue[g.planning_at(a - cp::kATakePlanning)];
      });
    found = select(legal, count, options, [&](int a) {
      return cp::kATakeFavor <= a && a < cp::kABuildFavor &&
             build_score(spaces[a - cp::kATakeFavor], 0) >= heuristic::kFavorWorth;
    });
    if (found > 0)
      return best(options, found, [](int a) { return -static_cast<double>(cp::kContractAp[a - cp::kATakeFavor]); });
    return cp::kAPass;
  }
  // _main's builds: the best-scored one if it beats cost() x the cheapest block value, else -1 (the draw is taken)
  int worthy_build(const int* legal, int count, const int* spaces) {
    int builds[kNumActions], nbuild = 0;
    double scores[kNumActions];  // by action id
    for (int i = 0; i < count; ++i) {
      const int a = legal[i];
      if (cp::kABuild <= a && a < cp::kATakeFavor) {
        scores[a] = build_score(spaces[a - cp::kABuild], cp::kContractAp[a - cp::kABuild]);
        builds[nbuild++] = a;
      } else if (cp::kABuildFavor <= a && a < cp::kALot) {
        scores[a] = build_score(g.favors[me][a - cp::kABuildFavor], 0);
        builds[nbuild++] = a;
      }
    }
    if (nbuild == 0) return -1;
    int cheapest_block = g.block_value(0);
    for (int block = 1; block < cp::kBlocks; ++block) cheapest_block = std::min(cheapest_block, g.block_value(block));
    const int chosen = best(builds, nbuild, [&](int a) { return scores[a]; });
    return scores[chosen] - cost() * cheapest_block > 0 ? chosen : -1;
  }
  static bool taking_planning(int a) { return cp::kATakePlanning <= a && a < cp::kABuild; }
  static bool is_renewal(int card) { return cp::kNumPermits <= card && card < cp::kFirstPlanningEvent; }

  int pay_permit(const int* legal, int count) {  // _pay_permit: the fewest zones, then the smallest value
    return best(legal, count, [](int a) {
      return -__builtin_popcount(static_cast<unsigned>(cp::kPermitZones[a - cp::kACard])) -
             0.1 * cp::kPermitValue[a - cp::kACard];
    });
  }

  // _place's terms: the row icons I lead, weighted (the price is cost() x the block value)
  double row_terms(int block) {
    const int row = block / 6, column = block % 6;
    const int rows = cp::kPrestigeBand[row] * (lead(heuristic::kRowLine + row) >= 0 ? 1 : 0) +
                     cp::kWealthColumn[column] * (lead(heuristic::kColumnLine + column) >= 0 ? 1 : 0);
    return heuristic::kRowWeight * rows;
  }

  int place(const int* legal, int count) {  // _place
    const int card = g.build_card;
    const int zone = cp::kContractZone[card], size = cp::kContractSize[card];
    return best(legal, count, [&](int a) {
      const int place = a - cp::kALot, block = place >> 2;
      const cp::Placement& pl = cp::kPlacements[size - 1][size == 4 ? block : place];
      const int bonus = neighbours(pl.around, pl.around_count, [&](int bid) { return g.buildings[bid].zone == zone; });
      int destroyed = 0;
      for (int i = 0; i < size; ++i) destroyed += g.lot_building[pl.lots[i]] >= 0 ? 1 : 0;
      const double price = cost() * g.block_value(block);
      return bonus + row_terms(block) - price - destroyed;
    });
  }

  // ----- choices -----
  int voc_source(const int* legal, int count) {
    int rivals[kNumActions];
    const int nrivals = select(legal, count, rivals, not_pass);
    return best(rivals, nrivals, [&](int a) { return static_cast<double>(g.prestige[seat_of(a)]); });
  }
  int seat_of(int a) const { return (me + a - cp::kAPlayer) % g.n; }

  int election_tie(const int* legal, int count) {  // _election_tie, _media_tie
    return best(legal, count, [&](int a) {
      return static_cast<double>(1000 * (a == cp::kAPlayer ? 1 : 0) - g.prestige[seat_of(a)]);
    });
  }

  int lot_for_park(const int* legal, int count) {  // _lot_for_park, _mayor_park, _park_lot
    auto mine = [&](int bid) { return g.buildings[bid].owner == me && g.buildings[bid].zone != cp::kPARK; };
    return best(legal, count, [&](int a) {
      const int x = a - cp::kALot, row = x / 4 / 6, column = x / 4 % 6;
      const int near_mine = neighbours(cp::kAdjacentLots[x], cp::kAdjacentCount[x], mine);
      return near_mine + 0.3 * (lead(heuristic::kRowLine + row) >= 0 ? 1 : 0) + 0.01 * cp::kPrestigeBand[row] +
             (0.01 * cp::kWealthColumn[column]);
    });
  }

  int auction(const int* legal, int count) const {
    return contains(legal, count, cp::kAOptA) && wealth >= heuristic::kAuctionWealth ? cp::kAOptA : cp::kAOptB;
  }
  static bool contains(const int* legal, int count, int action) {
    for (int i = 0; i < count; ++i)
      if (legal[i] == action) return true;
    return false;
  }

  int pick_building(const int* legal, int count) {
    const int purpose = g.ctx.purpose;
    return best(legal, count, [&](int a) {
      const Building& b = g.buildings[g.lot_building[a - cp::kALot]];
      const int value = g.block_value(b.lots[0] / 4);
      if (purpose == kPurposeDemolish) return static_cast<double>(-value * b.size);
      const bool mine = b.owner == me;
      if (purpose == kPurposeHeadlines)
        return 10.0 * (mine ? 1 : 0) + (b.owner >= 0 && !mine ? g.prestige[b.owner] * -0.01 : 0.0);
      return -10.0 * (mine ? 1 : 0) + (b.owner >= 0 ? 0.01 * g.prestige[b.owner] : 0.0);
    });
  }

  int disaster_choice(const int* legal, int count) const {
    if (!contains(legal, count, cp::kAOptA)) return cp::kAOptB;
    const int event = g.ctx.event;
    bool any = false;
    int cheapest = 0;
    for (const Building& b : g.buildings)
      if (b.alive && b.owner == me) {
        const int value = g.block_value(b.lots[0] / 4);
        cheapest = any ? std::min(cheapest, value) : value;
        any = true;
      }
    return cp::kEventArgs[event][2] + cp::kEventArgs[event][3] < cheapest ? cp::kAOptA : cp::kAOptB;
  }

  int blight_choice(const int* legal, int count) const {
    const int bid = g.ctx.building;
    return contains(legal, count, cp::kAOptA) && 3 < g.building_value(bid) ? cp::kAOptA : cp::kAOptB;
  }

  int marker_place(const int* legal, int count) {
    int circles[kNumActions];
    const int ncircles = select(legal, count, circles, not_pass);
    return best(circles, ncircles, [&](int a) { return static_cast<double>(lead(a - cp::kACircle)); });
  }

  int marker_move_dst(const int* legal, int count) {
    const int chosen = marker_place(legal, count);
    if (contains(legal, count, cp::kAPass)) {
      for (int circle = 0; circle < cp::kCircles; ++circle)
        if (g.circles[circle] == g.ctx.marker) return lead(circle) >= lead(chosen - cp::kACircle) ? cp::kAPass : chosen;
    }
    return chosen;
  }

  int marker_move_src(const int* legal, int count) {
    int circles[kNumActions];
    const int ncircles = select(legal, count, circles, not_pass);
    const int worst = best(circles, ncircles, [&](int a) { return -static_cast<double>(lead(a - cp::kACircle)); });
    return lead(worst - cp::kACircle) < 0 ? worst : cp::kAPass;
  }
};

// _choose: one method per decision kind
inline int Game::Heuristic::choose(const int* legal, int count) {
  switch (g.decision) {
    case cp::kDStartBuy: return start_buy(legal, count);
    case cp::kDInvest: return invest(legal, count);
    case cp::kDMain: return main_turn(legal, count);
    case cp::kDPayPermit: return pay_permit(legal, count);
    case cp::kDPlace: return place(legal, count);
    case cp::kDVocPayout: return take_wealth() ? cp::kAOptA : cp::kAOptB;
    case cp::kDTributePay:
      if (g.prestige[me] < g.ctx.amount) return cp::kAOptB;
      return take_wealth() ? cp::kAOptB : cp::kAOptA;
    case cp::kDVocSource: return voc_source(legal, count);
    case cp::kDElectionTie:
    case cp::kDMediaTie: return election_tie(legal, count);
    case cp::kDParkLot:
    case cp::kDMayorPark: return lot_for_park(legal, count);
    case cp::kDAuction: return auction(legal, count);
    case cp::kDPickBuilding: return pick_building(legal, count);
    case cp::kDDisasterChoice: return disaster_choice(legal, count);
    case cp::kDBlightChoice: return blight_choice(legal, count);
    case cp::kDMarkerPlace: return marker_place(legal, count);
    case cp::kDMarkerMoveDst: return marker_move_dst(legal, count);
    case cp::kDMarkerMoveSrc: return marker_move_src(legal, count);
    default: return legal[0];
  }
}

inline int Game::heuristic(int player, const int* legal, int count, Random& rng) const {
  Heuristic agent(*this, player, rng);
  return agent.choose(legal, count);
}

}  // namespace city_envs::native::urban_sprawl
