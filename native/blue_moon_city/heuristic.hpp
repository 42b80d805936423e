// Blue Moon City's heuristic agent in C++: agents/blue_moon_city_heuristic.py (`_choose` and what it
// calls), the same pick with the same draws. It reads only what the seat to move may know: the public
// table, its own hand and the open payment. Scores are doubles computed in the Python order, and ties
// are drawn as HeuristicAgent._best draws them. Included at the end of game.hpp.
#pragma once

#include <cstdint>

#include "core/heuristic.hpp"
#include "game.hpp"

namespace city_envs::native::blue_moon_city {

namespace heuristic_detail {

// The agent's weights (module constants of agents/blue_moon_city_heuristic.py, same names).
inline constexpr double CARD_WORTH = 0.6;
inline constexpr double SCALE_WORTH = 1.0;
inline constexpr double CARD_COST = 0.4;
inline constexpr double POWER_COST = 0.8;
inline constexpr double SECTION_WORTH = 1.0;
inline constexpr double OFFER_WORTH = 12.0;
inline constexpr double GREY_MARGIN = 1.5;
inline constexpr double KEEP_THRESHOLD = 2.5;

// reward_worth
inline double reward_worth(const int* reward) {
  return reward[0] + CARD_WORTH * reward[1] + SCALE_WORTH * reward[2];
}

// x in cp.POWER_CARDS
inline bool is_power_card(int x) {
  for (int d = 0; d < 3; ++d)
    if (x == cp::DRAGON_FLY_CARD[d] || x == cp::DRAGON_WALK_CARD[d]) return true;
  return x == cp::GREY_TELEPORT || x == cp::GREY_BOOST || x == cp::BROWN_1 || x == cp::BROWN_2 ||
         x == cp::WHITE_1 || x == cp::WHITE_2 || x == cp::YELLOW_1 || x == cp::YELLOW_2 || x == cp::GREEN_CARD;
}

// action in legal
inline bool contains(const int* legal, int count, int action) {
  for (int i = 0; i < count; ++i)
    if (legal[i] == action) return true;
  return false;
}

// HeuristicAgent._best: the option with the highest score, ties within the tolerance drawn from rng
// (no draw when one option leads); -1 when there is no option.
inline int best(const int* options, const double* scores, int count, Random& rng) {
  if (count == 0) return -1;
  return options[best_index(scores, count, rng)];
}

// The Python Table: what the seat's view says, with its per-decision memos (they only save time).
class Table {
 public:
  Table(const Game& game, int seat) : g(game), me(seat), hand(game.hands[seat]) {
    for (auto& row : coverable_)
      for (auto& known : row) known = -1;
    for (int& known : open_counts_) known = -1;
  }

  int here() const { return g.figures[me]; }

  // Table.can_offer
  bool can_offer() const { return g.markers[me] > 0 && g.crystals[me] >= g.offer_cost(); }

  // Table.can_pay: rules.can_finish for this hand in `colour` (any one colour for cp::ANY)
  bool can_pay(int value, int colour) {
    int8_t& known = coverable_[value][colour];
    if (known < 0) {
      const Caps none{};
      bool any = false;
      if (colour == cp::ANY) {
        for (int c = 0; c < cp::NUM_COLOURS && !any; ++c) any = can_finish(value, c, hand, none, 0);
      } else {
        any = can_finish(value, colour, hand, none, 0);
      }
      known = any ? 1 : 0;
    }
    return known == 1;
  }

  // Table.payable_sections, as their count
  int payable_sections(int position) {
    const int tile = g.tile_at[position];
    if (g.complete[position] || tile == cp::COURTYARD || g.markers[me] < 1) return 0;
    int payable = 0;
    for (int i = 0; i < cp::SECTION_COUNT[tile]; ++i)
      if (g.markers_on[position][i] < 0 && can_pay(cp::SECTION_VALUE[tile][i], cp::SECTION_COLOUR[tile][i]))
        ++payable;
    return payable;
  }

  // Table.tile_worth: what contributing on `position` this turn is worth (0 if nothing is payable)
  double tile_worth(int position) {
    if (position == cp::COURTYARD_POSITION) return can_offer() ? OFFER_WORTH : 0.0;
    const int payable = payable_sections(position);
    if (payable == 0) return 0.0;
    const int tile = g.tile_at[position];
    const int8_t* markers = g.markers_on[position];
    int empty = 0;
    for (int i = 0; i < cp::SECTION_COUNT[tile]; ++i) empty += markers[i] < 0;
    int dragons_here = 0;
    for (int d = 0; d < 3; ++d) dragons_here += g.dragons[d] == position;
    double worth = SECTION_WORTH * payable;
    worth += SCALE_WORTH * dragons_here;
    if (payable == empty && empty <= 2) {  // likely to complete it myself
      worth += reward_worth(cp::EACH_REWARD[tile]);
      if (holds_most(markers, empty)) worth += reward_worth(cp::STAR_REWARD[tile]);
      for (int q : cp::NEIGHBOURS_NESW[position])
        if (q >= 0 && g.complete[q]) worth += reward_worth(cp::NEIGHBOUR_REWARD[g.tile_at[q]]);
    }
    return worth;
  }

  // Table.usefulness: how much a card in hand is worth keeping
  double usefulness(int card) {
    const int colour = cp::CARD_COLOUR[card], value = cp::CARD_VALUE[card];
    if (card == cp::GREEN_CARD) return 3.0;
    if (card == cp::WHITE_1 || card == cp::WHITE_2) return 2.5;
    if (colour == cp::GREY && value < 3) return 2.0;
    if (colour == cp::YELLOW && value < 3) return g.crystals[me] >= 7 ? 2.6 : 1.2;
    if (colour == cp::BROWN && value < 3) return hand[cp::BROWN_1] + hand[cp::BROWN_2] >= 2 ? 1.5 : 0.8;
    const int open = open_tiles(colour);
    return 0.5 + 0.4 * (open < 4 ? open : 4) + 0.2 * value;
  }

  // Table.open_tiles: unfinished tiles with an empty section a card of `colour` could pay
  int open_tiles(int colour) {
    int& known = open_counts_[colour];
    if (known < 0) {
      known = 0;
      for (int position = 0; position < cp::NUM_POSITIONS; ++position) {
        if (g.complete[position]) continue;
        const int tile = g.tile_at[position];
        bool open = false;
        for (int i = 0; i < cp::SECTION_COUNT[tile] && !open; ++i) {
          const int sc = cp::SECTION_COLOUR[tile][i];
          open = (sc == colour || sc == cp::ANY) && g.markers_on[position][i] < 0;
        }
        known += open;
      }
    }
    return known;
  }

  const Game& g;      // the position (read through what seat `me` may know)
  const int me;
  const Counts& hand;  // the seat's own hand

 private:
  // In tile_worth: whether my markers once I fill the `empty` sections are at least any other seat's.
  bool holds_most(const int8_t* markers, int empty) const {
    int tally[kMaxPlayersAll] = {};
    for (int i = 0; i < cp::MAX_SECTIONS; ++i)
      if (markers[i] >= 0) ++tally[markers[i]];
    int others = 0;
    for (int seat = 0; seat < g.n; ++seat)
      if (seat != me && tally[seat] > others) others = tally[seat];
    return tally[me] + empty >= others;
  }

  int8_t coverable_[6][cp::ANY + 1];  // (value, colour or ANY) -> can the hand pay it, -1 unknown
  int open_counts_[cp::NUM_COLOURS];  // colour -> open tiles, -1 unknown
};

// BlueMoonCityHeuristicAgent._move
inline int choose_move(Table& table, const int* legal, int count) {
  const int here = table.here();
  double worth[cp::NUM_POSITIONS];
  for (int p = 0; p < cp::NUM_POSITIONS; ++p) worth[p] = table.tile_worth(p);
  int best_here = -1;  // the first reachable maximum of (worth, -distance)
  for (int i = 0; i < count; ++i) {
    if (legal[i] < cp::MOVE_FIGURE || legal[i] >= cp::SELECT_SECTION) continue;
    const int p = legal[i] - cp::MOVE_FIGURE;
    if (best_here < 0 || worth[p] > worth[best_here] ||
        (worth[p] == worth[best_here] && cp::DISTANCE[here][p] < cp::DISTANCE[here][best_here]))
      best_here = p;
  }
  if (best_here < 0) return -1;
  int best_anywhere = 0;
  for (int p = 1; p < cp::NUM_POSITIONS; ++p)
    if (worth[p] > worth[best_anywhere]) best_anywhere = p;
  if (worth[best_anywhere] > worth[best_here] + GREY_MARGIN) {
    const int allowance = table.g.allowance;
    const int distance = cp::DISTANCE[here][best_anywhere];
    if (contains(legal, count, cp::FLIT_BOOST) && distance <= allowance + cp::BOOST_STEPS) return cp::FLIT_BOOST;
    if (contains(legal, count, cp::FLIT_TELEPORT)) return cp::FLIT_TELEPORT;
  }
  int target = best_here;
  if (worth[target] > 0 && target != cp::COURTYARD_POSITION) {
    // a dragon on the building I pay at brings a scale (worth more than the flight card)
    for (int d = 0; d < 3; ++d) {
      const int fly = cp::DRAGON_MOVE + 42 * d + target;
      if (contains(legal, count, fly)) return fly;
    }
  }
  if (worth[target] <= 0) {  // nothing to do anywhere in reach: the reachable tile nearest the richest
    target = -1;
    for (int i = 0; i < count; ++i) {
      if (legal[i] < cp::MOVE_FIGURE || legal[i] >= cp::SELECT_SECTION) continue;
      const int p = legal[i] - cp::MOVE_FIGURE;
      if (target < 0 || cp::DISTANCE[p][best_anywhere] < cp::DISTANCE[target][best_anywhere]) target = p;
    }
  }
  return cp::MOVE_FIGURE + target;
}

// BlueMoonCityHeuristicAgent._pay's cost of one payment step (colour chosen)
inline double pay_cost(int action, int need) {
  if (cp::ADD_CARD <= action && action < cp::ADD_MIMIX_PAIR) {
    const int x = action - cp::ADD_CARD;
    const int value = x == cp::GREEN_CARD ? 1 : cp::CARD_VALUE[x];
    const int overshoot = value - need > 0 ? value - need : 0;
    double penalty = is_power_card(x) ? POWER_COST : CARD_COST;
    if (x == cp::GREEN_CARD) penalty += 0.3;
    return penalty + 0.5 * overshoot - 0.05 * value;
  }
  if (cp::ADD_MIMIX_PAIR <= action && action < cp::USE_HOAX1) {
    const int overshoot = cp::MIMIX_VALUE - need > 0 ? cp::MIMIX_VALUE - need : 0;
    return 2 * POWER_COST + 0.5 * overshoot;
  }
  return 3 * POWER_COST;  // Hoax: only when nothing else will do
}

// BlueMoonCityHeuristicAgent._pay
inline int choose_pay(const Table& table, const int* legal, int count, Random& rng) {
  const Payment& pay = table.g.payment;
  int options[cp::NUM_ACTIONS];
  double scores[cp::NUM_ACTIONS];
  int size = 0;
  if (pay.colour < 0) {  // a palace section: the colour the hand holds most ordinary value in
    for (int i = 0; i < count; ++i) {
      if (legal[i] < cp::PALACE_COLOR || legal[i] >= cp::ADD_CARD) continue;
      const int c = legal[i] - cp::PALACE_COLOR;
      int score = 0;
      for (int v = 0; v < 3; ++v)
        if (!is_power_card(3 * c + v)) score += table.hand[3 * c + v] * (v + 1);
      options[size] = legal[i];
      scores[size++] = score;
    }
    return best(options, scores, size, rng);
  }
  const int need = pay.value - pay.total;
  for (int i = 0; i < count; ++i) {
    options[i] = legal[i];
    scores[i] = -pay_cost(legal[i], need);
  }
  return best(options, scores, count, rng);
}

// BlueMoonCityHeuristicAgent._discard
inline int choose_discard(Table& table, const int* legal, int count) {
  int worst = -1;
  double worst_use = 0.0;
  for (int i = 0; i < count; ++i) {  // the first minimum of (usefulness, card): cards come ascending
    if (legal[i] < cp::DISCARD || legal[i] >= cp::END_TURN) continue;
    const int card = legal[i] - cp::DISCARD;
    const double use = table.usefulness(card);
    if (worst < 0 || use < worst_use) {
      worst = card;
      worst_use = use;
    }
  }
  if (worst < 0) return -1;
  return worst_use < KEEP_THRESHOLD ? cp::DISCARD + worst : cp::END_TURN;
}

// The first legal id other than `skip`, or -1.
inline int first_other(const int* legal, int count, int skip) {
  for (int i = 0; i < count; ++i)
    if (legal[i] != skip) return legal[i];
  return -1;
}

// The first legal id in [low, high), or -1.
inline int first_in(const int* legal, int count, int low, int high) {
  for (int i = 0; i < count; ++i)
    if (low <= legal[i] && legal[i] < high) return legal[i];
  return -1;
}

}  // namespace heuristic_detail

// BlueMoonCityHeuristicAgent._choose
inline int Game::heuristic(int player, const int* legal, int count, Random& rng) const {
  using namespace heuristic_detail;
  Table table(*this, player);
  int action = -1;
  switch (decision) {
    case kMove: action = choose_move(table, legal, count); break;
    case kBuild: action = first_in(legal, count, cp::SELECT_SECTION, cp::END_CONTRIBUTION); break;
    case kPay: action = choose_pay(table, legal, count, rng); break;
    case kOffer: action = first_other(legal, count, cp::END_CONTRIBUTION); break;  // the normal offering first
    default: action = choose_discard(table, legal, count); break;
  }
  return contains(legal, count, action) ? action : legal[count - 1];
}

}  // namespace city_envs::native::blue_moon_city
