// Metropolys's heuristic agent in C++: agents/metropolys_heuristic.py (MetropolysHeuristicAgent._choose and
// what it calls), decision for decision, drawing ties from the agent's generator exactly when and as the Python
// agent does (HeuristicAgent._best and _best_index: `rng.integers(len(tied))` when two or more options lie
// within TIE_TOLERANCE of the best). The sums run in the Python order (left to right, numpy elementwise), so
// every score is the same double.
//
// It reads what the acting seat knows (its view): the board, bids, supplies, tokens, cards held, public scores
// and its own secret cards, never another seat's. The Python agent's memos (`Derived` per board, `Belief` per
// rival's buildings, `Situation`'s answers) only cache what the position determines: nothing is carried
// between decisions here, every value is computed from the position.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include "core/heuristic.hpp"
#include "game.hpp"

namespace city_envs::native::metropolys {

namespace heuristic {

constexpr double kTrendyWorth = 3.0;           // TOKEN_WORTH["trendy"]
constexpr double kSubwayWorth = 1.0;           // TOKEN_WORTH["subway"]
constexpr double kArchWorth = -1.0;            // TOKEN_WORTH["archaeological"]
constexpr double kSubwayGuard = 1.5;           // SUBWAY_GUARD
constexpr double kSubwayBlock = 1.5;           // SUBWAY_BLOCK
constexpr double kArchStickEarly = 0.5;        // ARCH_STICK_EARLY
constexpr double kFamilyPrice = 4.0;           // BUILDING_PRICE[r.FAMILY]
constexpr double kExpertPrice = 4.0;           // BUILDING_PRICE[r.EXPERT]
constexpr double kLateDiscount = 0.6;          // LATE_DISCOUNT
constexpr int kTall = 10;                      // TALL
constexpr int kKeepTall = 2;                   // KEEP_TALL
constexpr double kTallReserve = 1.5;           // TALL_RESERVE
constexpr double kLastThird = 2.0 / 3;          // LAST_THIRD
constexpr double kRiskPerFreeNeighbour = 0.5;  // RISK_PER_FREE_NEIGHBOUR
constexpr double kHoldChance = 0.5;            // HOLD_CHANCE
constexpr int kMidLow = 5, kMidHigh = 8;       // MID_VALUES = range(5, 9)
constexpr double kProgressBonus = 1.0;         // PROGRESS_BONUS
constexpr double kDenial = 0.5;                // DENIAL
constexpr double kBeliefSharpness = 1.0;       // BELIEF_SHARPNESS
constexpr double kWeightLeader = 0.6;          // WEIGHT_LEADER
constexpr double kWeightOther = 0.3;           // WEIGHT_OTHER
constexpr double kWin = 30.0;                  // WIN
constexpr int kN = cp::kNumNbhds;
constexpr int kMaxGuesses = 4;                 // a rival's guessed secret cards: 5 colours or 4 family, less mine

// _card_points: points a building on `nb` earns under a guessed secret card (family Area, expert colour).
inline double card_points(bool expert, int card, int nb) {
  if (!expert) return cp::kFamilyQualifying[card][nb] ? static_cast<double>(cp::kFamilyPointsPerBuilding) : 0.0;
  return cp::kColour[nb] == card ? static_cast<double>(cp::kNeighbourhoodPointsPerBuilding) : 0.0;
}

// Belief: a rival's possible secret cards with their probabilities, from where it built.
struct Belief {
  int count = 0;
  std::array<int, kMaxGuesses> card{};
  std::array<double, kMaxGuesses> p{};
  std::array<double, kMaxGuesses> built_points{};  // per guess, p times the points of the rival's buildings
  std::array<double, kN> expected{};               // the rival's expected objective points per neighbourhood
};

// A bid value pair of Situation.bid_candidates: `sure` (0: none) and `cheap`.
struct Candidates {
  int sure = 0;
  int cheap = 0;
};

// Situation and MetropolysHeuristicAgent: what one seat derives from the position, and its decisions.
class Seat {
 public:
  Seat(const Game& g, int me, Random& rng) : g_(g), me_(me), n_(g.n), expert_(g.expert), rng_(rng) {
    int most = 0;
    for (int seat = 0; seat < n_; ++seat) most = std::max(most, g_.built[seat]);
    clock_ = static_cast<double>(most) / cp::kNumBuildings;
    for (int seat = 0; seat < n_; ++seat) counts_[seat] = g_.buildings_of(seat, buildings_[seat].data());
    for (int seat = 0; seat < n_; ++seat)
      if (seat != me_) others_[num_others_++] = seat;
    for (int i = 0; i < num_others_; ++i) beliefs_[others_[i]] = belief(others_[i]);
    for (int seat = 0; seat < n_; ++seat)
      estimates_[seat] = static_cast<double>(g_.token_points(seat)) + objective_now(seat);
    for (int v = kTall; v <= cp::kNumBuildings; ++v) tall_ += (g_.supply[me_] >> (v - 1) & 1) ? 1 : 0;
    if (expert_) area_now_ = Game::area_points(g_.area_card[me_], buildings_[me_].data(), counts_[me_]);
    denial_totals();
  }

  int choose(const int* legal, int count) {
    if (g_.decision == Game::kValue) {
      const int floor = g_.num_bids > 0 ? g_.bids[g_.num_bids - 1].value : 0;
      return cp::kValueAction + bid_value(g_.chosen, floor) - 1;
    }
    int spots[kN];
    int num_spots = 0;
    for (int i = 0; i < count; ++i)
      if (legal[i] < cp::kValueAction) spots[num_spots++] = legal[i];
    if (g_.num_bids == 0) return open(spots, num_spots);
    return outbid(spots, num_spots);
  }

 private:
  const Game& g_;
  int me_;
  int n_;
  bool expert_;
  Random& rng_;
  double clock_ = 0.0;
  std::array<std::array<int, cp::kNumBuildings>, Game::kMaxPlayers> buildings_{};
  std::array<int, Game::kMaxPlayers> counts_{};
  std::array<int, Game::kMaxPlayers> others_{};
  int num_others_ = 0;
  std::array<Belief, Game::kMaxPlayers> beliefs_{};
  std::array<double, Game::kMaxPlayers> estimates_{};
  std::array<double, kN> denial_{};
  int tall_ = 0;
  int area_now_ = 0;

  // ----- the board
  bool has_value(int seat, int value) const { return (g_.supply[seat] >> (value - 1) & 1) != 0; }

  int max_value(int seat) const {
    for (int v = cp::kNumBuildings; v >= 1; --v)
      if (has_value(seat, v)) return v;
    return 0;
  }

  bool in_call(int seat) const { return (g_.passed >> seat & 1) == 0; }

  int rivals_in_call() const {
    int count = 0;
    for (int i = 0; i < num_others_; ++i) count += in_call(others_[i]) ? 1 : 0;
    return count;
  }

  // Situation.sure_bar: the highest value a seat still in the call holds.
  int sure_bar() const {
    int bar = 0;
    for (int i = 0; i < num_others_; ++i)
      if (in_call(others_[i])) bar = std::max(bar, max_value(others_[i]));
    return bar;
  }

  // Situation.sure_above
  int sure_above(int nb) const { return g_.has_free_neighbour(nb) ? sure_bar() : 0; }

  // Situation.bid_candidates: the smallest of my values above `floor` beating `needed`, and a cheap one.
  Candidates bid_candidates(int floor, int needed) const {
    Candidates out;
    int first = 0;
    int middling = 0;
    int tall = 0;
    for (int v = floor + 1; v <= cp::kNumBuildings; ++v) {
      if (!has_value(me_, v)) continue;
      if (first == 0) first = v;
      if (out.sure == 0 && v > needed) out.sure = v;
      if (middling == 0 && v >= kMidLow && v <= kMidHigh) middling = v;
      if (tall == 0 && v > kMidHigh) tall = v;
    }
    out.cheap = first;
    if (floor == 0 && out.sure == 0) {
      if (middling != 0) out.cheap = middling;
      else if (tall != 0) out.cheap = tall;
    }
    return out;
  }

  // Situation.weight: how much a rival's points count against mine.
  double weight(int seat) const {
    if (n_ == 2) return 1.0;
    return estimates_[seat] >= best_rival_estimate() ? kWeightLeader : kWeightOther;
  }

  // The highest of the rivals' estimates.
  double best_rival_estimate() const {
    double best = estimates_[others_[0]];
    for (int i = 1; i < num_others_; ++i) best = std::max(best, estimates_[others_[i]]);
    return best;
  }

  // ----- worth of a spot
  double token_worth(int nb) const {
    switch (g_.token[nb]) {
      case cp::kTrendy:
        return kTrendyWorth;
      case cp::kSubway:
        return kSubwayWorth + subway_card_worth();
      case cp::kArch:
        return arch_worth();
      default:
        return 0.0;
    }
  }

  double arch_worth() const {
    double worth = kArchWorth;
    if (g_.arch_card != me_) {
      const double stick = kArchStickEarly + (1.0 - kArchStickEarly) * clock_;
      const int holder = g_.arch_card;
      const double relief = holder >= 0 ? weight(holder) : 0.0;
      worth += cp::kArchCardPoints * stick * (1.0 + relief);
    }
    return worth;
  }

  int subway(int seat) const { return g_.tokens[seat][cp::kSubway - 1]; }

  // Situation._subway_card_worth
  double subway_card_worth() const {
    const int holder = g_.subway_card;
    const int mine = subway(me_) + 1;
    if (holder == me_) {
      int most = subway(others_[0]);
      for (int i = 1; i < num_others_; ++i) most = std::max(most, subway(others_[i]));
      return most >= mine - 1 ? kSubwayGuard : 0.0;
    }
    if (holder < 0) return static_cast<double>(cp::kSubwayCardPoints);
    if (mine > subway(holder)) return cp::kSubwayCardPoints * (1.0 + weight(holder));
    double most = 0.0;  // a rival one token short of taking the card from its holder
    bool any = false;
    for (int i = 0; i < num_others_; ++i) {
      const int o = others_[i];
      if (o == holder || subway(o) + 1 <= subway(holder)) continue;
      most = any ? std::max(most, weight(o)) : weight(o);
      any = true;
    }
    return kSubwayBlock * most;
  }

  // Situation.objective_worth
  double objective_worth(int nb, int value) const {
    if (!expert_) return objective_base(nb);
    return objective_base(nb) + height_gain(cp::kDistrict[nb], cp::kHeightClass[value]);
  }

  // Situation._objective_base_now
  double objective_base(int nb) const {
    if (!expert_) return card_points(false, g_.family_card[me_], nb);
    double worth = card_points(true, g_.colour_card[me_], nb);
    int with[cp::kNumBuildings + 1];
    const int count = counts_[me_];
    std::copy_n(buildings_[me_].data(), count, with);
    with[count] = nb;
    worth += Game::area_points(g_.area_card[me_], with, count + 1) - area_now_;
    worth += kProgressBonus * progress(g_.area_card[me_], nb);
    return worth;
  }

  bool mine(int nb) const { return g_.owner[nb] == me_; }

  // Situation._progress: own buildings this spot would group with, for an expert Area card (capped).
  double progress(int area, int nb) const {
    if (area == cp::kExpertBridges) {
      for (int i = 0; i < cp::kAdjCount[nb]; ++i) {
        const int other = cp::kAdj[nb][i];
        if (mine(other) && cp::kDistrict[other] != cp::kDistrict[nb]) return 1.0;
      }
      return 0.0;
    }
    if (area == cp::kExpertChains) {
      int around = 0;
      for (int i = 0; i < cp::kAdjCount[nb]; ++i) around += mine(cp::kAdj[nb][i]) ? 1 : 0;
      return std::min(2.0, static_cast<double>(around));
    }
    if (area == cp::kExpertLakes) {
      int best = 0;
      for (int lake = 0; lake < cp::kNumLakes; ++lake) {
        const auto& members = cp::kLakes[lake];
        const int size = cp::kLakeSize[lake];
        if (std::find(members.begin(), members.begin() + size, nb) == members.begin() + size) continue;
        int held = 0;
        for (int j = 0; j < size; ++j) held += mine(members[j]) ? 1 : 0;
        best = std::max(best, held);
      }
      return std::min(2.0, static_cast<double>(best));
    }
    if (area == cp::kExpertStatues) {
      int best = 0;
      for (const auto& statue : cp::kStatues) {
        if (std::find(statue.begin(), statue.end(), nb) == statue.end()) continue;
        int held = 0;
        for (int member : statue) held += mine(member) ? 1 : 0;
        best = std::max(best, held);
      }
      return std::min(2.0, static_cast<double>(best));
    }
    int same = 0;
    for (int i = 0; i < counts_[me_]; ++i) same += cp::kDistrict[buildings_[me_][i]] == cp::kDistrict[nb] ? 1 : 0;
    return 0 < same && same < cp::kDistrictSetSize ? 1.0 : 0.0;
  }

  // Situation._height_gain: 5 if building this height class in `district` makes me (co-)best in its comparison.
  int height_gain(int district, int height) const {
    std::array<std::array<int, 3>, Game::kMaxPlayers> heights{};  // per seat, (tall, medium, small) counts
    std::array<bool, Game::kMaxPlayers> present{};
    for (int nb = 0; nb < kN; ++nb)
      if (g_.owner[nb] >= 0 && cp::kDistrict[nb] == district) {
        present[g_.owner[nb]] = true;
        heights[g_.owner[nb]][2 - cp::kHeightClass[g_.built_value[nb]]] += 1;
      }
    auto best = [&]() {
      for (int seat = 0; seat < n_; ++seat)
        if (present[seat] && heights[seat] > heights[me_]) return false;
      return true;
    };
    const bool before = present[me_] && best();
    present[me_] = true;
    heights[me_][2 - height] += 1;
    return cp::kHighestBuildingPoints * ((best() ? 1 : 0) - (before ? 1 : 0));
  }

  // Situation.denial_array: the rivals' weighted expected points per neighbourhood, summed in seat order.
  void denial_totals() {
    std::array<double, kN> total{};
    for (int i = 0; i < num_others_; ++i) {
      const double w = weight(others_[i]);
      const auto& expected = beliefs_[others_[i]].expected;
      for (int nb = 0; nb < kN; ++nb) total[nb] = i == 0 ? w * expected[nb] : total[nb] + w * expected[nb];
    }
    for (int nb = 0; nb < kN; ++nb) denial_[nb] = kDenial * total[nb];
  }

  // Situation.rival_worth: the token's face value and the rival's expected objective on `nb`.
  double rival_worth(int seat, int nb) const {
    const int kind = g_.token[nb];
    const double face = kind == cp::kTrendy ? kTrendyWorth
                        : kind == cp::kSubway ? kSubwayWorth
                        : kind == cp::kArch   ? kArchWorth
                                              : 0.0;
    const Belief& b = beliefs_[seat];
    double sum = 0.0;  // sum(...) from 0: the first term exactly, then left to right
    for (int k = 0; k < b.count; ++k) sum += b.p[k] * card_points(expert_, b.card[k], nb);
    return face + sum;
  }

  // ----- prices
  double price(int value) const {
    const double per = expert_ ? kExpertPrice : kFamilyPrice;
    double price = static_cast<double>(value) / cp::kNumBuildings * per * (1.0 - kLateDiscount * clock_);
    if (value >= kTall && clock_ < kLastThird && tall_ <= kKeepTall) price += kTallReserve;
    return price;
  }

  // ----- what the rivals hold
  // Situation._belief and Belief
  Belief belief(int seat) const {
    Belief b;
    int hits[kMaxGuesses];
    const int* built = buildings_[seat].data();
    const int count = counts_[seat];
    if (!expert_) {
      int deck[4];
      const int size = g_.family_deck(deck);
      for (int i = 0; i < size; ++i)
        if (deck[i] != g_.family_card[me_]) b.card[b.count++] = deck[i];
    } else {
      for (int colour = 0; colour < 5; ++colour)
        if (colour != g_.colour_card[me_]) b.card[b.count++] = colour;
    }
    int most = 0;
    for (int k = 0; k < b.count; ++k) {
      hits[k] = 0;
      for (int i = 0; i < count; ++i) hits[k] += card_points(expert_, b.card[k], built[i]) > 0.0 ? 1 : 0;
      most = k == 0 ? hits[k] : std::max(most, hits[k]);
    }
    double weights[kMaxGuesses];
    double total = 0.0;
    for (int k = 0; k < b.count; ++k) {
      weights[k] = std::exp(kBeliefSharpness * (hits[k] - most));
      total += weights[k];
    }
    for (int k = 0; k < b.count; ++k) {
      b.p[k] = weights[k] / total;
      double points = 0.0;
      for (int i = 0; i < count; ++i) points += card_points(expert_, b.card[k], built[i]);
      b.built_points[k] = b.p[k] * points;
      for (int nb = 0; nb < kN; ++nb) {
        const double term = b.p[k] * card_points(expert_, b.card[k], nb);
        b.expected[nb] = k == 0 ? term : b.expected[nb] + term;
      }
    }
    return b;
  }

  // Situation._objective_now: my objective exact, a rival's in expectation.
  double objective_now(int seat) const {
    const int* built = buildings_[seat].data();
    const int count = counts_[seat];
    double points = 0.0;
    if (expert_)
      for (int district = 0; district < cp::kNumDistricts; ++district)
        if (!g_.is_removed(district) && g_.highest_building_winner(district, seat))
          points += cp::kHighestBuildingPoints;
    if (seat == me_) {
      if (!expert_) return points + Game::family_points(g_.family_card[me_], built, count);
      return points + Game::colour_points(g_.colour_card[me_], built, count) +
             Game::area_points(g_.area_card[me_], built, count);
    }
    for (int k = 0; k < beliefs_[seat].count; ++k) points += beliefs_[seat].built_points[k];
    if (expert_) points += 2.0 * count / 3;  // a rough share of an unknown expert Area card
    return points;
  }

  // ----- decisions
  // MetropolysHeuristicAgent._gain: worth minus price of building `value` on `nb`, with the endgame.
  double gain(int nb, int value) const {
    const double token = token_worth(nb);
    const double objective = objective_worth(nb, value);
    double gain = token + objective + denial_[nb] - price(value);
    if (g_.built[me_] == cp::kNumBuildings - 1) {  // this win ends the game
      const double mine = estimates_[me_] + token + objective;
      gain += mine > best_rival_estimate() ? kWin : -kWin;
    }
    return gain;
  }

  // MetropolysHeuristicAgent._bid_value: a sure winner if worth it, else a cheap or middling value.
  int bid_value(int nb, int floor) const {
    const Candidates c = bid_candidates(floor, sure_above(nb));
    if (c.sure == 0) return c.cheap;
    if (c.sure == c.cheap || gain(nb, c.sure) >= kHoldChance * gain(nb, c.cheap)) return c.sure;
    return c.cheap;
  }

  // MetropolysHeuristicAgent._open: every free spot scored, less the risk if a rival can still follow it.
  int open(const int* spots, int count) {
    bool free[kN] = {};
    for (int i = 0; i < count; ++i) free[spots[i]] = true;
    double scores[kN];
    const int bar = sure_bar();
    for (int i = 0; i < count; ++i) {
      const int nb = spots[i];
      int neighbours = 0;
      for (int j = 0; j < cp::kAdjCount[nb]; ++j) neighbours += free[cp::kAdj[nb][j]] ? 1 : 0;
      const int needed = neighbours > 0 ? bar : 0;
      const Candidates c = bid_candidates(0, needed);
      int value = c.sure == 0 ? c.cheap : c.sure;
      double score = gain(nb, value);
      if (c.sure != 0 && c.sure != c.cheap) {
        const double cheap_gain = gain(nb, c.cheap);
        if (!(score >= kHoldChance * cheap_gain)) {
          value = c.cheap;
          score = cheap_gain;
        }
      }
      if (value <= needed) score -= kRiskPerFreeNeighbour * neighbours;
      scores[i] = score;
    }
    return spots[best_index(scores, count, rng_)];
  }

  // MetropolysHeuristicAgent._outbid: the best legal spot if its worth beats the price, else pass.
  int outbid(const int* spots, int count) {
    const Bid& top = g_.bids[g_.num_bids - 1];
    const double stake = pass_cost(top);
    double scores[kN];
    for (int i = 0; i < count; ++i) scores[i] = gain(spots[i], bid_value(spots[i], top.value));
    const int best = best_index(scores, count, rng_);
    return scores[best] + stake > 0 ? spots[best] : cp::kPass;
  }

  // MetropolysHeuristicAgent._pass_cost: what passing gives away.
  double pass_cost(const Bid& top) const {
    if (rivals_in_call() > 1) return 0.0;
    const int seat = top.seat;
    if (g_.built[seat] == cp::kNumBuildings - 1) {
      const double theirs = estimates_[seat] + rival_worth(seat, top.nbhd);
      double rest = 0.0;
      bool any = false;
      for (int o = 0; o < n_; ++o) {
        if (o == seat) continue;
        rest = any ? std::max(rest, estimates_[o]) : estimates_[o];
        any = true;
      }
      return theirs >= rest ? kWin : 0.0;
    }
    return kDenial * weight(seat) * rival_worth(seat, top.nbhd);
  }
};

}  // namespace heuristic

inline int Game::heuristic(int player, const int* legal, int count, Random& rng) const {
  heuristic::Seat seat(*this, player, rng);
  return seat.choose(legal, count);
}

}  // namespace city_envs::native::metropolys
