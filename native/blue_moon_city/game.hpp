// Blue Moon City, the native engine: the C++ twin of city_envs/blue_moon_city (rules.py, view.py,
// game.py). Every function mirrors the Python function it names and draws chance in the same order.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/game.hpp"
#include "components.hpp"

namespace city_envs::native::blue_moon_city {

// rules.Decision and rules.GAME_OVER
enum DecisionKind : int { kMove = 0, kBuild = 1, kPay = 2, kOffer = 3, kDiscard = 4, kGameOver = -1 };
inline constexpr int NO_COLOUR = -1;
inline constexpr int kMaxPlayersAll = 4;
inline constexpr int kNoCost = 1000000;  // offer_cost once the obelisk is full (10**6)

using Counts = std::array<uint8_t, cp::NUM_TYPES>;  // cards per type
using Caps = std::array<uint8_t, cp::NUM_COLOURS>;   // Hoax-1 capacity per source colour

// ===== payments (rules.can_finish and its helpers) ==============================================

// rules._quick_answer: 1 true, 0 false, -1 undecided without a search.
inline int quick_answer(int need, int colour, const Counts& hand, const Caps& cap1, int cap_any) {
  if (need <= 0) return 1;
  int own = hand[cp::GREEN_CARD];
  if (0 <= colour && colour < cp::NUM_COLOURS)
    own += hand[3 * colour] + 2 * hand[3 * colour + 1] + 3 * hand[3 * colour + 2];
  if (own >= need) return 1;
  const int brown_1 = hand[cp::BROWN_1], brown_2 = hand[cp::BROWN_2];
  bool any_cap1 = false;
  for (int c = 0; c < cp::NUM_COLOURS; ++c) any_cap1 = any_cap1 || cap1[c] != 0;
  if (!(cap_any || hand[cp::WHITE_1] || hand[cp::WHITE_2] || any_cap1)) {
    const int pairs = colour == cp::BROWN ? brown_1 / 2 : cp::MIMIX_VALUE * ((brown_1 + brown_2) / 2);
    return own + pairs >= need ? 1 : 0;
  }
  int total = 0;
  for (int x = 0; x < cp::NUM_TYPES; ++x) total += hand[x] * cp::CARD_VALUE[x];
  if (total + brown_1 / 2 < need) return 0;
  return -1;
}

// rules._hoax1_sources: whether colour c (not T, held, not green) may be recoloured by a White 1.
inline bool hoax1_source(const Counts& hand, int colour, int c) {
  return c != colour && (hand[3 * c] || hand[3 * c + 1] || hand[3 * c + 2]);
}

// rules._has_foreign_card
inline bool has_foreign_card(const Counts& hand, int colour) {
  for (int x = 0; x < cp::NUM_TYPES; ++x)
    if (hand[x] && cp::CARD_COLOUR[x] != colour && cp::CARD_COLOUR[x] != cp::GREEN) return true;
  return false;
}

// rules.can_finish's exact search, memoized per top-level call in a small fixed table (the Python
// lru_cache; the memo only saves time, the answer is the search's).
class PaymentSearch {
 public:
  explicit PaymentSearch(int colour) : colour_(colour) { std::memset(used_, 0, sizeof used_); }

  bool can_finish(int need, const Counts& hand, const Caps& cap1, int cap_any) {
    const int quick = quick_answer(need, colour_, hand, cap1, cap_any);
    if (quick >= 0) return quick == 1;
    Key key;
    std::memset(&key, 0, sizeof key);
    key.need = static_cast<int8_t>(need);
    key.cap_any = static_cast<uint8_t>(cap_any);
    std::memcpy(key.cap1, cap1.data(), sizeof key.cap1);
    std::memcpy(key.hand, hand.data(), sizeof key.hand);
    int slot = -1;
    const uint64_t hash = key_hash(key);
    for (int probe = 0; probe < kProbes; ++probe) {
      const int at = static_cast<int>((hash + static_cast<uint64_t>(probe)) & (kSlots - 1));
      if (!is_used(at)) {
        slot = at;
        break;
      }
      if (std::memcmp(&keys_[at], &key, sizeof key) == 0) return results_[at] != 0;
    }
    const bool result = search(need, hand, cap1, cap_any);
    if (slot >= 0) {
      keys_[slot] = key;
      results_[slot] = result ? 1 : 0;
      used_[slot / 64] |= uint64_t{1} << (slot % 64);
    }
    return result;
  }

 private:
  struct Key {
    int8_t need;
    uint8_t cap_any;
    uint8_t cap1[cp::NUM_COLOURS];
    uint8_t hand[cp::NUM_TYPES];
  };
  static constexpr int kSlots = 512;
  static constexpr int kProbes = 8;

  static uint64_t key_hash(const Key& key) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(&key);
    uint64_t hash = 1469598103934665603ULL;
    for (size_t i = 0; i < sizeof key; ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
    return hash ^ (hash >> 29);
  }
  bool is_used(int slot) const { return (used_[slot / 64] >> (slot % 64)) & 1U; }

  static Counts without(const Counts& hand, int x) {
    Counts rest = hand;
    --rest[x];
    return rest;
  }
  static Caps bump(const Caps& caps, int c, int delta) {
    Caps out = caps;
    out[c] = static_cast<uint8_t>(out[c] + delta);
    return out;
  }

  // The body of rules.can_finish after the quick answer.
  bool search(int need, const Counts& hand, const Caps& cap1, int cap_any) {
    const int colour = colour_;
    for (int x = 0; x < cp::NUM_TYPES; ++x) {
      if (!hand[x]) continue;
      const int c = cp::CARD_COLOUR[x];
      if (x == cp::GREEN_CARD) {
        if (can_finish(need - 1, without(hand, x), cap1, cap_any)) return true;
      } else if (c == colour) {
        if (can_finish(need - cp::CARD_VALUE[x], without(hand, x), cap1, cap_any)) return true;
      } else if (cap1[c] > 0) {
        if (can_finish(need - cp::CARD_VALUE[x], without(hand, x), bump(cap1, c, -1), cap_any)) return true;
      } else if (cap_any > 0 && can_finish(need - cp::CARD_VALUE[x], without(hand, x), cap1, cap_any - 1)) {
        return true;
      }
    }
    for (const auto& pair : cp::MIMIX_PAIRS) {
      const int a = pair[0], b = pair[1];
      const bool ok = hand[a] && hand[b] && (a != b || hand[a] >= 2);
      if (ok && can_finish(need - cp::MIMIX_VALUE, without(without(hand, a), b), cap1, cap_any)) return true;
    }
    if (hand[cp::WHITE_1]) {
      const Counts rest = without(hand, cp::WHITE_1);
      for (int c = 0; c < cp::NUM_COLOURS; ++c)
        if (hoax1_source(rest, colour, c) && can_finish(need, rest, bump(cap1, c, cp::HOAX1_CAPACITY), cap_any))
          return true;
    }
    if (hand[cp::WHITE_2]) {
      const Counts rest = without(hand, cp::WHITE_2);
      if (has_foreign_card(rest, colour) && can_finish(need, rest, cap1, cap_any + 1)) return true;
    }
    return false;
  }

  int colour_;
  uint64_t used_[kSlots / 64];
  Key keys_[kSlots];
  uint8_t results_[kSlots];
};

// rules.can_finish
inline bool can_finish(int need, int colour, const Counts& hand, const Caps& cap1, int cap_any) {
  const int quick = quick_answer(need, colour, hand, cap1, cap_any);
  if (quick >= 0) return quick == 1;
  PaymentSearch search(colour);
  return search.can_finish(need, hand, cap1, cap_any);
}

// rules.Payment
struct Payment {
  int section = 0;
  int value = 0;
  int colour = NO_COLOUR;
  int total = 0;
  int cap1[cp::NUM_COLOURS] = {};
  int cap_any = 0;
  int committed[cp::NUM_TYPES] = {};
};

// One step of a payment (an entry of rules._pay_outcomes).
struct PayOutcome {
  int added;
  Counts rest;
  Caps cap1;
  int cap_any;
};

// ===== the game ================================================================================
struct Game {
  static constexpr const char* kName = "blue_moon_city";
  static constexpr int kNumActions = cp::NUM_ACTIONS;
  static constexpr int kObservationSize = cp::OBS_SIZE;
  static constexpr int kMinPlayers = 2;
  static constexpr int kMaxPlayers = kMaxPlayersAll;

  // options
  bool center_fixed = true;
  int64_t max_rounds = 100;

  // rules.State
  int n = 2;
  int8_t tile_at[cp::NUM_POSITIONS] = {};
  bool complete[cp::NUM_POSITIONS] = {};
  int8_t markers_on[cp::NUM_POSITIONS][cp::MAX_SECTIONS] = {};
  int8_t dragons[3] = {};
  int8_t figures[kMaxPlayersAll] = {};
  Counts hands[kMaxPlayersAll] = {};
  uint8_t deck[cp::DECK_SIZE] = {};  // the end is the top
  int deck_size = 0;
  int discard[cp::NUM_TYPES] = {};
  int crystals[kMaxPlayersAll] = {};
  int scales[kMaxPlayersAll] = {};
  int scale_supply = 0;
  int offerings[kMaxPlayersAll] = {};
  int markers[kMaxPlayersAll] = {};
  int8_t obelisk[cp::MAX_OBELISK] = {};
  int obelisk_size = 0;
  uint8_t pending[cp::DECK_SIZE] = {};
  int pending_size = 0;
  int active = 0;
  int decision = kMove;
  int allowance = cp::START_ALLOWANCE;
  bool teleport = false;
  bool scales_claimed = false;
  int offers_this_turn = 0;
  int discards = 0;
  bool has_payment = false;
  Payment payment;
  int turns = 0;
  int last_completion_turn = -1;
  int8_t winners_list[kMaxPlayersAll] = {};
  int winners_size = 0;
  bool truncated = false;

  // ----- setup (rules.new_state) -------------------------------------------------------------
  void read_options(const json::Value& options) {
    const std::string& center = options.at("center").as_string("options.center");
    if (center != "fixed" && center != "random")
      throw std::invalid_argument("options.center must be 'fixed' or 'random'");
    center_fixed = center == "fixed";
    max_rounds = options.at("max_rounds").as_int("options.max_rounds", 1, INT64_MAX);
  }

  void setup(int num_players, const json::Value& options, Random& chance) {
    read_options(options);
    *this = fresh(num_players, center_fixed, max_rounds);
    int tiles[cp::NUM_TILES], positions[cp::NUM_POSITIONS], count = 0;
    if (center_fixed) {
      for (int i = 0; i < 5; ++i) tile_at[cp::FIXED_CENTRE_POSITION[i]] = static_cast<int8_t>(cp::FIXED_CENTRE_TILE[i]);
      for (int t = 0; t < cp::NUM_TILES; ++t) {
        bool fixed = false;
        for (int i = 0; i < 5; ++i) fixed = fixed || cp::FIXED_CENTRE_TILE[i] == t;
        if (!fixed) tiles[count++] = t;
      }
      for (int i = 0; i < count; ++i) positions[i] = cp::SHUFFLED_POSITIONS[i];
    } else {
      for (int t = 1; t < cp::NUM_TILES; ++t) tiles[count++] = t;
      int k = 0;
      for (int q = 0; q < cp::NUM_POSITIONS; ++q)
        if (q != cp::COURTYARD_POSITION) positions[k++] = q;
    }
    const std::vector<int64_t> order = chance.permutation(count);
    for (int i = 0; i < count; ++i) tile_at[positions[i]] = static_cast<int8_t>(tiles[order[static_cast<size_t>(i)]]);
    uint8_t sorted[cp::DECK_SIZE];
    int size = 0;
    for (int t = 0; t < cp::NUM_TYPES; ++t)
      for (int k = 0; k < cp::CARD_COPIES[t]; ++k) sorted[size++] = static_cast<uint8_t>(t);
    const std::vector<int64_t> shuffle = chance.permutation(size);
    for (int i = 0; i < size; ++i) deck[i] = sorted[shuffle[static_cast<size_t>(i)]];
    deck_size = size;
    for (int seat = 0; seat < n; ++seat)
      for (int k = 0; k < cp::STARTING_HAND; ++k) ++hands[seat][deck[--deck_size]];
  }

  // A state as rules.new_state builds it before the chance draws.
  static Game fresh(int num_players, bool fixed, int64_t rounds) {
    Game g;
    g.center_fixed = fixed;
    g.max_rounds = rounds;
    g.n = num_players;
    for (auto& row : g.markers_on)
      for (auto& seat : row) seat = -1;
    for (auto& d : g.dragons) d = cp::OFF_BOARD;
    for (int seat = 0; seat < num_players; ++seat) {
      g.figures[seat] = cp::COURTYARD_POSITION;
      g.markers[seat] = cp::MARKERS;
    }
    g.scale_supply = cp::SCALES_IN_PLAY[num_players];
    return g;
  }

  // ----- the contract's queries ------------------------------------------------------------
  int current_player() const { return active; }
  bool is_over() const { return decision == kGameOver; }
  bool is_truncated() const { return truncated; }
  const char* decision_name() const {
    static constexpr const char* kNames[5] = {"MOVE", "BUILD", "PAY", "OFFER", "DISCARD"};
    return decision >= 0 ? kNames[decision] : "GAME_OVER";
  }

  // BlueMoonCity.scores: offerings made
  void scores(double* out) const {
    for (int seat = 0; seat < n; ++seat) out[seat] = offerings[seat];
  }
  // BlueMoonCity.winners
  void winners(std::vector<int>& out) const {
    out.clear();
    if (is_over()) {
      for (int i = 0; i < winners_size; ++i) out.push_back(winners_list[i]);
      return;
    }
    int8_t seats[kMaxPlayersAll];
    const int count = ranking_winners(seats);
    for (int i = 0; i < count; ++i) out.push_back(seats[i]);
  }
  // rules.standing_keys: offerings, then crystals
  void standings(std::vector<double>& out, int& width) const {
    width = 2;
    out.clear();
    for (int seat = 0; seat < n; ++seat) {
      out.push_back(offerings[seat]);
      out.push_back(crystals[seat]);
    }
  }

  // The heuristic agent's pick (agents/blue_moon_city_heuristic.py), defined in heuristic.hpp.
  int heuristic(int player, const int* legal, int count, Random& rng) const;

  // rules.ranking_winners (core.game.leaders over the standing keys)
  int ranking_winners(int8_t* out) const {
    int best = 0;
    for (int seat = 1; seat < n; ++seat)
      if (offerings[seat] > offerings[best] || (offerings[seat] == offerings[best] && crystals[seat] > crystals[best]))
        best = seat;
    int count = 0;
    for (int seat = 0; seat < n; ++seat)
      if (offerings[seat] == offerings[best] && crystals[seat] == crystals[best])
        out[count++] = static_cast<int8_t>(seat);
    return count;
  }

  bool city_complete() const { return last_completion_turn >= 0; }

  // rules.offer_cost
  int offer_cost() const {
    return obelisk_size < cp::OBELISK_LENGTH[n] ? cp::OBELISK_COSTS[n][obelisk_size] : kNoCost;
  }

  // rules.offers_open, as flags: 1 OFFER, 2 OFFER_EXTRA_Y1, 4 OFFER_EXTRA_Y2
  int offers_open() const {
    const int p = active;
    if (markers[p] < 1) return 0;
    const int cost = offer_cost();
    if (offers_this_turn == 0) return crystals[p] >= cost ? 1 : 0;
    int open = 0;
    if (hands[p][cp::YELLOW_1] && crystals[p] >= cost + cp::SURCHARGE_Y1) open |= 2;
    if (hands[p][cp::YELLOW_2] && crystals[p] >= cost + cp::SURCHARGE_Y2) open |= 4;
    return open;
  }

  // rules.payable
  bool payable(int seat, int tile, int section) const {
    const int value = cp::SECTION_VALUE[tile][section];
    const int colour = cp::SECTION_COLOUR[tile][section];
    const Caps none{};
    if (colour != cp::ANY) return can_finish(value, colour, hands[seat], none, 0);
    for (int c = 0; c < cp::NUM_COLOURS; ++c)
      if (can_finish(value, c, hands[seat], none, 0)) return true;
    return false;
  }

  // rules.selectable_sections, as a bit per section
  int selectable_sections() const {
    const int p = active;
    const int position = figures[p];
    const int tile = tile_at[position];
    if (markers[p] < 1) return 0;
    int out = 0;
    for (int i = 0; i < cp::SECTION_COUNT[tile]; ++i)
      if (markers_on[position][i] < 0 && payable(p, tile, i)) out |= 1 << i;
    return out;
  }

  // rules._pay_outcomes: calls f(action, outcome) for every PAY step that exists, in its order.
  template <class F>
  void pay_outcomes(int seat, F&& f) const {
    const Counts& hand = hands[seat];
    Caps cap1;
    for (int c = 0; c < cp::NUM_COLOURS; ++c) cap1[c] = static_cast<uint8_t>(payment.cap1[c]);
    const int colour = payment.colour;
    const int cap_any = payment.cap_any;
    PayOutcome out;
    for (int x = 0; x < cp::NUM_TYPES; ++x) {
      if (!hand[x]) continue;
      const int c = cp::CARD_COLOUR[x];
      out.rest = hand;
      --out.rest[x];
      out.cap1 = cap1;
      out.cap_any = cap_any;
      out.added = cp::CARD_VALUE[x];
      if (x == cp::GREEN_CARD) {
        out.added = 1;
      } else if (c == colour) {
      } else if (cap1[c] > 0) {
        --out.cap1[c];
      } else if (cap_any > 0) {
        out.cap_any = cap_any - 1;
      } else {
        continue;
      }
      f(cp::ADD_CARD + x, out);
    }
    for (int index = 0; index < 3; ++index) {
      const int a = cp::MIMIX_PAIRS[index][0], b = cp::MIMIX_PAIRS[index][1];
      if (hand[a] && hand[b] && (a != b || hand[a] >= 2)) {
        out.added = cp::MIMIX_VALUE;
        out.rest = hand;
        --out.rest[a];
        --out.rest[b];
        out.cap1 = cap1;
        out.cap_any = cap_any;
        f(cp::ADD_MIMIX_PAIR + index, out);
      }
    }
    if (hand[cp::WHITE_1]) {
      Counts rest = hand;
      --rest[cp::WHITE_1];
      for (int c = 0; c < cp::NUM_COLOURS; ++c) {
        if (!hoax1_source(rest, colour, c)) continue;
        out.added = 0;
        out.rest = rest;
        out.cap1 = cap1;
        out.cap1[c] = static_cast<uint8_t>(out.cap1[c] + cp::HOAX1_CAPACITY);
        out.cap_any = cap_any;
        f(cp::USE_HOAX1 + c, out);
      }
    }
    if (hand[cp::WHITE_2]) {
      Counts rest = hand;
      --rest[cp::WHITE_2];
      if (has_foreign_card(rest, colour)) {
        out.added = 0;
        out.rest = rest;
        out.cap1 = cap1;
        out.cap_any = cap_any + 1;
        f(cp::USE_HOAX2, out);
      }
    }
  }

  // ----- legal actions (rules.legal_actions and the _legal_* functions) -----------------------
  void legal_actions(uint8_t* mask) const {
    std::memset(mask, 0, kNumActions);
    switch (decision) {
      case kMove: legal_move(mask); break;
      case kBuild: legal_build(mask); break;
      case kPay: legal_pay(mask); break;
      case kOffer: legal_offer(mask); break;
      case kDiscard: legal_discard(mask); break;
      default: break;
    }
  }

  // rules._legal_move
  void legal_move(uint8_t* mask) const {
    const int p = active;
    const Counts& hand = hands[p];
    for (int d = 0; d < 3; ++d) {
      const int where = dragons[d];
      if (hand[cp::DRAGON_FLY_CARD[d]])
        for (int t = 0; t < cp::NUM_POSITIONS; ++t) mask[cp::DRAGON_MOVE + 42 * d + t] = t != where;
      if (hand[cp::DRAGON_WALK_CARD[d]] && where != cp::OFF_BOARD)
        for (int t = 0; t < cp::NUM_POSITIONS; ++t) {
          const int distance = cp::DISTANCE[where][t];
          mask[cp::DRAGON_MOVE + 42 * d + 21 + t] = 1 <= distance && distance <= cp::DRAGON_WALK_STEPS;
        }
    }
    if (!teleport) {
      mask[cp::FLIT_BOOST] = hand[cp::GREY_BOOST] > 0;
      mask[cp::FLIT_TELEPORT] = hand[cp::GREY_TELEPORT] > 0;
    }
    const int here = figures[p];
    for (int t = 0; t < cp::NUM_POSITIONS; ++t)
      mask[cp::MOVE_FIGURE + t] = teleport || cp::DISTANCE[here][t] <= allowance;
  }

  // rules._legal_build
  void legal_build(uint8_t* mask) const {
    const int sections = selectable_sections();
    for (int i = 0; i < cp::MAX_SECTIONS; ++i)
      if (sections & (1 << i)) mask[cp::SELECT_SECTION + i] = 1;
    mask[cp::END_CONTRIBUTION] = 1;
  }

  // rules._legal_pay
  void legal_pay(uint8_t* mask) const {
    const Counts& hand = hands[active];
    if (payment.colour == NO_COLOUR) {
      const Caps none{};
      for (int c = 0; c < cp::NUM_COLOURS; ++c)
        mask[cp::PALACE_COLOR + c] = can_finish(payment.value, c, hand, none, 0);
      return;
    }
    const int need = payment.value - payment.total;
    const int colour = payment.colour;
    pay_outcomes(active, [&](int action, const PayOutcome& out) {
      mask[action] = can_finish(need - out.added, colour, out.rest, out.cap1, out.cap_any);
    });
  }

  // rules._legal_offer
  void legal_offer(uint8_t* mask) const {
    const int open = offers_open();
    if (open & 1) mask[cp::OFFER] = 1;
    if (open & 2) mask[cp::OFFER_EXTRA_Y1] = 1;
    if (open & 4) mask[cp::OFFER_EXTRA_Y2] = 1;
    mask[cp::END_CONTRIBUTION] = 1;
  }

  // rules._legal_discard
  void legal_discard(uint8_t* mask) const {
    const Counts& hand = hands[active];
    for (int x = 0; x < cp::NUM_TYPES; ++x) mask[cp::DISCARD + x] = hand[x] > 0;
    mask[cp::END_TURN] = 1;
  }

  // ----- transitions (rules.apply_action) ------------------------------------------------------
  void apply(int action, Random& chance) {
    const int p = active;
    if (decision == kMove) {
      apply_move(p, action);
    } else if ((decision == kBuild || decision == kOffer) && action == cp::END_CONTRIBUTION) {
      decision = kDiscard;
    } else if (decision == kBuild) {
      open_payment(p, action - cp::SELECT_SECTION);
    } else if (decision == kPay) {
      apply_pay(p, action, chance);
    } else if (decision == kOffer) {
      offer(p, action);
    } else if (action == cp::END_TURN) {
      end_turn(chance);
    } else {
      discard_card(p, action - cp::DISCARD, chance);
    }
    if (decision != kGameOver) check_endings();
    if (decision != kGameOver) {
      settle(chance);
      check_endings();
    }
  }

  bool hand_empty(int seat) const {
    for (int x = 0; x < cp::NUM_TYPES; ++x)
      if (hands[seat][x]) return false;
    return true;
  }

  // rules._settle
  void settle(Random& chance) {
    const bool nothing_to_build = decision == kBuild && !selectable_sections();
    if (nothing_to_build || (decision == kOffer && !offers_open())) decision = kDiscard;
    if (decision == kDiscard && hand_empty(active)) end_turn(chance);
  }

  // rules._use_card
  void use_card(int p, int card) {
    --hands[p][card];
    ++discard[card];
  }

  // rules._apply_move
  void apply_move(int p, int action) {
    if (action < cp::FLIT_BOOST) {
      const int d = (action - cp::DRAGON_MOVE) / 42, rest = (action - cp::DRAGON_MOVE) % 42;
      const int mode = rest / 21, target = rest % 21;
      use_card(p, mode ? cp::DRAGON_WALK_CARD[d] : cp::DRAGON_FLY_CARD[d]);
      dragons[d] = static_cast<int8_t>(target);
    } else if (action == cp::FLIT_BOOST) {
      use_card(p, cp::GREY_BOOST);
      allowance += cp::BOOST_STEPS;
    } else if (action == cp::FLIT_TELEPORT) {
      use_card(p, cp::GREY_TELEPORT);
      teleport = true;
    } else {
      figures[p] = static_cast<int8_t>(action - cp::MOVE_FIGURE);
      enter_phase_b();
    }
  }

  // rules._enter_phase_b
  void enter_phase_b() {
    const int position = figures[active];
    if (position == cp::COURTYARD_POSITION) decision = kOffer;
    else if (complete[position]) decision = kDiscard;
    else decision = kBuild;
  }

  // rules._open_payment
  void open_payment(int p, int section) {
    const int tile = tile_at[figures[p]];
    const int colour = cp::SECTION_COLOUR[tile][section];
    payment = Payment();
    payment.section = section;
    payment.value = cp::SECTION_VALUE[tile][section];
    payment.colour = colour == cp::ANY ? NO_COLOUR : colour;
    has_payment = true;
    decision = kPay;
  }

  // rules._apply_pay
  void apply_pay(int p, int action, Random& chance) {
    if (action < cp::ADD_CARD) {
      payment.colour = action - cp::PALACE_COLOR;
      return;
    }
    bool found = false;
    PayOutcome step{};
    pay_outcomes(p, [&](int candidate, const PayOutcome& out) {
      if (candidate == action) {
        step = out;
        found = true;
      }
    });
    if (!found) return;  // the binding admits legal actions only
    for (int x = 0; x < cp::NUM_TYPES; ++x)
      if (step.rest[x] < hands[p][x]) payment.committed[x] += hands[p][x] - step.rest[x];
    hands[p] = step.rest;
    for (int c = 0; c < cp::NUM_COLOURS; ++c) payment.cap1[c] = step.cap1[c];
    payment.cap_any = step.cap_any;
    payment.total += step.added;
    if (payment.total >= payment.value) complete_payment(p, chance);
  }

  // rules._complete_payment
  void complete_payment(int p, Random& chance) {
    const int position = figures[p];
    for (int x = 0; x < cp::NUM_TYPES; ++x) discard[x] += payment.committed[x];
    markers_on[position][payment.section] = static_cast<int8_t>(p);
    --markers[p];
    has_payment = false;
    payment = Payment();
    if (!scales_claimed) {
      scales_claimed = true;
      int count = 0;
      for (int d = 0; d < 3; ++d) count += dragons[d] == position;
      if (count) {
        give_scales(p, count);
        scale_scoring(count);
      }
    }
    const int tile = tile_at[position];
    bool full = true;
    for (int i = 0; i < cp::SECTION_COUNT[tile]; ++i) full = full && markers_on[position][i] >= 0;
    if (full) {
      scale_scoring(score_building(position, chance));
      decision = kDiscard;
    } else {
      decision = kBuild;
    }
  }

  // rules._give_scales
  void give_scales(int seat, int count) {
    scale_supply = scale_supply - count > 0 ? scale_supply - count : 0;
    scales[seat] += count;
  }

  // rules._scale_scoring
  void scale_scoring(int taken) {
    if (!taken || scale_supply > 0) return;
    int top = scales[0];
    for (int seat = 1; seat < n; ++seat) top = scales[seat] > top ? scales[seat] : top;
    int leaders = 0;
    for (int seat = 0; seat < n; ++seat) leaders += scales[seat] == top;
    int gains[kMaxPlayersAll] = {};
    for (int seat = 0; seat < n; ++seat) {
      if (scales[seat] == top) gains[seat] = leaders == 1 ? cp::SCALE_LEADER_CRYSTALS : cp::SCALE_TIED_LEADER_CRYSTALS;
      else if (scales[seat] >= cp::SCALE_OTHERS_MINIMUM) gains[seat] = cp::SCALE_OTHERS_CRYSTALS;
    }
    int held = 0;
    for (int seat = 0; seat < n; ++seat) {
      if (gains[seat]) {
        crystals[seat] += gains[seat];
        scales[seat] = 0;
      }
      held += scales[seat];
    }
    const int supply = cp::SCALES_IN_PLAY[n] - held;
    scale_supply = supply > 0 ? supply : 0;
  }

  // rules.master_builder
  static int master_builder(const int8_t* seats, int count) {
    int most = 0;
    int tally[kMaxPlayersAll] = {};
    for (int i = 0; i < count; ++i)
      if (seats[i] >= 0) ++tally[seats[i]];
    for (int i = 0; i < count; ++i)
      if (seats[i] >= 0 && tally[seats[i]] > most) most = tally[seats[i]];
    for (int i = 0; i < count; ++i)
      if (seats[i] >= 0 && tally[seats[i]] == most) return seats[i];
    return -1;
  }

  // rules._score_building: returns the scales handed out
  int score_building(int position, Random& chance) {
    const int tile = tile_at[position];
    const int count = cp::SECTION_COUNT[tile];
    int8_t seats[cp::MAX_SECTIONS];
    for (int i = 0; i < count; ++i) seats[i] = markers_on[position][i];
    const int master = master_builder(seats, count);
    const int* rewards[2 + 4];
    int neighbours = 0;
    const int* around[4];
    for (int k = 0; k < 4; ++k) {
      const int q = cp::NEIGHBOURS_NESW[position][k];
      if (q >= 0 && complete[q]) around[neighbours++] = cp::NEIGHBOUR_REWARD[tile_at[q]];
    }
    int scales_out = 0;
    for (int offset = 0; offset < n; ++offset) {
      const int seat = (active + offset) % n;
      bool present = false;
      for (int i = 0; i < count; ++i) present = present || seats[i] == seat;
      if (!present) continue;
      int size = 0;
      if (seat == master) rewards[size++] = cp::STAR_REWARD[tile];
      rewards[size++] = cp::EACH_REWARD[tile];
      for (int k = 0; k < neighbours; ++k) rewards[size++] = around[k];
      for (int k = 0; k < size; ++k) {
        const int crystals_won = rewards[k][0], cards = rewards[k][1], scale_count = rewards[k][2];
        crystals[seat] += crystals_won;
        if (scale_count) {
          give_scales(seat, scale_count);
          scales_out += scale_count;
        }
        uint8_t drawn[cp::DECK_SIZE];
        const int got = draw(cards, chance, drawn);
        for (int i = 0; i < got; ++i) {
          if (seat == active) pending[pending_size++] = drawn[i];
          else ++hands[seat][drawn[i]];
        }
      }
    }
    for (int i = 0; i < count; ++i) markers[seats[i]] += 1;
    for (int i = 0; i < cp::MAX_SECTIONS; ++i) markers_on[position][i] = -1;
    complete[position] = true;
    bool all_built = true;
    for (int q = 0; q < cp::NUM_POSITIONS; ++q)
      if (q != cp::COURTYARD_POSITION) all_built = all_built && complete[q];
    if (all_built) last_completion_turn = turns;
    return scales_out;
  }

  // rules._draw: up to `count` top cards into `out`; the discard pile is reshuffled when the deck runs out.
  int draw(int count, Random& chance, uint8_t* out) {
    int drawn = 0;
    for (int k = 0; k < count; ++k) {
      if (deck_size == 0) {
        uint8_t pile[cp::DECK_SIZE];
        int size = 0;
        for (int x = 0; x < cp::NUM_TYPES; ++x)
          for (int c = 0; c < discard[x] && size < cp::DECK_SIZE; ++c) pile[size++] = static_cast<uint8_t>(x);
        if (size == 0) break;
        const std::vector<int64_t> order = chance.permutation(size);
        for (int i = 0; i < size; ++i) deck[i] = pile[order[static_cast<size_t>(i)]];
        deck_size = size;
        for (int& x : discard) x = 0;
      }
      out[drawn++] = deck[--deck_size];
    }
    return drawn;
  }

  // rules._offer
  void offer(int p, int action) {
    int cost = offer_cost();
    if (action != cp::OFFER) {
      const int card = action == cp::OFFER_EXTRA_Y1 ? cp::YELLOW_1 : cp::YELLOW_2;
      use_card(p, card);
      cost += action == cp::OFFER_EXTRA_Y1 ? cp::SURCHARGE_Y1 : cp::SURCHARGE_Y2;
    }
    crystals[p] -= cost;
    if (obelisk_size < cp::MAX_OBELISK) obelisk[obelisk_size++] = static_cast<int8_t>(p);
    --markers[p];
    ++offerings[p];
    ++offers_this_turn;
    if (offerings[p] >= cp::OFFERINGS_TO_WIN[n]) {
      const int8_t seats[1] = {static_cast<int8_t>(p)};
      game_over(seats, 1, false);
    }
  }

  // rules._discard
  void discard_card(int p, int card, Random& chance) {
    use_card(p, card);
    ++discards;
    if (discards == cp::MAX_DISCARDS) end_turn(chance);
  }

  // rules._end_turn
  void end_turn(Random& chance) {
    const int p = active;
    uint8_t drawn[cp::DECK_SIZE];
    const int got = draw(cp::BASE_DRAW + discards, chance, drawn);
    for (int i = 0; i < got; ++i) ++hands[p][drawn[i]];
    for (int i = 0; i < pending_size; ++i) ++hands[p][pending[i]];
    pending_size = 0;
    ++turns;
    active = (p + 1) % n;
    decision = kMove;
    allowance = cp::START_ALLOWANCE;
    teleport = scales_claimed = false;
    offers_this_turn = discards = 0;
  }

  // rules._game_over
  void game_over(const int8_t* seats, int count, bool truncated_end) {
    winners_size = count;
    for (int i = 0; i < count; ++i) winners_list[i] = seats[i];
    truncated = truncated_end;
    decision = kGameOver;
    active = -1;
    has_payment = false;
    payment = Payment();
  }

  // rules._check_endings
  void check_endings() {
    bool any_markers = false;
    for (int seat = 0; seat < n; ++seat) any_markers = any_markers || markers[seat] != 0;
    int8_t seats[kMaxPlayersAll];
    if (!any_markers) {
      for (int seat = 0; seat < n; ++seat) seats[seat] = static_cast<int8_t>(seat);
      game_over(seats, n, false);
    } else if (city_complete()) {
      const int cost = offer_cost();
      bool stuck = true;
      for (int seat = 0; seat < n; ++seat)
        if (markers[seat] && crystals[seat] >= cost) stuck = false;
      const int rounds_after = floor_div(turns - last_completion_turn, n);
      if (stuck || rounds_after >= cp::ROUNDS_AFTER_CITY_COMPLETE) game_over(seats, ranking_winners(seats), false);
    }
    // turns >= max_rounds * n, without overflow
    if (decision == kMove && turns / n >= max_rounds) game_over(seats, ranking_winners(seats), true);
  }

  static int floor_div(int a, int b) {
    const int q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }

  // ----- observation (view.observation) ----------------------------------------------------------
  void observation(int p, float* out) const {
    std::memset(out, 0, sizeof(float) * kObservationSize);
    float* city = out + cp::CITY_START;
    for (int position = 0; position < cp::NUM_POSITIONS; ++position) {
      float* cell = city + position * cp::CITY_WIDTH;
      const int tile = tile_at[position];
      // view.static_city
      cell[cp::CITY_TILE + tile] = 1.0f;
      for (int i = 0; i < cp::SECTION_COUNT[tile]; ++i) {
        const int colour = cp::SECTION_COLOUR[tile][i];
        cell[cp::CITY_SECTION[i][0]] = 1.0f;
        cell[cp::CITY_SECTION[i][1] + (colour == cp::ANY ? cp::NUM_COLOURS : colour)] = 1.0f;
        cell[cp::CITY_SECTION[i][2]] = static_cast<float>(cp::SECTION_VALUE[tile][i] / 5.0);
      }
      const int* star = cp::STAR_REWARD[tile];
      const int* each = cp::EACH_REWARD[tile];
      const int* near = cp::NEIGHBOUR_REWARD[tile];
      const double rewards[9] = {star[0] / 3.0, star[1] / 2.0, static_cast<double>(star[2]),
                                 each[0] / 3.0, static_cast<double>(each[1]), static_cast<double>(each[2]),
                                 near[0] / 3.0, near[1] / 2.0, near[2] / 2.0};
      for (int k = 0; k < 9; ++k) cell[cp::CITY_STAR_REWARD + k] = static_cast<float>(rewards[k]);
      // view.city_block, with occupants relative to p (view._city_columns)
      if (complete[position]) cell[cp::CITY_COMPLETED] = 1.0f;
      for (int i = 0; i < cp::MAX_SECTIONS; ++i) {
        const int seat = markers_on[position][i];
        const int occupant = cp::CITY_SECTION[i][3];
        if (seat >= 0) cell[occupant + 1 + ((seat - p) % n + n) % n] = 1.0f;
        else if (i < cp::SECTION_COUNT[tile]) cell[occupant] = 1.0f;
      }
    }
    for (int d = 0; d < 3; ++d) {
      if (dragons[d] == cp::OFF_BOARD) out[cp::DRAGONS_START + d] = 1.0f;
      else city[dragons[d] * cp::CITY_WIDTH + cp::CITY_DRAGONS + d] = 1.0f;
    }
    for (int seat = 0; seat < n; ++seat)
      city[figures[seat] * cp::CITY_WIDTH + cp::CITY_FIGURES + ((seat - p) % n + n) % n] = 1.0f;
    for (int o = 0; o < n; ++o) {
      const int seat = (p + o) % n;
      int hand_size = 0;
      for (int x = 0; x < cp::NUM_TYPES; ++x) hand_size += hands[seat][x];
      const double row[8] = {1.0,
                             crystals[seat] / 20.0,
                             scales[seat] / 10.0,
                             offerings[seat] / 6.0,
                             markers[seat] / 10.0,
                             hand_size / 20.0,
                             (seat == active ? pending_size : 0) / 6.0,
                             seat == active ? 1.0 : 0.0};
      for (int k = 0; k < 8; ++k) out[cp::PLAYERS_START + o * cp::PLAYERS_WIDTH + k] = static_cast<float>(row[k]);
    }
    // float32 products, as numpy's in-place `*=` on float32 computes them
    for (int x = 0; x < cp::NUM_TYPES; ++x) out[cp::HAND_START + x] = static_cast<float>(hands[p][x]) * 0.25f;
    for (int x = 0; x < cp::NUM_TYPES; ++x) out[cp::PILES_DISCARD + x] = static_cast<float>(discard[x]) * 0.1f;
    const int cost = obelisk_size < cp::OBELISK_LENGTH[n] ? cp::OBELISK_COSTS[n][obelisk_size] : 0;
    const double piles[5] = {deck_size / 80.0, scale_supply / 15.0, cost / 12.0, obelisk_size / 13.0,
                             cp::OFFERINGS_TO_WIN[n] / 6.0};
    for (int k = 0; k < 5; ++k) out[cp::PILES_SCALARS + k] = static_cast<float>(piles[k]);
    out[cp::PILES_PLAYER_COUNT + n - 2] = 1.0f;
    if (decision >= 0) out[cp::TURN_DECISION + decision] = 1.0f;
    const double turn[6] = {allowance / 6.0,          teleport ? 1.0 : 0.0, scales_claimed ? 1.0 : 0.0,
                            offers_this_turn / 4.0,   discards / 2.0,       city_complete() ? 1.0 : 0.0};
    for (int k = 0; k < 6; ++k) out[cp::TURN_SCALARS + k] = static_cast<float>(turn[k]);
    if (has_payment) {
      out[cp::PAYMENT_SECTION + payment.section] = 1.0f;
      out[cp::PAYMENT_COLOUR + (payment.colour >= 0 ? payment.colour : cp::NUM_COLOURS)] = 1.0f;
      out[cp::PAYMENT_VALUE] = static_cast<float>(payment.value / 5.0);
      out[cp::PAYMENT_TOTAL] = static_cast<float>(payment.total / 6.0);
      for (int c = 0; c < cp::NUM_COLOURS; ++c)
        out[cp::PAYMENT_HOAX1 + c] = static_cast<float>(payment.cap1[c]) * 0.25f;
      out[cp::PAYMENT_HOAX2] = static_cast<float>(payment.cap_any / 3.0);
      for (int x = 0; x < cp::NUM_TYPES; ++x)
        out[cp::PAYMENT_COMMITTED + x] = static_cast<float>(payment.committed[x]) * 0.25f;
    }
  }

  // ----- determinization (view.determinize) ---------------------------------------------------
  void resample_hidden(int p, Random& rng) {
    uint8_t pool[cp::DECK_SIZE];
    int size = 0;
    for (int i = 0; i < deck_size; ++i) pool[size++] = deck[i];
    for (int i = 0; i < pending_size; ++i) pool[size++] = pending[i];
    for (int seat = 0; seat < n; ++seat) {
      if (seat == p) continue;
      for (int x = 0; x < cp::NUM_TYPES; ++x)
        for (int c = 0; c < hands[seat][x] && size < cp::DECK_SIZE; ++c) pool[size++] = static_cast<uint8_t>(x);
    }
    for (int attempt = 0; attempt < cp::MAX_REDEALS; ++attempt) {
      const std::vector<int64_t> order = rng.permutation(size);
      uint8_t shuffled[cp::DECK_SIZE];
      for (int i = 0; i < size; ++i) shuffled[i] = pool[order[static_cast<size_t>(i)]];
      Game twin = redeal(p, shuffled, size);
      if (twin.consistent(p)) {
        *this = twin;
        return;
      }
    }
    throw std::runtime_error("no deal consistent with seat " + std::to_string(p) + "'s view in " +
                             std::to_string(cp::MAX_REDEALS) + " tries");
  }

  // view._redeal
  Game redeal(int p, const uint8_t* pool, int size) const {
    Game twin = *this;
    int next = 0;
    for (int seat = 0; seat < n; ++seat) {
      if (seat == p) continue;
      int held = 0;
      for (int x = 0; x < cp::NUM_TYPES; ++x) held += hands[seat][x];
      twin.hands[seat] = Counts{};
      for (int k = 0; k < held && next < size; ++k) ++twin.hands[seat][pool[next++]];
    }
    twin.pending_size = 0;
    for (int k = 0; k < pending_size && next < size; ++k) twin.pending[twin.pending_size++] = pool[next++];
    twin.deck_size = 0;
    while (next < size) twin.deck[twin.deck_size++] = pool[next++];
    return twin;
  }

  // view._consistent
  bool consistent(int p) const {
    if (active == p || (decision != kBuild && decision != kPay)) return true;
    if (decision == kBuild) return selectable_sections() != 0;
    uint8_t mask[kNumActions];
    legal_actions(mask);
    for (int a = 0; a < kNumActions; ++a)
      if (mask[a]) return true;
    return false;
  }

  // ----- serialization (BlueMoonCity._state_to_dict / _state_from_dict) -------------------------
  template <class T>
  static void write_ints(json::Writer& out, const T* values, int count) {
    out.begin_array();
    for (int i = 0; i < count; ++i) out.value(static_cast<int64_t>(values[i]));
    out.end_array();
  }

  void write_json(json::Writer& out) const {
    out.begin_object();
    out.key("n").value(n);
    out.key("tile_at");
    write_ints(out, tile_at, cp::NUM_POSITIONS);
    out.key("complete").begin_array();
    for (bool done : complete) out.value(done);
    out.end_array();
    out.key("markers_on").begin_array();
    for (const auto& row : markers_on) write_ints(out, row, cp::MAX_SECTIONS);
    out.end_array();
    out.key("dragons");
    write_ints(out, dragons, 3);
    out.key("figures");
    write_ints(out, figures, n);
    out.key("hands").begin_array();
    for (int seat = 0; seat < n; ++seat) write_ints(out, hands[seat].data(), cp::NUM_TYPES);
    out.end_array();
    out.key("deck");
    write_ints(out, deck, deck_size);
    out.key("discard");
    write_ints(out, discard, cp::NUM_TYPES);
    out.key("crystals");
    write_ints(out, crystals, n);
    out.key("scales");
    write_ints(out, scales, n);
    out.key("scale_supply").value(scale_supply);
    out.key("offerings");
    write_ints(out, offerings, n);
    out.key("markers");
    write_ints(out, markers, n);
    out.key("obelisk");
    write_ints(out, obelisk, obelisk_size);
    out.key("pending");
    write_ints(out, pending, pending_size);
    out.key("active").value(active);
    out.key("decision").value(decision);
    out.key("allowance").value(allowance);
    out.key("teleport").value(teleport);
    out.key("scales_claimed").value(scales_claimed);
    out.key("offers_this_turn").value(offers_this_turn);
    out.key("discards").value(discards);
    out.key("payment");
    if (!has_payment) {
      out.null();
    } else {
      out.begin_object();
      out.key("section").value(payment.section);
      out.key("value").value(payment.value);
      out.key("colour").value(payment.colour);
      out.key("total").value(payment.total);
      out.key("cap1");
      write_ints(out, payment.cap1, cp::NUM_COLOURS);
      out.key("cap_any").value(payment.cap_any);
      out.key("committed");
      write_ints(out, payment.committed, cp::NUM_TYPES);
      out.end_object();
    }
    out.key("turns").value(turns);
    out.key("last_completion_turn").value(last_completion_turn);
    out.key("winners");
    write_ints(out, winners_list, winners_size);
    out.key("truncated").value(truncated);
    out.end_object();
  }

  // A list of exactly `count` values, else an error naming `what`.
  static const std::vector<json::Value>& exact(const json::Value& value, const char* what, size_t count) {
    const auto& items = value.as_array(what, count);
    if (items.size() != count)
      throw std::invalid_argument(std::string("state: ") + what + " must hold " + std::to_string(count) + " values");
    return items;
  }
  static int read_int(const json::Value& value, const char* what, int64_t low, int64_t high) {
    return static_cast<int>(value.as_int(what, low, high));
  }

  // An object holding exactly `names` (each once, in any order), as the Python State and Payment take.
  template <size_t N>
  static void check_keys(const json::Value& value, const char* what, const char* const (&names)[N]) {
    if (value.kind != json::Value::Kind::kObject)
      throw std::invalid_argument(std::string("state: ") + what + " must be an object");
    bool seen[N] = {};
    for (const auto& member : value.members) {
      size_t k = 0;
      while (k < N && member.first != names[k]) ++k;
      const std::string where = std::string("state: ") + what;
      if (k == N) throw std::invalid_argument(where + " has an unknown key '" + member.first + "'");
      if (seen[k]) throw std::invalid_argument(where + " repeats the key '" + member.first + "'");
      seen[k] = true;
    }
    for (size_t k = 0; k < N; ++k)
      if (!seen[k]) throw std::invalid_argument(std::string("state: missing key '") + names[k] + "'");
  }

  void read_json(int num_players, const json::Value& options, const json::Value& state) {
    static constexpr const char* kStateKeys[] = {
        "n",         "tile_at",  "complete",       "markers_on",       "dragons",  "figures",
        "hands",     "deck",     "discard",        "crystals",         "scales",   "scale_supply",
        "offerings", "markers",  "obelisk",        "pending",          "active",   "decision",
        "allowance", "teleport", "scales_claimed", "offers_this_turn", "discards", "payment",
        "turns",     "last_completion_turn",       "winners",          "truncated"};
    static constexpr const char* kPaymentKeys[] = {"section", "value",   "colour",   "total",
                                                   "cap1",    "cap_any", "committed"};
    check_keys(state, "state", kStateKeys);
    if (!state.at("payment").is_null()) check_keys(state.at("payment"), "payment", kPaymentKeys);
    read_options(options);
    Game g = fresh(num_players, center_fixed, max_rounds);
    const int np = num_players;
    if (read_int(state.at("n"), "n", np, np) != np) throw std::invalid_argument("state: n");
    constexpr int64_t kBig = 1000000000;  // a bound for counters the rules leave open
    const auto& tiles = exact(state.at("tile_at"), "tile_at", cp::NUM_POSITIONS);
    for (int q = 0; q < cp::NUM_POSITIONS; ++q)
      g.tile_at[q] = static_cast<int8_t>(checked_index(tiles[q], "tile_at", cp::NUM_TILES));
    const auto& done = exact(state.at("complete"), "complete", cp::NUM_POSITIONS);
    for (int q = 0; q < cp::NUM_POSITIONS; ++q) g.complete[q] = done[q].as_bool("complete");
    const auto& on = exact(state.at("markers_on"), "markers_on", cp::NUM_POSITIONS);
    for (int q = 0; q < cp::NUM_POSITIONS; ++q) {
      const auto& row = exact(on[q], "markers_on", cp::MAX_SECTIONS);
      for (int i = 0; i < cp::MAX_SECTIONS; ++i)
        g.markers_on[q][i] = static_cast<int8_t>(read_int(row[i], "markers_on", -1, np - 1));
    }
    const auto& dragon_list = exact(state.at("dragons"), "dragons", 3);
    for (int d = 0; d < 3; ++d)
      g.dragons[d] = static_cast<int8_t>(read_int(dragon_list[d], "dragons", 0, cp::OFF_BOARD));
    const auto& figure_list = exact(state.at("figures"), "figures", static_cast<size_t>(np));
    for (int seat = 0; seat < np; ++seat)
      g.figures[seat] = static_cast<int8_t>(checked_index(figure_list[seat], "figures", cp::NUM_POSITIONS));
    // cards: every count is bounded by the card copies, and the copies must all be somewhere
    int seen[cp::NUM_TYPES] = {};
    auto count_card = [&seen](int card, int copies, const char* what) {
      seen[card] += copies;
      if (seen[card] > cp::CARD_COPIES[card])
        throw std::invalid_argument(std::string("state: ") + what + " holds more copies of a card than exist");
    };
    const auto& hand_list = exact(state.at("hands"), "hands", static_cast<size_t>(np));
    for (int seat = 0; seat < np; ++seat) {
      const auto& counts = exact(hand_list[seat], "hands", cp::NUM_TYPES);
      for (int x = 0; x < cp::NUM_TYPES; ++x) {
        const int copies = read_int(counts[x], "hands", 0, cp::CARD_COPIES[x]);
        count_card(x, copies, "hands");
        g.hands[seat][x] = static_cast<uint8_t>(copies);
      }
    }
    const auto& deck_list = state.at("deck").as_array("deck", cp::DECK_SIZE);
    g.deck_size = static_cast<int>(deck_list.size());
    for (int i = 0; i < g.deck_size; ++i) {
      const int card = checked_index(deck_list[i], "deck", cp::NUM_TYPES);
      count_card(card, 1, "deck");
      g.deck[i] = static_cast<uint8_t>(card);
    }
    const auto& discard_list = exact(state.at("discard"), "discard", cp::NUM_TYPES);
    for (int x = 0; x < cp::NUM_TYPES; ++x) {
      g.discard[x] = read_int(discard_list[x], "discard", 0, cp::CARD_COPIES[x]);
      count_card(x, g.discard[x], "discard");
    }
    auto seat_ints = [&](const char* key, int* into, int64_t low, int64_t high) {
      const auto& list = exact(state.at(key), key, static_cast<size_t>(np));
      for (int seat = 0; seat < np; ++seat) into[seat] = read_int(list[seat], key, low, high);
    };
    seat_ints("crystals", g.crystals, 0, kBig);
    seat_ints("scales", g.scales, 0, cp::SCALES_IN_PLAY[np]);  // held and in supply add up to these
    g.scale_supply = read_int(state.at("scale_supply"), "scale_supply", 0, cp::SCALES_IN_PLAY[np]);
    seat_ints("offerings", g.offerings, 0, cp::OFFERINGS_TO_WIN[np]);
    seat_ints("markers", g.markers, 0, cp::MARKERS);
    const auto& obelisk_list = state.at("obelisk").as_array("obelisk", static_cast<size_t>(cp::OBELISK_LENGTH[np]));
    g.obelisk_size = static_cast<int>(obelisk_list.size());
    for (int i = 0; i < g.obelisk_size; ++i)
      g.obelisk[i] = static_cast<int8_t>(checked_index(obelisk_list[i], "obelisk", np));
    const auto& pending_list = state.at("pending").as_array("pending", cp::DECK_SIZE);
    g.pending_size = static_cast<int>(pending_list.size());
    for (int i = 0; i < g.pending_size; ++i) {
      const int card = checked_index(pending_list[i], "pending", cp::NUM_TYPES);
      count_card(card, 1, "pending");
      g.pending[i] = static_cast<uint8_t>(card);
    }
    g.decision = read_int(state.at("decision"), "decision", kGameOver, kDiscard);
    g.active = g.decision == kGameOver ? read_int(state.at("active"), "active", -1, -1)
                                       : checked_index(state.at("active"), "active", np);
    g.allowance = read_int(state.at("allowance"), "allowance", 0, kBig);
    g.teleport = state.at("teleport").as_bool("teleport");
    g.scales_claimed = state.at("scales_claimed").as_bool("scales_claimed");
    g.offers_this_turn = read_int(state.at("offers_this_turn"), "offers_this_turn", 0, cp::OFFERINGS_TO_WIN[np]);
    g.discards = read_int(state.at("discards"), "discards", 0, cp::MAX_DISCARDS - 1);
    const json::Value& pay = state.at("payment");
    g.has_payment = !pay.is_null();
    if (g.has_payment != (g.decision == kPay))
      throw std::invalid_argument("state: payment must be open exactly in the PAY decision");
    if (g.has_payment) {
      const int tile = g.tile_at[g.figures[g.active]];
      if (cp::SECTION_COUNT[tile] == 0) throw std::invalid_argument("state: payment on a tile without sections");
      g.payment.section = checked_index(pay.at("section"), "payment.section", cp::SECTION_COUNT[tile]);
      g.payment.value = read_int(pay.at("value"), "payment.value", cp::SECTION_VALUE[tile][g.payment.section],
                                 cp::SECTION_VALUE[tile][g.payment.section]);
      g.payment.colour = read_int(pay.at("colour"), "payment.colour", NO_COLOUR, cp::NUM_COLOURS - 1);
      g.payment.total = read_int(pay.at("total"), "payment.total", 0, g.payment.value - 1);
      const auto& caps = exact(pay.at("cap1"), "payment.cap1", cp::NUM_COLOURS);
      for (int c = 0; c < cp::NUM_COLOURS; ++c)
        g.payment.cap1[c] = read_int(caps[c], "payment.cap1", 0, cp::HOAX1_CAPACITY * cp::CARD_COPIES[cp::WHITE_1]);
      g.payment.cap_any = read_int(pay.at("cap_any"), "payment.cap_any", 0, cp::CARD_COPIES[cp::WHITE_2]);
      const auto& committed = exact(pay.at("committed"), "payment.committed", cp::NUM_TYPES);
      for (int x = 0; x < cp::NUM_TYPES; ++x) {
        g.payment.committed[x] = read_int(committed[x], "payment.committed", 0, cp::CARD_COPIES[x]);
        count_card(x, g.payment.committed[x], "payment.committed");
      }
    }
    for (int x = 0; x < cp::NUM_TYPES; ++x)
      if (seen[x] != cp::CARD_COPIES[x])
        throw std::invalid_argument("state: deck (the cards do not add up to the deck)");
    g.turns = read_int(state.at("turns"), "turns", 0, kBig);
    g.last_completion_turn = read_int(state.at("last_completion_turn"), "last_completion_turn", -1, kBig);
    const auto& winner_list = state.at("winners").as_array("winners", static_cast<size_t>(np));
    g.winners_size = static_cast<int>(winner_list.size());
    for (int i = 0; i < g.winners_size; ++i)
      g.winners_list[i] = static_cast<int8_t>(checked_index(winner_list[i], "winners", np));
    g.truncated = state.at("truncated").as_bool("truncated");
    *this = g;
  }
};

}  // namespace city_envs::native::blue_moon_city

#include "heuristic.hpp"  // Game::heuristic
