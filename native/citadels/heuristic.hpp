// Citadels's heuristic agent in C++: agents/citadels_heuristic.py (`_choose` and what it calls), the
// same pick with the same draws. It reads only what the seat to move may know (what view.view holds):
// the public table, its own hand, characters, offered sets and known face-down cards, and its own turn.
// Scores are doubles computed in the Python order; ties are drawn as HeuristicAgent._best draws them,
// over the options in the order Python lists them (a set's iteration order where the agent iterates
// one). The agent keeps nothing between decisions. Included at the end of game.hpp.
#pragma once

#include <cstdint>

#include "core/heuristic.hpp"
#include "game.hpp"

namespace city_envs::native::citadels {

namespace heuristic_detail {

// The agent's weights (module constants of agents/citadels_heuristic.py, same names).
inline constexpr double MISSING_TYPE_BONUS = 2.0;
inline constexpr double ASSASSIN_VALUE = 2.5;
inline constexpr double ASSASSIN_VALUE_TWO_PLAYERS = 6.0;
inline constexpr double THIEF_VALUE = 2.5;
inline constexpr double THIEF_VALUE_TWO_PLAYERS = 0.5;
inline constexpr double BISHOP_VALUE = 1.5;
inline constexpr double BISHOP_VALUE_TWO_PLAYERS = 0.5;
inline constexpr int SOON = 4;
inline constexpr double EPS = 1e-9;

// EFFECT_BONUS.get(kind, 0.0)
inline double effect_bonus(int kind) {
  switch (kind) {
    case LIBRARY: return 2.0;
    case LABORATORY: return 1.5;
    case SMITHY: return 1.0;
    case OBSERVATORY: return 1.0;
    case SCHOOL_OF_MAGIC: return 1.5;
    case KEEP: return 1.0;
    case GREAT_WALL: return 0.5;
    case IMPERIAL_TREASURY: return 1.0;
    case MAP_ROOM: return 1.0;
    case HAUNTED_QUARTER: return 1.0;
    default: return 0.0;
  }
}

inline int popcount(int mask) { return __builtin_popcount(static_cast<unsigned>(mask)); }

// HeuristicAgent._best: the option with the highest score, ties within the tolerance drawn from rng
// (no draw when one option leads). count >= 1.
inline int best(const int* options, const double* scores, int count, Random& rng) {
  return options[best_index(scores, count, rng)];
}

// The order CPython 3.11 iterates `set(keys)` for distinct small ints added in the given order
// (setobject.c: hash = the int, linear probes of 9, perturbed steps, resize to 4x used at 3/5 full);
// writes the keys in that order to `out`.
class PySetOrder {
 public:
  static void order(const int* keys, int count, int* out) {
    PySetOrder set;
    for (int i = 0; i < count; ++i) set.add(keys[i]);
    int at = 0;
    for (int i = 0; i <= set.mask_; ++i)
      if (set.table_[i] >= 0) out[at++] = set.table_[i];
  }

 private:
  static constexpr int kLinearProbes = 9;
  static constexpr int kMaxTable = 2048;  // 4 x 376 keys, rounded up to a power of two
  int16_t table_[kMaxTable];
  int mask_ = 7;
  int fill_ = 0;

  PySetOrder() {
    for (int16_t& slot : table_) slot = -1;
  }

  static void insert_clean(int16_t* table, int mask, int key) {
    size_t perturb = static_cast<size_t>(key);
    size_t i = static_cast<size_t>(key) & static_cast<size_t>(mask);
    while (true) {
      if (table[i] < 0) {
        table[i] = static_cast<int16_t>(key);
        return;
      }
      if (i + kLinearProbes <= static_cast<size_t>(mask)) {
        for (size_t j = 1; j <= kLinearProbes; ++j)
          if (table[i + j] < 0) {
            table[i + j] = static_cast<int16_t>(key);
            return;
          }
      }
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & static_cast<size_t>(mask);
    }
  }

  void add(int key) {
    insert_clean(table_, mask_, key);  // keys are distinct: the lookup ends at the same free slot
    ++fill_;
    if (fill_ * 5 < mask_ * 3) return;
    int size = 8;
    while (size <= fill_ * 4) size <<= 1;
    int16_t resized[kMaxTable];
    for (int i = 0; i < size; ++i) resized[i] = -1;
    for (int i = 0; i <= mask_; ++i)
      if (table_[i] >= 0) insert_clean(resized, size - 1, table_[i]);
    for (int i = 0; i < size; ++i) table_[i] = resized[i];
    mask_ = size - 1;
  }
};

// Seat: public facts about one seat, from the view.
struct Seat {
  int index = 0;
  int gold = 0;
  int hand_size = 0;
  double score = 0.0;
  bool complete = false;
  bool city[kNumKinds] = {};
  int size = 0;                // len(city)
  int types[kNumTypes] = {};  // _type_counts(city)
};

// _income: the income of `rank` for a city (0 for a character without income).
inline int income_of(const Seat& seat, int rank) {
  const int type = kIncomeType[rank];
  if (type < 0) return 0;
  return seat.types[type] + (seat.city[SCHOOL_OF_MAGIC] ? 1 : 0);
}

// rank -> {other seat: probability it holds that rank}, in the Python dict's insertion order.
struct Holders {
  int seat[kNumCharacters + 1][2 * kMaxPlayers] = {};
  double p[kNumCharacters + 1][2 * kMaxPlayers] = {};
  int count[kNumCharacters + 1] = {};

  void add(int rank, int who, double x) {
    for (int i = 0; i < count[rank]; ++i)
      if (seat[rank][i] == who) {
        p[rank][i] = p[rank][i] + x;
        return;
      }
    seat[rank][count[rank]] = who;
    p[rank][count[rank]++] = 0.0 + x;
  }
};

// Situation: everything the agent derives from the seat's view, built once per decision.
class Situation {
 public:
  const Game& g;
  int me, n, C;
  Seat seats[kMaxPlayers];
  int hand[kNumKinds] = {};
  int hand_total = 0;
  int gold;
  bool game_ending;
  int my_chars = 0;  // mask
  int face_up;       // mask
  int crown;
  int rank;
  bool my_turn;
  int builds_left = 0;

  Situation(const Game& game, int player)
      : g(game), me(player), n(game.n), C(game.completion), gold(game.gold[player]),
        game_ending(game.game_ending), face_up(game.face_up), crown(game.crown) {
    for (int i = 0; i < n; ++i) {
      Seat& seat = seats[i];
      seat.index = i;
      seat.gold = g.gold[i];
      seat.hand_size = g.hand_size(i);
      seat.score = static_cast<double>(g.score(i));
      seat.complete = g.city_size[i] >= g.completion;
      for (int kind = 0; kind < kNumKinds; ++kind)
        if (g.cities[i][kind]) {
          seat.city[kind] = true;
          ++seat.size;
          ++seat.types[kTypeOf[kind]];
        }
    }
    for (int kind = 0; kind < kNumKinds; ++kind) {
      hand[kind] = g.hands[me][kind];
      hand_total += hand[kind];
    }
    for (int r = 1; r <= kNumCharacters; ++r)
      if (g.holder[r] == me) my_chars |= bit(r);
    my_turn = g.turn_seat == me;
    rank = my_turn ? g.called : 0;
    if (my_turn) builds_left = g.build_limit - g.builds_done;
  }

  const Seat& my() const { return seats[me]; }

  // Situation.buildable: distinct hand kinds not yet in the city, ascending; returns how many.
  int buildable(int* out) const {
    int count = 0;
    for (int k = 0; k < kNumKinds; ++k)
      if (hand[k] && !my().city[k]) out[count++] = k;
    return count;
  }

  // Situation.junk
  int junk(int* out) const {
    int count = 0;
    for (int k = 0; k < kNumKinds; ++k) {
      if (!hand[k]) continue;
      const bool spare = hand[k] > 1 || kCost[k] > gold + 2 * SOON;
      if (my().city[k] || spare) out[count++] = k;
    }
    return count;
  }

  // Situation.build_value
  double build_value(int kind) const {
    double value = static_cast<double>(kPoints[kind]) + effect_bonus(kind);
    int missing = 0;
    for (int t = 0; t < kNumTypes; ++t) missing += my().types[t] == 0 ? 1 : 0;
    const int slots = C - my().size > 0 ? C - my().size : 0;
    if (my().types[kTypeOf[kind]] == 0 && missing <= slots) value += MISSING_TYPE_BONUS;
    return value;
  }

  // Situation.card_value
  double card_value(int kind, int purse) const {
    if (my().city[kind]) return -10.0 + kCost[kind] * 0.01;
    double value = build_value(kind);
    if (hand[kind] > 0) value -= 6.0;
    const int cost = kCost[kind];
    if (cost <= purse + SOON)
      value += 6.0;
    else
      value -= 1.5 * (cost - purse - SOON);
    return value;
  }

  // len(Situation.greedy_builds(purse, limit)) over the buildable kinds
  int greedy_count(int purse, int limit) const {
    int kinds[kNumKinds];
    const int count = buildable(kinds);
    int costs[kNumKinds];
    for (int i = 0; i < count; ++i) costs[i] = kCost[kinds[i]];
    return cheapest_count(costs, count, purse, limit);
  }

  // len(_cheapest_builds(costs, purse, limit))
  static int cheapest_count(int* costs, int count, int purse, int limit) {
    sort_ints(costs, count);
    int chosen = 0;
    for (int i = 0; i < count; ++i) {
      if (chosen >= limit || costs[i] > purse) break;
      ++chosen;
      purse -= costs[i];
    }
    return chosen;
  }

  static void sort_ints(int* values, int count) {
    for (int i = 1; i < count; ++i)
      for (int j = i; j > 0 && values[j - 1] > values[j]; --j) {
        const int swap = values[j];
        values[j] = values[j - 1];
        values[j - 1] = swap;
      }
  }

  int income_now() const { return income_of(my(), rank); }

  // Situation.threat
  double threat(const Seat& seat) const {
    if (n == 2) return 1.0;
    double top = 0.0;
    bool first = true;
    for (int i = 0; i < n; ++i)
      if (i != me && (first || seats[i].score > top)) top = seats[i].score, first = false;
    double weight = 1.0 + (seat.score >= top ? 0.6 : 0.0);
    if (seat.size >= C - 1) weight += 1.0;
    return weight;
  }

  bool near_completion(const Seat& seat) const { return !seat.complete && seat.size >= C - 1; }

  // Situation.holders (built on first use, as the Python memo is)
  const Holders& holders() {
    if (!holders_ready_) {
      holder_probabilities(holders_);
      holders_ready_ = true;
    }
    return holders_;
  }

 private:
  Holders holders_;
  bool holders_ready_ = false;

  // _crown_at_selection
  int crown_at_selection() const {
    const int picks = g.offered_count[me];
    if (g.called == 0 || picks == 0) return g.crown;
    const int size = popcount(g.offered[me][0]);
    int pos = (kNumCharacters - 1 - popcount(g.face_up)) - size;
    if (n == 7 && size == 2 && g.known_facedown[me]) pos = 6;
    return ((me - pos) % n + n) % n;
  }

  // the other seats' picks among steps[start:stop]
  static int pickers(const int (*steps)[2], int start, int stop, int me, int* out) {
    int count = 0;
    for (int i = start; i < stop; ++i)
      if (steps[i][0] != me && steps[i][1] == D_SELECT_CHARACTER) out[count++] = steps[i][0];
    return count;
  }

  void spread(Holders& probs, int ranks, const int* who, int count) const {
    const int size = popcount(ranks);
    for (int r = 1; r <= kNumCharacters; ++r)
      if (ranks & bit(r))
        for (int i = 0; i < count; ++i) probs.add(r, who[i], 1.0 / size);
  }

  // _holder_probabilities
  void holder_probabilities(Holders& probs) const {
    int steps[kMaxSteps][2];
    const int num_steps = Game::selection_steps(n, crown_at_selection(), steps);
    const int mine = my_chars, known_down = g.known_facedown[me];
    int pile = kAllRanks & ~g.face_up;
    int my_picks[kMaxSteps];
    int num_picks = 0;
    for (int i = 0; i < num_steps; ++i)
      if (steps[i][0] == me && steps[i][1] == D_SELECT_CHARACTER) my_picks[num_picks++] = i;
    int start = 0;
    int who[kMaxSteps];
    for (int j = 0; j < g.offered_count[me]; ++j) {
      if (j >= num_picks) break;
      const int offered = g.offered[me][j];
      const int stop = my_picks[j];
      spread(probs, pile & ~offered, who, pickers(steps, start, stop, me, who));
      pile = offered & ~mine & ~known_down;
      start = stop + 1;
    }
    spread(probs, pile & ~mine & ~known_down, who, pickers(steps, start, num_steps, me, who));
    for (int r = 1; r <= kNumCharacters; ++r) {
      if ((mine | known_down | g.face_up) & bit(r)) {
        probs.count[r] = 0;
      } else if (g.revealed[r] >= 0) {
        const int seat = g.revealed[r];
        probs.count[r] = 0;
        if (seat != me) probs.add(r, seat, 1.0);
      } else if (r < g.called && r != g.killed) {
        probs.count[r] = 0;
      } else {
        double total = 0.0;
        for (int i = 0; i < probs.count[r]; ++i) total += probs.p[r][i];
        if (total > 1.0)
          for (int i = 0; i < probs.count[r]; ++i) probs.p[r][i] = probs.p[r][i] / total;
      }
    }
  }
};

// ----- values shared by selection and the abilities ---------------------------------------------
// Holding: a seat that would hold a character this round, as character_value weighs it.
struct Holding {
  const Situation& sit;
  const Seat& seat;
  int costs[kNumKinds + kDeckSize];
  int num_costs = 0;
  bool mine;

  Holding(const Situation& s, const Seat& who) : sit(s), seat(who), mine(who.index == s.me) {
    if (mine) {
      int kinds[kNumKinds];
      num_costs = sit.buildable(kinds);
      for (int i = 0; i < num_costs; ++i) costs[i] = kCost[kinds[i]];
      Situation::sort_ints(costs, num_costs);
    } else {  // unknown hand: assume it holds ordinary cards
      num_costs = seat.hand_size < kNumKinds + kDeckSize ? seat.hand_size : kNumKinds + kDeckSize;
      for (int i = 0; i < num_costs; ++i) costs[i] = 3;
    }
  }

  // max(s.gold / s.hand_size / s.score for s in others)
  int max_other_gold() const {
    int top = -1;
    for (int i = 0; i < sit.n; ++i)
      if (i != seat.index && sit.seats[i].gold > top) top = sit.seats[i].gold;
    return top;
  }
  int max_other_hand() const {
    int top = -1;
    for (int i = 0; i < sit.n; ++i)
      if (i != seat.index && sit.seats[i].hand_size > top) top = sit.seats[i].hand_size;
    return top;
  }
  double max_other_score() const {
    double top = 0.0;
    bool first = true;
    for (int i = 0; i < sit.n; ++i)
      if (i != seat.index && (first || sit.seats[i].score > top)) top = sit.seats[i].score, first = false;
    return top;
  }
};

inline double assassin_value(const Holding& h, double value) {
  return value + (h.sit.n == 2 ? ASSASSIN_VALUE_TWO_PLAYERS : ASSASSIN_VALUE);
}

inline double thief_value(const Holding& h, double value) {
  const double base = h.sit.n == 2 ? THIEF_VALUE_TWO_PLAYERS : THIEF_VALUE;
  return value + (base + 0.4 * h.max_other_gold());
}

inline double magician_value(const Holding& h, double value) {
  int useful = 0;
  for (int i = 0; i < h.num_costs; ++i) useful += h.costs[i] <= h.seat.gold + SOON ? 1 : 0;
  const int most = h.max_other_hand();
  if (useful <= 1 && most >= 3) return value + 0.6 * (most - h.num_costs);
  if (h.mine) {
    int junk[kNumKinds];
    return value + 0.3 * h.sit.junk(junk);
  }
  return value;
}

inline double king_value(const Holding& h, double value) {
  return value + (1.0 + (h.sit.crown != h.seat.index ? 1.0 : 0.3));
}

inline double bishop_value(const Holding& h, double value) {
  value += h.sit.n == 2 ? BISHOP_VALUE_TWO_PLAYERS : BISHOP_VALUE;
  if (!(h.sit.face_up & bit(WARLORD))) value += 0.15 * h.seat.size;
  return value;
}

inline double merchant_value(const Holding& h, double value) {
  const bool short_of_gold = h.num_costs > 0 && h.costs[0] > h.seat.gold + 2;
  return value + (1.5 + MERCHANT_BONUS_GOLD * (short_of_gold ? 0.5 : 0.0));
}

inline double architect_value(const Holding& h, double value) {
  value += 1.0;
  int costs[kNumKinds + kDeckSize];
  for (int i = 0; i < h.num_costs; ++i) costs[i] = h.costs[i];
  const int extra =
      Situation::cheapest_count(costs, h.num_costs, h.seat.gold + GATHER_GOLD_AMOUNT, ARCHITECT_BUILD_LIMIT) - 1;
  value += 2.0 * (extra > 0 ? extra : 0);
  if (h.seat.size + extra + 1 >= h.sit.C && extra > 0) value += 3.0;
  return value;
}

inline double warlord_value(const Holding& h, double value) {
  value += 0.5;
  for (int i = 0; i < h.sit.n; ++i) {
    if (i == h.seat.index) continue;
    const Seat& other = h.sit.seats[i];
    if (other.complete) continue;
    int cheapest = -1;
    for (int k = 0; k < kNumKinds; ++k)
      if (other.city[k] && k != KEEP && (cheapest < 0 || kCost[k] < cheapest)) cheapest = kCost[k];
    if (cheapest < 0 || cheapest - 1 > h.seat.gold + GATHER_GOLD_AMOUNT) continue;
    if (h.sit.near_completion(other))
      value += 3.0;
    else if (other.score >= h.max_other_score())
      value += 0.5;
  }
  return value;
}

// ABILITY_VALUE[rank]
inline double ability_value(const Holding& h, int rank, double value) {
  switch (rank) {
    case ASSASSIN: return assassin_value(h, value);
    case THIEF: return thief_value(h, value);
    case MAGICIAN: return magician_value(h, value);
    case KING: return king_value(h, value);
    case BISHOP: return bishop_value(h, value);
    case MERCHANT: return merchant_value(h, value);
    case ARCHITECT: return architect_value(h, value);
    case WARLORD: return warlord_value(h, value);
    default: return value;
  }
}

// _endgame_value
inline double endgame_value(const Holding& h, int rank, double value) {
  const Situation& sit = h.sit;
  const Seat& seat = h.seat;
  if (sit.near_completion(seat) || (seat.size >= sit.C - 2 && rank == ARCHITECT)) {
    if (rank == BISHOP && !(sit.face_up & bit(WARLORD)))
      value += 3.0;
    else if (rank == WARLORD || rank == ASSASSIN)
      value += 1.5;
  }
  bool rival_near = false;
  for (int i = 0; i < sit.n; ++i)
    if (i != seat.index && sit.near_completion(sit.seats[i])) rival_near = true;
  if (rival_near) {
    if (rank == WARLORD)
      value += 1.5;
    else if (rank == ASSASSIN)
      value += 2.0;
  }
  return value;
}

// character_value
inline double character_value(const Situation& sit, int rank, const Seat& seat) {
  const Holding holding(sit, seat);
  double value = 0.0;
  if (kIncomeType[rank] >= 0) value += income_of(seat, rank);
  value = ability_value(holding, rank, value);
  return endgame_value(holding, rank, value);
}

// kill_value
inline double kill_value(Situation& sit, int rank) {
  const Holders& probs = sit.holders();
  double total = 0.0;
  for (int i = 0; i < probs.count[rank]; ++i) {
    const int index = probs.seat[rank][i];
    const double p = probs.p[rank][i];
    if (index == sit.me || p <= 0) continue;
    const Seat& seat = sit.seats[index];
    double worth = 3.0 + income_of(seat, rank);
    if (rank == ARCHITECT) {
      worth += 1.0 + 0.7 * (seat.hand_size < 4 ? seat.hand_size : 4);
    } else if (rank == MERCHANT) {
      worth += MERCHANT_BONUS_GOLD;
    } else if (rank == KING) {
      worth += 0.5;
    } else if (rank == WARLORD) {
      double top = 0.0;
      bool first = true;
      for (int o = 0; o < sit.n; ++o)
        if (o != sit.me && (first || sit.seats[o].score > top)) top = sit.seats[o].score, first = false;
      worth += sit.my().score >= top ? 1.5 : 0.5;
    } else if (rank == THIEF) {
      worth += 0.5 * sit.gold;
    } else if (rank == BISHOP && (sit.my_chars & bit(WARLORD))) {
      worth += 1.5;
    }
    if (sit.near_completion(seat)) worth += 2.0;
    total += p * worth * sit.threat(seat);
  }
  return total + 0.01 * rank / kNumCharacters;
}

// rob_value
inline double rob_value(Situation& sit, int rank) {
  const Holders& probs = sit.holders();
  double total = 0.0;
  for (int i = 0; i < probs.count[rank]; ++i) {
    const int index = probs.seat[rank][i];
    if (index == sit.me) continue;
    total += probs.p[rank][i] * (sit.seats[index].gold + 0.5);
  }
  return total;
}

// CitadelsHeuristicAgent: its decisions over one Situation, the legal ids and the agent's generator.
class Agent {
 public:
  Agent(Situation& situation, const int* legal, int count, Random& generator)
      : sit(situation), legal_(legal), count_(count), rng(generator) {
    for (int i = 0; i < count; ++i) allowed_[legal[i]] = true;
  }

  // _choose
  int choose() {
    int action;
    switch (sit.g.decision) {
      case D_SELECT_CHARACTER: action = select(); break;
      case D_SELECT_DISCARD: action = discard_character(); break;
      case D_KEEP_DRAWN: action = keep_drawn(); break;
      case D_MAGICIAN_DISCARD: action = magician_discard(); break;
      case D_GRAVEYARD: action = graveyard(); break;
      default: action = main_turn(); break;
    }
    if (!allowed(action)) action = fallback();
    return action;
  }

 private:
  Situation& sit;
  const int* legal_;
  int count_;
  Random& rng;
  bool allowed_[A_NUM_ACTIONS] = {};

  bool allowed(int action) const { return action >= 0 && action < A_NUM_ACTIONS && allowed_[action]; }

  // the legal ids in [low, high), ascending (sorted(allowed) filtered); returns how many
  int legal_in(int low, int high, int* out) const {
    int count = 0;
    for (int i = 0; i < count_; ++i)
      if (legal_[i] >= low && legal_[i] < high) out[count++] = legal_[i];
    return count;
  }

  // _best over kinds scored by -card_value(kind, gold)
  int weakest_card(const int* kinds, int count) {
    double scores[kNumKinds];
    for (int i = 0; i < count; ++i) scores[i] = -sit.card_value(kinds[i], sit.gold);
    return best(kinds, scores, count, rng);
  }

  // _fallback
  int fallback() {
    for (int preferred : {A_END_TURN, A_GATHER_GOLD, A_MAGICIAN_DONE, A_GRAVEYARD_DECLINE})
      if (allowed(preferred)) return preferred;
    double scores[A_NUM_ACTIONS] = {};
    return best(legal_, scores, count_, rng);
  }

  // _select
  int select() {
    double scores[A_NUM_ACTIONS];
    for (int i = 0; i < count_; ++i)
      scores[i] = character_value(sit, legal_[i] - A_PICK_CHARACTER + 1, sit.my());
    return best(legal_, scores, count_, rng);
  }

  // _discard_character: 2 players, put face down what the opponent wants most
  int discard_character() {
    const Seat& opponent = sit.seats[1 - sit.me];
    double scores[A_NUM_ACTIONS];
    for (int i = 0; i < count_; ++i) {
      const int rank = legal_[i] - A_DISCARD_CHARACTER + 1;
      scores[i] = character_value(sit, rank, opponent) - 0.3 * character_value(sit, rank, sit.my());
    }
    return best(legal_, scores, count_, rng);
  }

  // _keep_drawn
  int keep_drawn() {
    double scores[A_NUM_ACTIONS];
    for (int i = 0; i < count_; ++i) {
      const int kind = legal_[i] - A_KEEP_DRAWN;
      scores[i] = sit.card_value(kind, sit.gold);
      if (sit.game_ending) scores[i] = scores[i] + (kCost[kind] <= sit.gold ? 20.0 : 0.0);
    }
    return best(legal_, scores, count_, rng);
  }

  // _assassinate / _rob
  int target(int first, bool kill) {
    int options[kNumCharacters];
    const int count = legal_in(first, first + kNumCharacters, options);
    double scores[kNumCharacters];
    for (int i = 0; i < count; ++i)
      scores[i] = kill ? kill_value(sit, options[i] - first + 1) : rob_value(sit, options[i] - first + 1);
    return best(options, scores, count, rng);
  }

  // _magician: -1 for None
  int magician() {
    int kinds[kNumKinds];
    const int num_buildable = sit.buildable(kinds);
    int useful = 0;
    for (int i = 0; i < num_buildable; ++i) useful += kCost[kinds[i]] <= sit.gold + SOON + 2 ? 1 : 0;
    int swaps[kMaxPlayers];
    const int num_swaps = legal_in(A_MAGICIAN_SWAP, A_MAGICIAN_MARK, swaps);
    if (num_swaps > 0 && (sit.hand_total <= 1 || useful <= 1)) {
      double scores[kMaxPlayers];
      for (int i = 0; i < num_swaps; ++i) {
        const Seat& seat = sit.seats[(sit.me + swaps[i] - A_MAGICIAN_SWAP + 1) % sit.n];
        scores[i] = seat.hand_size + 0.01 * sit.threat(seat);
      }
      const int chosen = best(swaps, scores, num_swaps, rng);
      const Seat& seat = sit.seats[(sit.me + chosen - A_MAGICIAN_SWAP + 1) % sit.n];
      const int enough = sit.hand_total + 2 > 3 ? sit.hand_total + 2 : 3;
      if (seat.hand_size >= enough) return chosen;
    }
    const int num_junk = sit.junk(kinds);
    if (num_junk > 0) return A_MAGICIAN_MARK + weakest_card(kinds, num_junk);
    return -1;
  }

  // _magician_discard
  int magician_discard() {
    int junk[kNumKinds];
    const int all = sit.junk(junk);
    int count = 0;
    for (int i = 0; i < all; ++i)
      if (allowed(A_MAGICIAN_MARK + junk[i])) junk[count++] = junk[i];
    if (count > 0) return A_MAGICIAN_MARK + weakest_card(junk, count);
    return A_MAGICIAN_DONE;
  }

  // _laboratory: -1 for None
  int laboratory() {
    bool option[kNumKinds] = {};
    int options = 0;
    for (int k = 0; k < kNumKinds; ++k)
      if (allowed(A_LAB_DISCARD + k)) option[k] = true, ++options;
    if (options == 0) return -1;
    int junk[kNumKinds];
    const int all = sit.junk(junk);
    int count = 0;
    for (int i = 0; i < all; ++i)
      if (option[junk[i]]) junk[count++] = junk[i];
    if (count == 0 && sit.hand_total >= 4)
      for (int k = 0; k < kNumKinds; ++k)
        if (option[k]) junk[count++] = k;
    if (count == 0) return -1;
    return A_LAB_DISCARD + weakest_card(junk, count);
  }

  // _graveyard
  int graveyard() const {
    const int kind = sit.g.graveyard_card;
    if (kind >= 0 && !sit.my().city[kind] && kCost[kind] >= 2 && allowed(A_GRAVEYARD_RECOVER))
      return A_GRAVEYARD_RECOVER;
    return A_GRAVEYARD_DECLINE;
  }

  // _gather
  int gather() const {
    if (!allowed(A_GATHER_CARDS)) return A_GATHER_GOLD;
    int kinds[kNumKinds];
    const int num_buildable = sit.buildable(kinds);
    if (num_buildable == 0) return A_GATHER_CARDS;
    const int purse = sit.gold + sit.income_now() * (sit.g.income_done ? 0 : 1);
    int cheapest = kCost[kinds[0]];
    for (int i = 1; i < num_buildable; ++i) cheapest = kCost[kinds[i]] < cheapest ? kCost[kinds[i]] : cheapest;
    if (cheapest > purse + SOON) return A_GATHER_CARDS;
    if (sit.game_ending)
      return sit.greedy_count(purse + GATHER_GOLD_AMOUNT, sit.builds_left) > 0 ? A_GATHER_GOLD : A_GATHER_CARDS;
    const int now = sit.greedy_count(purse, sit.builds_left);
    if (now > 0 && now == num_buildable) return A_GATHER_CARDS;
    return A_GATHER_GOLD;
  }

  // _destroy: -1 for None
  int destroy() const {
    const bool last_round = sit.game_ending && !sit.my().city[IMPERIAL_TREASURY];
    int spare;
    if (last_round) {
      spare = sit.gold;
    } else {
      int kinds[kNumKinds];
      const int num_buildable = sit.buildable(kinds);
      int reserve = 0;
      if (num_buildable > 0) {
        int cheapest = kCost[kinds[0]];
        for (int i = 1; i < num_buildable; ++i) cheapest = kCost[kinds[i]] < cheapest ? kCost[kinds[i]] : cheapest;
        reserve = cheapest - GATHER_GOLD_AMOUNT > 0 ? cheapest - GATHER_GOLD_AMOUNT : 0;
      }
      spare = sit.gold - reserve;
    }
    const double gold_worth = last_round ? 0.0 : 1.0;
    int best_action = -1;
    double best_value = 0.0;
    for (int i = 0; i < count_; ++i) {
      const int a = legal_[i];
      if (a < A_DESTROY || a >= A_BUILD) continue;
      const int offset = (a - A_DESTROY) / kNumKinds, kind = (a - A_DESTROY) % kNumKinds;
      if (offset == 0) continue;
      const Seat& seat = sit.seats[(sit.me + offset) % sit.n];
      const int price =
          kCost[kind] - 1 + (kind != GREAT_WALL && seat.city[GREAT_WALL] ? GREAT_WALL_SURCHARGE : 0);
      if (price > spare) continue;
      double loss = static_cast<double>(kPoints[kind]);
      bool all_types = true;
      for (int t = 0; t < kNumTypes; ++t) all_types = all_types && seat.types[t] != 0;
      if (seat.types[kTypeOf[kind]] == 1 && all_types) loss += FIVE_TYPES_BONUS;
      if (sit.near_completion(seat)) loss += 4.0;
      const double value = loss * sit.threat(seat) * (sit.n == 2 ? 1.0 : 0.6) - price * gold_worth;
      if (value > best_value + EPS) best_action = a, best_value = value;
    }
    return best_action;
  }

  // the builds part of _main: -1 when it picks nothing
  int build_step() {
    const bool income_open = allowed(A_COLLECT_INCOME);
    int in_order[A_NUM_ACTIONS];
    PySetOrder::order(legal_, count_, in_order);  // `allowed` is a set: its iteration order
    int builds[kNumKinds];
    int num_builds = 0;
    for (int i = 0; i < count_; ++i)
      if (in_order[i] >= A_BUILD && in_order[i] < A_BUILD + kNumKinds) builds[num_builds++] = in_order[i] - A_BUILD;
    double values[kNumKinds];
    double best_now = 0.0;
    for (int i = 0; i < num_builds; ++i) {
      values[i] = sit.build_value(builds[i]);
      if (i == 0 || values[i] > best_now) best_now = values[i];
    }
    if (income_open) {
      const int purse = sit.gold + sit.income_now();
      int kinds[kNumKinds];
      const int num_buildable = sit.buildable(kinds);
      bool any_later = false;
      double best_later = 0.0;
      for (int i = 0; i < num_buildable; ++i) {
        if (kCost[kinds[i]] > purse) continue;
        const double value = sit.build_value(kinds[i]);
        if (!any_later || value > best_later) best_later = value;
        any_later = true;
      }
      if (any_later && (num_builds == 0 || best_later > best_now + EPS)) return A_COLLECT_INCOME;
    }
    if (num_builds > 0) return A_BUILD + best(builds, values, num_builds, rng);
    if (allowed(A_USE_SMITHY) && sit.gold >= SMITHY_PRICE + 2) return A_USE_SMITHY;
    return -1;
  }

  // _main
  int main_turn() {
    const int rank = sit.rank;
    if (rank == ASSASSIN && any_legal(A_ASSASSINATE)) return target(A_ASSASSINATE, true);
    if (rank == THIEF && any_legal(A_ROB)) return target(A_ROB, false);
    if (rank == MAGICIAN && !sit.g.ability_used) {
      const int action = magician();
      if (action >= 0) return action;
    }
    const int lab = laboratory();
    if (lab >= 0) return lab;
    if (!sit.g.gathered) return gather();
    if (sit.builds_left > 0) {
      const int action = build_step();
      if (action >= 0) return action;
    }
    if (allowed(A_COLLECT_INCOME)) return A_COLLECT_INCOME;
    const int wreck = destroy();
    if (wreck >= 0) return wreck;
    int kinds[kNumKinds];
    if (allowed(A_USE_SMITHY) && sit.buildable(kinds) <= 1 && sit.gold >= SMITHY_PRICE + 2) return A_USE_SMITHY;
    return allowed(A_END_TURN) ? A_END_TURN : fallback();
  }

  bool any_legal(int first) const {
    for (int r = 0; r < kNumCharacters; ++r)
      if (allowed(first + r)) return true;
    return false;
  }
};

}  // namespace heuristic_detail

// Game::heuristic: the pick of agents/citadels_heuristic.py for `player` among `count` >= 2 legal ids.
inline int Game::heuristic(int player, const int* legal, int count, Random& rng) const {
  heuristic_detail::Situation sit(*this, player);
  heuristic_detail::Agent agent(sit, legal, count, rng);
  return agent.choose();
}

}  // namespace city_envs::native::citadels
