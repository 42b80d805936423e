// Citadels, the native engine: the C++ twin of city_envs/citadels/rules.py and view.py.
//
// `Game` holds the fields of rules.State in fixed-size arrays (sized for 7 players and the 68-card
// deck), and its members mirror the Python functions one by one (each names the one it mirrors),
// drawing chance in the same order with the same Generator methods, so a seed plays the same match.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/game.hpp"
#include "../core/json.hpp"
#include "../core/random.hpp"
#include "components.hpp"

namespace city_envs::native::citadels {

inline constexpr int kAllRanks = (1 << kNumCharacters) - 1;  // a character mask holds ranks 1..8
inline constexpr int kMaxSteps = 7;                          // picks and discards of a round
inline constexpr int kMaxPicks = 2;                          // picks of one seat in a round (2-3 players)
inline constexpr int kMaxLog = 10;                           // selection log entries (9 at most in play)
inline constexpr int kMaxEvents = 128;                       // public events of one round (104 at most in play)
inline constexpr int kMaxGold = 1 << 26;                     // what read_json accepts for a seat's gold

// rules.bit
constexpr int bit(int rank) { return 1 << (rank - 1); }

// The ranks of a character mask, ascending (rules.ranks_of); returns how many.
inline int ranks_of(int mask, int* out) {
  int count = 0;
  for (int rank = 1; rank <= kNumCharacters; ++rank)
    if (mask & bit(rank)) out[count++] = rank;
  return count;
}

// The public events of a round (State.events): a name and up to four ints.
enum EventName : uint8_t {
  EVENT_REVEAL,
  EVENT_ROBBED,
  EVENT_INCOME,
  EVENT_SMITHY,
  EVENT_LABORATORY,
  EVENT_GATHER_GOLD,
  EVENT_ASSASSINATE,
  EVENT_ROB,
  EVENT_SWAP,
  EVENT_GATHER_CARDS,
  EVENT_REDRAW,
  EVENT_BUILD,
  EVENT_DESTROY,
  EVENT_GRAVEYARD,
  EVENT_END_TURN,
  kNumEventNames
};
inline constexpr const char* kEventNames[kNumEventNames] = {
    "reveal", "robbed",       "income", "smithy", "laboratory", "gather_gold", "assassinate", "rob",
    "swap",   "gather_cards", "redraw", "build",  "destroy",    "graveyard",   "end_turn"};
inline constexpr int kEventArity[kNumEventNames] = {2, 3, 2, 2, 1, 1, 2, 2, 2, 3, 2, 2, 4, 3, 1};

struct Event {
  uint8_t name = 0;
  int32_t args[4] = {0, 0, 0, 0};  // the graveyard event's last value is a bool (recovered)
};

struct Game {
  static constexpr const char* kName = "citadels";
  static constexpr int kNumActions = A_NUM_ACTIONS;
  static constexpr int kObservationSize = ::city_envs::native::citadels::kObservationSize;
  static constexpr int kMinPlayers = ::city_envs::native::citadels::kMinPlayers;
  static constexpr int kMaxPlayers = ::city_envs::native::citadels::kMaxPlayers;

  // ----- rules.State ------------------------------------------------------------------------
  int n = 0;
  int completion = COMPLETION_SIZE;
  int64_t max_rounds = 1;
  uint8_t deck[kDeckSize] = {};  // index 0 = top
  int deck_size = 0;
  uint8_t hands[kMaxPlayers][kNumKinds] = {};
  uint8_t cities[kMaxPlayers][kNumKinds] = {};
  int city_size[kMaxPlayers] = {};
  int32_t gold[kMaxPlayers] = {};
  int crown = 0;
  int64_t round = 1;
  int first_completer = -1;
  bool game_ending = false;
  bool truncated = false;
  int decision = D_SELECT_CHARACTER;
  int actor = 0;
  int face_up = 0;
  int facedown = 0;
  int pile = 0;
  int steps[kMaxSteps][2] = {};  // (seat, decision)
  int num_steps = 0;
  int step = 0;
  int holder[kNumCharacters + 1] = {};
  int offered[kMaxPlayers][kMaxPicks] = {};
  int offered_count[kMaxPlayers] = {};
  int sel_log[kMaxLog][3] = {};  // (event, seat, rank)
  int sel_log_size = 0;
  int known_facedown[kMaxPlayers] = {};
  int called = 0;
  int killed = 0;
  int robbed = 0;
  int revealed[kNumCharacters + 1] = {};
  bool played[kMaxPlayers] = {};
  int turn_seat = -1;
  bool gathered = false;
  bool ability_used = false;
  bool income_done = false;
  bool destroy_used = false;
  bool smithy_used = false;
  bool lab_used = false;
  int builds_done = 0;
  int build_limit = BUILD_LIMIT;
  uint8_t drawn[kDeckSize] = {};
  int drawn_size = 0;
  uint8_t marked[kDeckSize] = {};
  int marked_size = 0;
  int graveyard_card = -1;
  Event events[kMaxEvents] = {};
  int num_events = 0;

  // ----- small helpers ------------------------------------------------------------------------
  // A seat as Python indexes a list by it (-1 is the last seat); only a malformed state has one.
  int seat_index(int seat) const { return seat < 0 ? seat + n : seat; }

  void log_event(EventName name, int32_t a = 0, int32_t b = 0, int32_t c = 0, int32_t d = 0) {
    if (num_events >= kMaxEvents) return;  // never in play: a round logs at most 104 events
    Event& event = events[num_events++];
    event.name = name;
    event.args[0] = a;
    event.args[1] = b;
    event.args[2] = c;
    event.args[3] = d;
  }

  void deck_append(int kind) {
    if (deck_size < kDeckSize) deck[deck_size++] = static_cast<uint8_t>(kind);
  }

  // Take up to `count` cards off the top of the deck into `out`; returns how many.
  int deck_take(int count, uint8_t* out) {
    const int got = count < deck_size ? count : deck_size;
    std::memcpy(out, deck, static_cast<size_t>(got));
    std::memmove(deck, deck + got, static_cast<size_t>(deck_size - got));
    deck_size -= got;
    return got;
  }

  int hand_size(int seat) const {
    int total = 0;
    for (int kind = 0; kind < kNumKinds; ++kind) total += hands[seat][kind];
    return total;
  }

  int offered_at(int seat, int pick) const { return pick < offered_count[seat] ? offered[seat][pick] : 0; }

  // ----- setup (rules.new_state) ----------------------------------------------------------------
  static void read_options(const json::Value& options, bool& classic_variant, int64_t& rounds) {
    classic_variant = options.at("classic_variant").as_bool("options.classic_variant");
    rounds = options.at("max_rounds").as_int("options.max_rounds", 1, INT64_MAX);
  }

  void setup(int num_players, const json::Value& options, Random& chance) {
    bool classic_variant = false;
    int64_t rounds = 1;
    read_options(options, classic_variant, rounds);
    *this = Game();
    n = num_players;
    // deck = np.repeat(arange(30), COPIES)[rng.permutation(68)]
    uint8_t sorted_deck[kDeckSize];
    int at = 0;
    for (int kind = 0; kind < kNumKinds; ++kind)
      for (int copy = 0; copy < kCopies[kind]; ++copy) sorted_deck[at++] = static_cast<uint8_t>(kind);
    const std::vector<int64_t> order = chance.permutation(kDeckSize);
    for (int i = 0; i < kDeckSize; ++i) deck[i] = sorted_deck[order[static_cast<size_t>(i)]];
    deck_size = kDeckSize;
    for (int j = 0; j < STARTING_HAND * n; ++j) hands[j % n][deck[j]] += 1;
    uint8_t dealt[kDeckSize];
    deck_take(STARTING_HAND * n, dealt);
    const bool long_game = n < 4 || classic_variant;
    completion = long_game ? LONG_COMPLETION_SIZE : COMPLETION_SIZE;
    max_rounds = rounds;
    for (int seat = 0; seat < n; ++seat) gold[seat] = STARTING_GOLD;
    crown = 0;
    start_round(chance);
  }

  // ----- selection phase (4.2) ----------------------------------------------------------------
  // rules.selection_steps
  static int selection_steps(int players, int opener, int (*out)[2]) {
    int seat[kMaxPlayers];
    for (int i = 0; i < players; ++i) seat[i] = (opener + i) % players;
    if (players == 2) {
      const int c = seat[0], d = seat[1];
      const int table[6][2] = {{c, D_SELECT_CHARACTER}, {d, D_SELECT_CHARACTER}, {d, D_SELECT_DISCARD},
                               {c, D_SELECT_CHARACTER}, {c, D_SELECT_DISCARD},   {d, D_SELECT_CHARACTER}};
      for (int i = 0; i < 6; ++i) out[i][0] = table[i][0], out[i][1] = table[i][1];
      return 6;
    }
    const int count = players == 3 ? 6 : players;
    for (int i = 0; i < count; ++i) out[i][0] = seat[i % players], out[i][1] = D_SELECT_CHARACTER;
    return count;
  }

  // rules.start_round
  void start_round(Random& rng) {
    for (int rank = 0; rank <= kNumCharacters; ++rank) holder[rank] = revealed[rank] = -1;
    for (int seat = 0; seat < kMaxPlayers; ++seat) {
      played[seat] = false;
      offered_count[seat] = 0;
      known_facedown[seat] = 0;
    }
    sel_log_size = 0;
    num_events = 0;
    called = killed = robbed = 0;
    turn_seat = -1;
    const int non_king[7] = {ASSASSIN, THIEF, MAGICIAN, BISHOP, MERCHANT, ARCHITECT, WARLORD};
    const std::vector<int64_t> order = rng.permutation(7);
    face_up = 0;
    for (int i = 0; i < kFaceUpDiscards[n]; ++i) face_up |= bit(non_king[order[static_cast<size_t>(i)]]);
    int rest[kNumCharacters];
    const int rest_size = ranks_of(kAllRanks & ~face_up, rest);
    facedown = rest[rng.integers(rest_size)];
    log_selection(EV_FACEDOWN, -1, facedown);
    pile = (kAllRanks & ~face_up) & ~bit(facedown);
    num_steps = selection_steps(n, crown, steps);
    step = 0;
    offer_step();
  }

  void log_selection(int event, int seat, int rank) {
    if (sel_log_size >= kMaxLog) return;  // never in play: a round logs at most 9
    sel_log[sel_log_size][0] = event;
    sel_log[sel_log_size][1] = seat;
    sel_log[sel_log_size][2] = rank;
    ++sel_log_size;
  }

  // rules._offer_step
  void offer_step() {
    const int seat = steps[step][0];
    if (n == 7 && step == 6) pile |= bit(facedown);  // the 7th picker also receives the face-down card
    actor = seat;
    decision = steps[step][1];
    if (decision == D_SELECT_CHARACTER && offered_count[seat] < kMaxPicks)
      offered[seat][offered_count[seat]++] = pile;
  }

  // rules.pick_character
  void pick_character(int rank, Random& rng) {
    const int seat = actor;
    pile &= ~bit(rank);
    holder[rank] = seat;
    log_selection(EV_PICK, seat, rank);
    next_selection_step(rng);
  }

  // rules.discard_character
  void discard_character(int rank, Random& rng) {
    const int seat = actor;
    pile &= ~bit(rank);
    known_facedown[seat] |= bit(rank);
    log_selection(EV_DISCARD, seat, rank);
    next_selection_step(rng);
  }

  // rules._next_selection_step
  void next_selection_step(Random& rng) {
    step += 1;
    if (step < num_steps) {
      offer_step();
      return;
    }
    // The single card left is discarded face down; the last picker saw it.
    const int last_seat = steps[num_steps - 1][0];
    int left[kNumCharacters];
    const int leftover = ranks_of(pile, left) > 0 ? left[0] : 1;
    pile = 0;
    known_facedown[last_seat] |= bit(leftover);
    log_selection(EV_LEFTOVER, last_seat, leftover);
    call_next_rank(rng);
  }

  // ----- turn phase (4.3) ---------------------------------------------------------------------
  // rules._call_next_rank
  void call_next_rank(Random& rng) {
    while (called < kNumCharacters) {
      called += 1;
      const int seat = holder[called];
      if (seat >= 0 && called != killed) {
        start_turn(seat, called);
        return;
      }
    }
    end_of_round(rng);
  }

  // rules._start_turn
  void start_turn(int seat, int rank) {
    revealed[rank] = seat;
    played[seat] = true;
    log_event(EVENT_REVEAL, seat, rank);
    if (rank == robbed) {
      const int thief = holder[THIEF];
      if (thief != seat) {
        log_event(EVENT_ROBBED, thief, seat, gold[seat]);
        gold[seat_index(thief)] += gold[seat];
        gold[seat] = 0;
      }
    }
    if (rank == KING) {
      crown = seat;
    } else if (rank == MERCHANT) {
      gold[seat] += MERCHANT_BONUS_GOLD;
    } else if (rank == ARCHITECT) {
      draw_into_hand(seat, ARCHITECT_BONUS_CARDS);
    }
    turn_seat = actor = seat;
    decision = D_MAIN;
    gathered = ability_used = income_done = destroy_used = false;
    smithy_used = lab_used = false;
    builds_done = 0;
    build_limit = rank == ARCHITECT ? ARCHITECT_BUILD_LIMIT : BUILD_LIMIT;
  }

  // rules._draw_into_hand
  int draw_into_hand(int seat, int count) {
    uint8_t got[kDeckSize];
    const int size = deck_take(count, got);
    for (int i = 0; i < size; ++i) hands[seat][got[i]] += 1;
    return size;
  }

  // rules.income
  int income(int seat, int rank) const {
    const int kind_type = kIncomeType[rank];
    int amount = 0;
    for (int kind = 0; kind < kNumKinds; ++kind)
      if (kTypeOf[kind] == kind_type) amount += cities[seat][kind];
    return amount + cities[seat][SCHOOL_OF_MAGIC];
  }

  // rules.destroy_cost
  int destroy_cost(int target, int kind) const {
    const int wall = kind != GREAT_WALL && cities[target][GREAT_WALL] ? GREAT_WALL_SURCHARGE : 0;
    return kCost[kind] - 1 + wall;
  }

  // rules.can_be_destroyed_in
  bool can_be_destroyed_in(int target) const {
    return city_size[target] < completion && revealed[BISHOP] != target;
  }

  // rules._collect_income
  void collect_income() {
    const int seat = turn_seat;
    const int amount = income(seat, called);
    gold[seat] += amount;
    income_done = true;
    log_event(EVENT_INCOME, seat, amount);
  }

  // rules._end_of_round
  void end_of_round(Random& rng) {
    if (killed == KING && holder[KING] >= 0) crown = holder[KING];
    turn_seat = -1;
    if (game_ending || round >= max_rounds) {
      truncated = !game_ending;
      decision = D_GAME_OVER;
      actor = -1;
      return;
    }
    round += 1;
    start_round(rng);
  }

  // ----- legal actions (rules.legal_actions and its per-decision functions) -------------------
  void legal_actions(uint8_t* mask) const {
    std::memset(mask, 0, kNumActions);
    switch (decision) {
      case D_SELECT_CHARACTER:
      case D_SELECT_DISCARD: legal_select(mask); break;
      case D_MAIN: legal_main(mask); break;
      case D_KEEP_DRAWN: legal_keep_drawn(mask); break;
      case D_MAGICIAN_DISCARD: legal_magician_discard(mask); break;
      case D_GRAVEYARD: legal_graveyard(mask); break;
      default: break;
    }
  }

  // rules._legal_select
  void legal_select(uint8_t* mask) const {
    const int base = decision == D_SELECT_CHARACTER ? A_PICK_CHARACTER : A_DISCARD_CHARACTER;
    for (int rank = 1; rank <= kNumCharacters; ++rank)
      if (pile & bit(rank)) mask[base + rank - 1] = 1;
  }

  // rules._legal_main
  void legal_main(uint8_t* mask) const {
    const int p = turn_seat, rank = called;
    const uint8_t* hand = hands[p];
    const uint8_t* city = cities[p];
    const int32_t purse = gold[p];
    if (!gathered) {
      mask[A_GATHER_GOLD] = 1;
      if (deck_size > 0) mask[A_GATHER_CARDS] = 1;
    } else {
      mask[A_END_TURN] = 1;
      if (builds_done < build_limit)
        for (int kind = 0; kind < kNumKinds; ++kind)
          mask[A_BUILD + kind] = hand[kind] > 0 && city[kind] == 0 && kCost[kind] <= purse;
    }
    if (rank == ASSASSIN) {
      if (!ability_used)
        for (int r = 2; r <= kNumCharacters; ++r) mask[A_ASSASSINATE + r - 1] = 1;
    } else if (rank == THIEF) {
      if (!ability_used) {
        for (int r = 3; r <= kNumCharacters; ++r) mask[A_ROB + r - 1] = 1;
        if (killed >= 3) mask[A_ROB + killed - 1] = 0;
      }
    } else if (rank == MAGICIAN) {
      if (!ability_used) {
        for (int offset = 1; offset < n; ++offset) mask[A_MAGICIAN_SWAP + offset - 1] = 1;
        for (int kind = 0; kind < kNumKinds; ++kind) mask[A_MAGICIAN_MARK + kind] = hand[kind] > 0;
      }
    } else {
      if (rank >= 1 && rank <= kNumCharacters && kIncomeType[rank] >= 0 && !income_done) mask[A_COLLECT_INCOME] = 1;
      if (rank == WARLORD && !destroy_used) legal_destroy(p, purse, mask);
    }
    if (city[SMITHY] && !smithy_used && purse >= SMITHY_PRICE && deck_size > 0) mask[A_USE_SMITHY] = 1;
    if (city[LABORATORY] && !lab_used)
      for (int kind = 0; kind < kNumKinds; ++kind) mask[A_LAB_DISCARD + kind] = hand[kind] > 0;
  }

  // rules._legal_destroy
  void legal_destroy(int p, int32_t purse, uint8_t* mask) const {
    for (int offset = 0; offset < n; ++offset) {
      const int target = (p + offset) % n;
      if (!city_size[target] || !can_be_destroyed_in(target)) continue;
      const int base = A_DESTROY + offset * kNumKinds;
      const int wall = cities[target][GREAT_WALL] ? GREAT_WALL_SURCHARGE : 0;
      for (int kind = 0; kind < kNumKinds; ++kind) {
        if (!cities[target][kind] || kind == KEEP) continue;
        const int price = kCost[kind] - 1 + (kind != GREAT_WALL ? wall : 0);
        if (price <= purse) mask[base + kind] = 1;
      }
    }
  }

  // rules._legal_keep_drawn
  void legal_keep_drawn(uint8_t* mask) const {
    for (int i = 0; i < drawn_size; ++i) mask[A_KEEP_DRAWN + drawn[i]] = 1;
  }

  // rules._legal_magician_discard
  void legal_magician_discard(uint8_t* mask) const {
    for (int kind = 0; kind < kNumKinds; ++kind) mask[A_MAGICIAN_MARK + kind] = hands[actor][kind] > 0;
    mask[A_MAGICIAN_DONE] = 1;  // at least one card is marked in this mode
  }

  // rules._legal_graveyard
  void legal_graveyard(uint8_t* mask) const {
    mask[A_GRAVEYARD_RECOVER] = 1;
    mask[A_GRAVEYARD_DECLINE] = 1;
  }

  // ----- transitions --------------------------------------------------------------------------
  // rules.apply_action
  void apply(int action, Random& chance) {
    if (action < A_GATHER_GOLD) {
      if (action < A_DISCARD_CHARACTER) pick_character(action + 1, chance);
      else discard_character(action - A_DISCARD_CHARACTER + 1, chance);
    } else if (decision == D_MAIN) {
      apply_main(action, chance);
    } else if (decision == D_KEEP_DRAWN) {
      keep_drawn(action - A_KEEP_DRAWN);
    } else if (decision == D_MAGICIAN_DISCARD) {
      if (action == A_MAGICIAN_DONE) magician_done();
      else magician_mark(action - A_MAGICIAN_MARK);
    } else {
      graveyard(action == A_GRAVEYARD_RECOVER);
    }
  }

  // rules._apply_main
  void apply_main(int action, Random& rng) {
    const int p = turn_seat;
    if (action >= A_BUILD) {
      if (action < A_USE_SMITHY) {
        build(p, action - A_BUILD);
      } else if (action == A_USE_SMITHY) {
        gold[p] -= SMITHY_PRICE;
        smithy_used = true;
        const int got = draw_into_hand(p, SMITHY_CARDS);
        log_event(EVENT_SMITHY, p, got);
      } else if (action < A_END_TURN) {
        const int kind = action - A_LAB_DISCARD;
        hands[p][kind] -= 1;
        deck_append(kind);
        gold[p] += LABORATORY_GOLD;
        lab_used = true;
        log_event(EVENT_LABORATORY, p);
      } else {
        end_turn(rng);
      }
    } else if (action >= A_DESTROY) {
      const int offset = (action - A_DESTROY) / kNumKinds, kind = (action - A_DESTROY) % kNumKinds;
      destroy(p, (p + offset) % n, kind);
    } else if (action == A_GATHER_GOLD) {
      gold[p] += GATHER_GOLD_AMOUNT;
      gathered = true;
      log_event(EVENT_GATHER_GOLD, p);
    } else if (action == A_GATHER_CARDS) {
      gather_cards(p);
    } else if (action == A_COLLECT_INCOME) {
      collect_income();
    } else if (action < A_ROB) {
      killed = action - A_ASSASSINATE + 1;
      ability_used = true;
      log_event(EVENT_ASSASSINATE, p, killed);
    } else if (action < A_MAGICIAN_SWAP) {
      robbed = action - A_ROB + 1;
      ability_used = true;
      log_event(EVENT_ROB, p, robbed);
    } else if (action < A_MAGICIAN_MARK) {
      const int other = (p + action - A_MAGICIAN_SWAP + 1) % n;
      uint8_t mine[kNumKinds];
      std::memcpy(mine, hands[p], sizeof mine);
      std::memcpy(hands[p], hands[other], sizeof mine);
      std::memcpy(hands[other], mine, sizeof mine);
      ability_used = true;
      log_event(EVENT_SWAP, p, other);
    } else {
      magician_mark(action - A_MAGICIAN_MARK);
    }
  }

  // rules._gather_cards
  void gather_cards(int p) {
    const int want = cities[p][OBSERVATORY] ? OBSERVATORY_DRAW_COUNT : DRAW_COUNT;
    if (cities[p][LIBRARY]) {
      const int got = draw_into_hand(p, want);
      gathered = true;
      log_event(EVENT_GATHER_CARDS, p, got, got);
      return;
    }
    drawn_size = deck_take(want, drawn);
    decision = D_KEEP_DRAWN;
  }

  // rules._keep_drawn
  void keep_drawn(int kind) {
    const int p = turn_seat;
    int at = 0;
    while (at < drawn_size && drawn[at] != kind) ++at;  // drawn.remove(kind): the first such card
    if (at < drawn_size) {
      std::memmove(drawn + at, drawn + at + 1, static_cast<size_t>(drawn_size - at - 1));
      --drawn_size;
    }
    hands[p][kind] += 1;
    for (int i = 0; i < drawn_size; ++i) deck_append(drawn[i]);
    log_event(EVENT_GATHER_CARDS, p, drawn_size + 1, 1);
    drawn_size = 0;
    gathered = true;
    decision = D_MAIN;
  }

  // rules._magician_mark
  void magician_mark(int kind) {
    hands[turn_seat][kind] -= 1;
    if (marked_size < kDeckSize) marked[marked_size++] = static_cast<uint8_t>(kind);
    decision = D_MAGICIAN_DISCARD;
  }

  // rules._magician_done
  void magician_done() {
    const int p = turn_seat;
    const int count = marked_size;
    for (int i = 0; i < count; ++i) deck_append(marked[i]);
    marked_size = 0;
    draw_into_hand(p, count);
    ability_used = true;
    decision = D_MAIN;
    log_event(EVENT_REDRAW, p, count);
  }

  // rules._build
  void build(int p, int kind) {
    gold[p] -= kCost[kind];
    hands[p][kind] -= 1;
    cities[p][kind] = 1;
    city_size[p] += 1;
    builds_done += 1;
    log_event(EVENT_BUILD, p, kind);
    if (city_size[p] >= completion) {
      if (first_completer < 0) first_completer = p;
      game_ending = true;
    }
  }

  // rules._destroy
  void destroy(int p, int target, int kind) {
    const int price = destroy_cost(target, kind);
    gold[p] -= price;
    cities[target][kind] = 0;
    city_size[target] -= 1;
    destroy_used = true;
    log_event(EVENT_DESTROY, p, target, kind, price);
    const int owner = graveyard_owner(p);
    if (owner >= 0) {
      graveyard_card = kind;
      actor = owner;
      decision = D_GRAVEYARD;
    } else {
      deck_append(kind);
    }
  }

  // rules.graveyard_owner
  int graveyard_owner(int warlord) const {
    for (int seat = 0; seat < n; ++seat)
      if (seat != warlord && cities[seat][GRAVEYARD] && gold[seat] >= GRAVEYARD_PRICE) return seat;
    return -1;
  }

  // rules._graveyard
  void graveyard(bool recover) {
    const int owner = actor, kind = graveyard_card;
    if (recover) {
      gold[owner] -= GRAVEYARD_PRICE;
      hands[owner][kind] += 1;
    } else {
      deck_append(kind);
    }
    log_event(EVENT_GRAVEYARD, owner, kind, recover ? 1 : 0);
    graveyard_card = -1;
    actor = turn_seat;
    decision = D_MAIN;
  }

  // rules._end_turn
  void end_turn(Random& rng) {
    if (called >= 1 && called <= kNumCharacters && kIncomeType[called] >= 0 && !income_done) collect_income();
    log_event(EVENT_END_TURN, turn_seat);
    call_next_rank(rng);
  }

  // ----- scoring (§6) -------------------------------------------------------------------------
  // rules._has_five_types over a city
  bool has_five_types(int seat) const {
    bool type_present[kNumTypes] = {};
    for (int kind = 0; kind < kNumKinds; ++kind)
      if (cities[seat][kind] && kind != HAUNTED_QUARTER) type_present[kTypeOf[kind]] = true;
    int present = 0;
    for (bool here : type_present) present += here ? 1 : 0;
    return present == kNumTypes || (present == kNumTypes - 1 && cities[seat][HAUNTED_QUARTER]);
  }

  // rules.score (the sum of rules.score_parts)
  int64_t score(int seat) const {
    int64_t points = 0;
    for (int kind = 0; kind < kNumKinds; ++kind)
      if (cities[seat][kind]) points += kPoints[kind];
    if (has_five_types(seat)) points += FIVE_TYPES_BONUS;
    if (first_completer == seat) points += FIRST_COMPLETE_BONUS;
    else if (city_size[seat] >= completion) points += COMPLETE_BONUS;
    if (cities[seat][IMPERIAL_TREASURY]) points += gold[seat];
    if (cities[seat][MAP_ROOM]) points += hand_size(seat);
    return points;
  }

  // rules.tie_value
  int tie_value(int seat) const {
    int best = 0;
    for (int rank = 1; rank <= kNumCharacters; ++rank)
      if (revealed[rank] == seat) best = rank;
    return best;
  }

  void scores(double* out) const {
    for (int seat = 0; seat < n; ++seat) out[seat] = static_cast<double>(score(seat));
  }

  // rules.standing_keys
  void standings(std::vector<double>& out, int& width) const {
    width = 2;
    out.assign(static_cast<size_t>(2 * n), 0.0);
    for (int seat = 0; seat < n; ++seat) {
      out[static_cast<size_t>(2 * seat)] = static_cast<double>(score(seat));
      out[static_cast<size_t>(2 * seat + 1)] = tie_value(seat);
    }
  }

  // rules.winners: core.game.leaders over the standing keys (points, then the tie value)
  void winners(std::vector<int>& out) const {
    out.clear();
    int64_t best_score = INT64_MIN;
    int best_tie = -1;
    for (int seat = 0; seat < n; ++seat) {
      const int64_t points = score(seat);
      const int tie = tie_value(seat);
      if (points > best_score || (points == best_score && tie > best_tie)) best_score = points, best_tie = tie;
    }
    for (int seat = 0; seat < n; ++seat)
      if (score(seat) == best_score && tie_value(seat) == best_tie) out.push_back(seat);
  }

  // ----- the Game API ---------------------------------------------------------------------------
  int current_player() const { return actor; }
  bool is_over() const { return decision == D_GAME_OVER; }
  bool is_truncated() const { return truncated; }
  const char* decision_name() const {
    return decision >= 0 && decision < kNumDecisions ? kDecisionNames[decision] : "GAME_OVER";
  }

  // ----- observation (view.observation) ---------------------------------------------------------
  void observation(int p, float* obs) const {
    std::memset(obs, 0, sizeof(float) * kObservationSize);
    const auto f32 = [](double value) { return static_cast<float>(value); };
    const int not_mine = O_CONTEXT_DECISION + kNumDecisions;
    obs[decision >= 0 && actor == p ? O_CONTEXT_DECISION + decision : not_mine] = 1.0F;
    obs[O_CONTEXT_PLAYER_COUNT + n - 2] = 1.0F;
    obs[O_CONTEXT_LONG_COMPLETION] = completion == LONG_COMPLETION_SIZE ? 1.0F : 0.0F;
    obs[O_CONTEXT_ROUND] = f32(static_cast<double>(round) / 20.0);
    obs[O_CONTEXT_GAME_ENDING] = game_ending ? 1.0F : 0.0F;
    obs[O_CONTEXT_DECK] = f32(static_cast<double>(deck_size) / kDeckSize);
    if (called) obs[O_CONTEXT_CALLED + called - 1] = 1.0F;
    obs[O_SELF_GOLD] = f32(gold[p] / 10.0);
    for (int kind = 0; kind < kNumKinds; ++kind)
      obs[O_SELF_HAND + kind] = static_cast<float>(hands[p][kind]) * 0.2F;  // float32 *= 0.2, as numpy does
    int mine = 0;
    for (int rank = 1; rank <= kNumCharacters; ++rank)
      if (holder[rank] == p) mine |= bit(rank);
    for (int rank = 1; rank <= kNumCharacters; ++rank)
      obs[O_SELF_MY_CHARACTERS + rank - 1] = (mine & bit(rank)) ? 1.0F : 0.0F;
    if (turn_seat == p) {
      for (int i = 0; i < drawn_size; ++i) obs[O_SELF_DRAWN + drawn[i]] += 1.0F;
      for (int i = 0; i < marked_size; ++i) obs[O_SELF_MARKED + marked[i]] += 1.0F;
      const bool flags[6] = {gathered, ability_used, income_done, destroy_used, smithy_used, lab_used};
      for (int i = 0; i < 6; ++i) obs[O_SELF_GATHERED + i] = flags[i] ? 1.0F : 0.0F;
      obs[O_SELF_BUILDS_LEFT + build_limit - builds_done] = 1.0F;
    }
    // every seat's public state, relative order
    float* seats = obs + O_SEATS_START;
    for (int o = 0; o < n; ++o) {
      const int i = (p + o) % n;
      float* row = seats + o * O_SEATS_WIDTH;
      row[O_SEATS_PRESENT] = 1.0F;
      row[O_SEATS_GOLD] = f32(gold[i] / 10.0);
      row[O_SEATS_HAND_SIZE] = f32(hand_size(i) / 10.0);
      row[O_SEATS_CITY_SIZE] = f32(city_size[i] / 8.0);
      row[O_SEATS_COMPLETE] = city_size[i] >= completion ? 1.0F : 0.0F;
      row[O_SEATS_PLAYED] = played[i] ? 1.0F : 0.0F;
      for (int kind = 0; kind < kNumKinds; ++kind) row[O_SEATS_CITY + kind] = cities[i][kind];
    }
    const auto offset_of = [this, p](int seat) { return ((seat - p) % n + n) % n; };
    if (first_completer >= 0) seats[offset_of(first_completer) * O_SEATS_WIDTH + O_SEATS_FIRST_COMPLETER] = 1.0F;
    seats[offset_of(crown) * O_SEATS_WIDTH + O_SEATS_CROWN] = 1.0F;
    // per character; revealed ranks also fill the seats' revealed columns and Bishop protection
    float* ranks = obs + O_RANKS_START;
    const int masks[5] = {face_up, offered_at(p, 0), offered_at(p, 1), known_facedown[p], mine};
    for (int rank = 1; rank <= kNumCharacters; ++rank) {
      float* row = ranks + (rank - 1) * O_RANKS_WIDTH;
      for (int c = 0; c < 5; ++c) row[O_RANKS_FACE_UP + c] = (masks[c] & bit(rank)) ? 1.0F : 0.0F;
      const int seat = revealed[rank];
      if (seat >= 0) {
        const int offset = offset_of(seat);
        row[O_RANKS_REVEALED] = 1.0F;
        row[O_RANKS_REVEALER + offset] = 1.0F;
        seats[offset * O_SEATS_WIDTH + O_SEATS_REVEALED + rank - 1] = 1.0F;
        if (rank == BISHOP) seats[offset * O_SEATS_WIDTH + O_SEATS_BISHOP_PROTECTED] = 1.0F;
      }
      if (rank <= called) row[O_RANKS_CALLED] = 1.0F;
    }
    if (killed) ranks[(killed - 1) * O_RANKS_WIDTH + O_RANKS_KILLED] = 1.0F;
    if (robbed) ranks[(robbed - 1) * O_RANKS_WIDTH + O_RANKS_ROBBED] = 1.0F;
    if (graveyard_card >= 0) obs[O_GRAVEYARD_CARD + graveyard_card] = 1.0F;
  }

  // ----- determinization (view.determinize) -------------------------------------------------------
  void resample_hidden(int p, Random& rng) {
    resample_cards(p, rng);
    resample_characters(p, rng);
  }

  // view._resample_cards
  void resample_cards(int p, Random& rng) {
    const bool hidden_pending = turn_seat != p;
    int unseen[kNumKinds];
    for (int kind = 0; kind < kNumKinds; ++kind) {
      unseen[kind] = kCopies[kind] - hands[p][kind];
      for (int seat = 0; seat < n; ++seat) unseen[kind] -= cities[seat][kind];
    }
    if (graveyard_card >= 0) unseen[graveyard_card] -= 1;
    if (!hidden_pending) {
      for (int i = 0; i < drawn_size; ++i) unseen[drawn[i]] -= 1;
      for (int i = 0; i < marked_size; ++i) unseen[marked[i]] -= 1;
    }
    uint8_t sorted_pool[kDeckSize];
    int total = 0;
    for (int kind = 0; kind < kNumKinds; ++kind) {
      if (unseen[kind] < 0) throw std::invalid_argument("determinize: negative dimensions are not allowed");
      for (int copy = 0; copy < unseen[kind]; ++copy) sorted_pool[total++] = static_cast<uint8_t>(kind);
    }
    const std::vector<int64_t> order = rng.permutation(total);
    uint8_t pool[kDeckSize];
    for (int i = 0; i < total; ++i) pool[i] = sorted_pool[order[static_cast<size_t>(i)]];
    int at = 0;
    for (int seat = 0; seat < n; ++seat) {
      if (seat == p) continue;
      int size = hand_size(seat);
      if (size > total - at) size = total - at;
      std::memset(hands[seat], 0, sizeof hands[seat]);
      for (int i = 0; i < size; ++i) hands[seat][pool[at + i]] += 1;
      at += size;
    }
    if (hidden_pending) {
      drawn_size = drawn_size < total - at ? drawn_size : total - at;
      std::memcpy(drawn, pool + at, static_cast<size_t>(drawn_size));
      at += drawn_size;
      marked_size = marked_size < total - at ? marked_size : total - at;
      std::memcpy(marked, pool + at, static_cast<size_t>(marked_size));
      at += marked_size;
    }
    if (total - at != deck_size) throw std::runtime_error("determinize: the unseen cards do not fill the deck");
    std::memcpy(deck, pool + at, static_cast<size_t>(deck_size));
  }

  // view._allowed
  bool allowed(int event, int seat, int rank) const {
    const int revealer = revealed[rank];
    if (event == EV_PICK) {
      if (revealer >= 0) return revealer == seat;
      return rank > called || rank == killed;  // a called, living, unrevealed rank was not held
    }
    return revealer < 0;
  }

  // view._resample_characters
  void resample_characters(int p, Random& rng) {
    const int everyone = kAllRanks & ~face_up;
    const bool seven = n == 7;
    int ranks[kMaxLog];
    for (int attempt = 0; attempt < 200; ++attempt)
      if (sample_selection(p, rng, everyone, seven, ranks) && replay_selection(p, ranks)) return;
    throw std::runtime_error("could not determinize the character selection");
  }

  // view._sample_selection: new ranks for the selection log, segment by segment between p's picks.
  bool sample_selection(int p, Random& rng, int everyone, bool seven, int* ranks) const {
    for (int i = 0; i < sel_log_size; ++i) ranks[i] = sel_log[i][2];
    int known = everyone;  // the pile as p last saw it, plus ranks not yet placed
    int pending[kMaxLog];
    int num_pending = 0;
    int picks = 0;
    int set_aside = 0;  // 7 players: the face-down card, once p has seen the pile without it
    unsigned last_two = 0;
    for (int i = 0; i < sel_log_size; ++i)
      if (sel_log[i][0] == EV_LEFTOVER) last_two |= 1U << i;
    if (seven) {
      int seen = 0;
      for (int i = 0; i < sel_log_size; ++i)
        if (sel_log[i][0] == EV_PICK && seen++ == 6) last_two |= 1U << i;
    }
    for (int i = 0; i < sel_log_size; ++i) {
      const int event = sel_log[i][0], seat = sel_log[i][1], rank = sel_log[i][2];
      if (seven && event == EV_FACEDOWN) continue;
      if (seat == p) {
        if (event == EV_PICK) {
          const int carry = fill(rng, ranks, pending, num_pending, known & ~offered_at(p, picks), set_aside, last_two);
          if (carry < 0) return false;
          if (seven && carry) set_aside = carry;
          known = offered_at(p, picks) | carry;
          picks += 1;
          num_pending = 0;
        }
        known &= ~bit(rank);
      } else {
        pending[num_pending++] = i;
      }
    }
    const bool sees_pile = picks < offered_count[p];  // p is choosing from a pile it sees right now
    const int pool = sees_pile ? known & ~offered_at(p, picks) : known;
    const int hidden = fill(rng, ranks, pending, num_pending, pool, set_aside, last_two);
    if (hidden < 0) return false;
    int candidates[kNumCharacters];
    if (seven && set_aside) {
      ranks_of(set_aside, candidates);
      ranks[0] = candidates[0];
    } else if (seven) {
      const bool in_selection = decision == D_SELECT_CHARACTER || decision == D_SELECT_DISCARD;
      int count = 0;
      if (!in_selection) {  // it was one of the two cards the 7th picker chose between
        for (int i = sel_log_size - 2; i < sel_log_size; ++i) candidates[count++] = ranks[i < 0 ? i + sel_log_size : i];
      } else if (step == 6 && sees_pile) {
        count = ranks_of(offered_at(p, picks), candidates);
      } else {
        count = ranks_of(hidden, candidates);
      }
      ranks[0] = candidates[rng.integers(count)];
    }
    return true;
  }

  // view._fill: distinct ranks of `pool_mask` for the pending events, most constrained first.
  // Returns the mask of ranks left over, or -1 when the random greedy choice hit a dead end.
  int fill(Random& rng, int* ranks, const int* pending, int num_pending, int pool_mask, int set_aside,
           unsigned last_two) const {
    int pool[kNumCharacters];
    const int pool_size = ranks_of(pool_mask, pool);
    if (pool_size < num_pending) return -1;
    int options[kMaxLog][kNumCharacters];
    int option_count[kMaxLog];
    for (int k = 0; k < num_pending; ++k) {
      const int i = pending[k];
      option_count[k] = 0;
      for (int j = 0; j < pool_size; ++j) {
        const int x = pool[j];
        if (allowed(sel_log[i][0], sel_log[i][1], x) && (((last_two >> i) & 1U) || !(set_aside & bit(x))))
          options[k][option_count[k]++] = x;
      }
    }
    int order[kMaxLog];  // sorted(pending, key=len(options)): a stable insertion sort
    for (int k = 0; k < num_pending; ++k) {
      int at = k;
      while (at > 0 && option_count[order[at - 1]] > option_count[k]) {
        order[at] = order[at - 1];
        --at;
      }
      order[at] = k;
    }
    int left = pool_mask;
    for (int o = 0; o < num_pending; ++o) {
      const int k = order[o];
      int choices[kNumCharacters];
      int count = 0;
      for (int j = 0; j < option_count[k]; ++j)
        if (left & bit(options[k][j])) choices[count++] = options[k][j];
      if (count == 0) return -1;
      const int pick = choices[rng.integers(count)];
      ranks[pending[k]] = pick;
      left &= ~bit(pick);
    }
    return left;
  }

  // view._replay_selection: rebuild holders, offered sets, known discards and the pile; check p's.
  bool replay_selection(int p, const int* ranks) {
    int new_holder[kNumCharacters + 1];
    for (int& seat : new_holder) seat = -1;
    int new_offered[kMaxPlayers][kMaxLog] = {};
    int new_offered_count[kMaxPlayers] = {};
    int known_down[kMaxPlayers] = {};
    if (sel_log_size == 0) return false;
    const int new_facedown = ranks[0];
    int new_pile = kAllRanks & ~face_up & ~bit(new_facedown);
    int at_step = 0;
    for (int i = 1; i < sel_log_size; ++i) {
      const int event = sel_log[i][0], seat = seat_index(sel_log[i][1]), rank = ranks[i];
      if (event == EV_PICK || event == EV_DISCARD) {
        if (n == 7 && at_step == 6) new_pile |= bit(new_facedown);
        if (event == EV_PICK) {
          new_offered[seat][new_offered_count[seat]++] = new_pile;
          new_holder[rank] = sel_log[i][1];
        } else {
          known_down[seat] |= bit(rank);
        }
        at_step += 1;
      } else {
        known_down[seat] |= bit(rank);
      }
      if (!(new_pile & bit(rank))) return false;
      new_pile &= ~bit(rank);
    }
    const bool in_selection = decision == D_SELECT_CHARACTER || decision == D_SELECT_DISCARD;
    if (in_selection) {
      if (n == 7 && at_step == 6) new_pile |= bit(new_facedown);
      if (decision == D_SELECT_CHARACTER && new_offered_count[actor] < kMaxLog)
        new_offered[actor][new_offered_count[actor]++] = new_pile;
    }
    if (new_offered_count[p] != offered_count[p]) return false;
    for (int k = 0; k < offered_count[p]; ++k)
      if (new_offered[p][k] != offered[p][k]) return false;
    if (known_down[p] != known_facedown[p]) return false;
    if (in_selection && actor == p && new_pile != pile) return false;
    for (int seat = 0; seat < n; ++seat)
      if (new_offered_count[seat] > kMaxPicks) return false;  // never in play: a seat picks twice at most
    for (int i = 0; i < sel_log_size; ++i) sel_log[i][2] = ranks[i];
    std::memcpy(holder, new_holder, sizeof holder);
    for (int seat = 0; seat < n; ++seat) {
      offered_count[seat] = new_offered_count[seat];
      for (int k = 0; k < new_offered_count[seat]; ++k) offered[seat][k] = new_offered[seat][k];
      known_facedown[seat] = known_down[seat];
    }
    facedown = new_facedown;
    pile = in_selection ? new_pile : 0;
    return true;
  }

  // ----- serialization (game._state_to_dict / _state_from_dict) ------------------------------------
  void write_json(json::Writer& out) const {
    out.begin_object();
    out.key("n").value(n);
    out.key("completion").value(completion);
    out.key("max_rounds").value(max_rounds);
    out.key("deck").begin_array();
    for (int i = 0; i < deck_size; ++i) out.value(static_cast<int>(deck[i]));
    out.end_array();
    out.key("hands").begin_array();
    for (int seat = 0; seat < n; ++seat) out.array(hands[seat]);
    out.end_array();
    out.key("cities").begin_array();
    for (int seat = 0; seat < n; ++seat) out.array(cities[seat]);
    out.end_array();
    write_ints(out, "city_size", city_size, n);
    write_ints(out, "gold", gold, n);
    out.key("crown").value(crown);
    out.key("round").value(round);
    out.key("first_completer").value(first_completer);
    out.key("game_ending").value(game_ending);
    out.key("truncated").value(truncated);
    out.key("decision").value(decision);
    out.key("actor").value(actor);
    out.key("face_up").value(face_up);
    out.key("facedown").value(facedown);
    out.key("pile").value(pile);
    out.key("steps").begin_array();
    for (int i = 0; i < num_steps; ++i) out.array(steps[i]);
    out.end_array();
    out.key("step").value(step);
    write_ints(out, "holder", holder, kNumCharacters + 1);
    out.key("offered").begin_array();
    for (int seat = 0; seat < n; ++seat) {
      out.begin_array();
      for (int k = 0; k < offered_count[seat]; ++k) out.value(offered[seat][k]);
      out.end_array();
    }
    out.end_array();
    out.key("sel_log").begin_array();
    for (int i = 0; i < sel_log_size; ++i) out.array(sel_log[i]);
    out.end_array();
    write_ints(out, "known_facedown", known_facedown, n);
    out.key("called").value(called);
    out.key("killed").value(killed);
    out.key("robbed").value(robbed);
    write_ints(out, "revealed", revealed, kNumCharacters + 1);
    out.key("played").begin_array();
    for (int seat = 0; seat < n; ++seat) out.value(played[seat]);
    out.end_array();
    out.key("turn_seat").value(turn_seat);
    out.key("gathered").value(gathered);
    out.key("ability_used").value(ability_used);
    out.key("income_done").value(income_done);
    out.key("destroy_used").value(destroy_used);
    out.key("smithy_used").value(smithy_used);
    out.key("lab_used").value(lab_used);
    out.key("builds_done").value(builds_done);
    out.key("build_limit").value(build_limit);
    out.key("drawn").begin_array();
    for (int i = 0; i < drawn_size; ++i) out.value(static_cast<int>(drawn[i]));
    out.end_array();
    out.key("marked").begin_array();
    for (int i = 0; i < marked_size; ++i) out.value(static_cast<int>(marked[i]));
    out.end_array();
    out.key("graveyard_card").value(graveyard_card);
    out.key("events").begin_array();
    for (int i = 0; i < num_events; ++i) {
      const Event& event = events[i];
      out.begin_array();
      out.value(kEventNames[event.name]);
      const int arity = kEventArity[event.name];
      for (int k = 0; k < arity; ++k) {
        if (event.name == EVENT_GRAVEYARD && k == 2) out.value(event.args[k] != 0);
        else out.value(static_cast<int64_t>(event.args[k]));
      }
      out.end_array();
    }
    out.end_array();
    out.end_object();
  }

  template <class T>
  static void write_ints(json::Writer& out, const char* key, const T* values, int count) {
    out.key(key).begin_array();
    for (int i = 0; i < count; ++i) out.value(static_cast<int64_t>(values[i]));
    out.end_array();
  }

  // Reads the list `list` of exactly `count` ints in [low, high] into `out`, naming `field` in errors.
  template <class T>
  static void read_list(const json::Value& list, const char* field, T* out, int count, int64_t low, int64_t high) {
    const auto& items = list.as_array(field, static_cast<size_t>(count));
    if (static_cast<int>(items.size()) != count)
      throw std::invalid_argument(std::string("state: ") + field + " must hold " + std::to_string(count) + " values");
    for (int i = 0; i < count; ++i) out[i] = static_cast<T>(items[static_cast<size_t>(i)].as_int(field, low, high));
  }

  template <class T>
  static void read_ints(const json::Value& state, const char* field, T* out, int count, int64_t low, int64_t high) {
    read_list(state.at(field), field, out, count, low, high);
  }

  // Reads a list of at most `capacity` card kinds; returns how many.
  static int read_cards(const json::Value& state, const char* field, uint8_t* out, int capacity) {
    const auto& items = state.at(field).as_array(field, static_cast<size_t>(capacity));
    for (size_t i = 0; i < items.size(); ++i) out[i] = static_cast<uint8_t>(checked_index(items[i], field, kNumKinds));
    return static_cast<int>(items.size());
  }

  static void require(bool ok, const char* field, const char* why) {
    if (!ok) throw std::invalid_argument(std::string("state: ") + field + ": " + why);
  }

  void read_json(int num_players, const json::Value& options, const json::Value& state) {
    bool classic_variant = false;
    int64_t rounds = 1;
    read_options(options, classic_variant, rounds);
    *this = Game();
    check_keys(state);
    n = static_cast<int>(state.at("n").as_int("n", num_players, num_players));
    const int seat_high = n - 1;
    completion = static_cast<int>(state.at("completion").as_int("completion", COMPLETION_SIZE, LONG_COMPLETION_SIZE));
    require(completion == ((n < 4 || classic_variant) ? LONG_COMPLETION_SIZE : COMPLETION_SIZE), "completion",
            "does not match the player count and options");
    max_rounds = state.at("max_rounds").as_int("max_rounds", rounds, rounds);
    deck_size = read_cards(state, "deck", deck, kDeckSize);
    for (const char* field : {"hands", "cities"}) {
      const bool is_hands = field[0] == 'h';
      const auto& rows = state.at(field).as_array(field, static_cast<size_t>(n));
      require(static_cast<int>(rows.size()) == n, field, "must hold one row per seat");
      for (int seat = 0; seat < n; ++seat)
        read_list(rows[static_cast<size_t>(seat)], field, is_hands ? hands[seat] : cities[seat], kNumKinds, 0,
                  is_hands ? kMaxCopies : 1);
    }
    read_ints(state, "city_size", city_size, n, 0, kNumKinds);
    read_ints(state, "gold", gold, n, 0, kMaxGold);
    crown = static_cast<int>(state.at("crown").as_int("crown", 0, seat_high));
    round = state.at("round").as_int("round", 1, max_rounds);
    first_completer = static_cast<int>(state.at("first_completer").as_int("first_completer", -1, seat_high));
    game_ending = state.at("game_ending").as_bool("game_ending");
    truncated = state.at("truncated").as_bool("truncated");
    decision = static_cast<int>(state.at("decision").as_int("decision", D_GAME_OVER, kNumDecisions - 1));
    actor = static_cast<int>(state.at("actor").as_int("actor", -1, seat_high));
    face_up = static_cast<int>(state.at("face_up").as_int("face_up", 0, kAllRanks));
    facedown = static_cast<int>(state.at("facedown").as_int("facedown", 1, kNumCharacters));
    pile = static_cast<int>(state.at("pile").as_int("pile", 0, kAllRanks));
    const auto& step_items = state.at("steps").as_array("steps", kMaxSteps);
    num_steps = static_cast<int>(step_items.size());
    require(num_steps > 0, "steps", "is empty");
    for (int i = 0; i < num_steps; ++i)
      read_list(step_items[static_cast<size_t>(i)], "steps", steps[i], 2, 0, seat_high);
    int expected[kMaxSteps][2];
    const int expected_count = selection_steps(n, steps[0][0], expected);
    require(expected_count == num_steps && std::memcmp(expected, steps, sizeof(int) * 2 * num_steps) == 0, "steps",
            "not a pick order of this player count");
    step = static_cast<int>(state.at("step").as_int("step", 0, num_steps));
    read_ints(state, "holder", holder, kNumCharacters + 1, -1, seat_high);
    const auto& offered_items = state.at("offered").as_array("offered", static_cast<size_t>(n));
    require(static_cast<int>(offered_items.size()) == n, "offered", "must hold one list per seat");
    for (int seat = 0; seat < n; ++seat) {
      const auto& masks = offered_items[static_cast<size_t>(seat)].as_array("offered", kMaxPicks);
      offered_count[seat] = static_cast<int>(masks.size());
      for (size_t k = 0; k < masks.size(); ++k)
        offered[seat][k] = static_cast<int>(masks[k].as_int("offered", 0, kAllRanks));
    }
    const auto& log_items = state.at("sel_log").as_array("sel_log", kMaxLog);
    sel_log_size = static_cast<int>(log_items.size());
    require(sel_log_size > 0, "sel_log", "does not open with the face-down card");
    for (int i = 0; i < sel_log_size; ++i) {
      const auto& entry = log_items[static_cast<size_t>(i)].as_array("sel_log", 3);
      require(entry.size() == 3, "sel_log", "an entry is not (event, seat, rank)");
      sel_log[i][0] = static_cast<int>(entry[0].as_int("sel_log", EV_FACEDOWN, EV_LEFTOVER));
      sel_log[i][1] = static_cast<int>(entry[1].as_int("sel_log", -1, seat_high));
      sel_log[i][2] = static_cast<int>(entry[2].as_int("sel_log", 1, kNumCharacters));
    }
    read_ints(state, "known_facedown", known_facedown, n, 0, kAllRanks);
    called = static_cast<int>(state.at("called").as_int("called", 0, kNumCharacters));
    killed = static_cast<int>(state.at("killed").as_int("killed", 0, kNumCharacters));
    robbed = static_cast<int>(state.at("robbed").as_int("robbed", 0, kNumCharacters));
    read_ints(state, "revealed", revealed, kNumCharacters + 1, -1, seat_high);
    const auto& played_items = state.at("played").as_array("played", static_cast<size_t>(n));
    require(static_cast<int>(played_items.size()) == n, "played", "must hold one value per seat");
    for (int seat = 0; seat < n; ++seat) played[seat] = played_items[static_cast<size_t>(seat)].as_bool("played");
    turn_seat = static_cast<int>(state.at("turn_seat").as_int("turn_seat", -1, seat_high));
    gathered = state.at("gathered").as_bool("gathered");
    ability_used = state.at("ability_used").as_bool("ability_used");
    income_done = state.at("income_done").as_bool("income_done");
    destroy_used = state.at("destroy_used").as_bool("destroy_used");
    smithy_used = state.at("smithy_used").as_bool("smithy_used");
    lab_used = state.at("lab_used").as_bool("lab_used");
    build_limit = static_cast<int>(state.at("build_limit").as_int("build_limit", BUILD_LIMIT, ARCHITECT_BUILD_LIMIT));
    require(build_limit == BUILD_LIMIT || build_limit == ARCHITECT_BUILD_LIMIT, "build_limit", "is neither limit");
    builds_done = static_cast<int>(state.at("builds_done").as_int("builds_done", 0, build_limit));
    drawn_size = read_cards(state, "drawn", drawn, kDeckSize);
    marked_size = read_cards(state, "marked", marked, kDeckSize);
    graveyard_card = static_cast<int>(state.at("graveyard_card").as_int("graveyard_card", -1, kNumKinds - 1));
    read_events(state);
    check_cards();
    check_decision();
  }

  // The state's keys are State's fields, each once (State(**fields) refuses any other).
  static void check_keys(const json::Value& state) {
    static constexpr const char* kKeys[] = {
        "n", "completion", "max_rounds", "deck", "hands", "cities", "city_size", "gold", "crown", "round",
        "first_completer", "game_ending", "truncated", "decision", "actor", "face_up", "facedown", "pile", "steps",
        "step", "holder", "offered", "sel_log", "known_facedown", "called", "killed", "robbed", "revealed", "played",
        "turn_seat", "gathered", "ability_used", "income_done", "destroy_used", "smithy_used", "lab_used",
        "builds_done", "build_limit", "drawn", "marked", "graveyard_card", "events"};
    constexpr size_t kNumKeys = sizeof kKeys / sizeof kKeys[0];
    require(state.kind == json::Value::Kind::kObject, "state", "must be an object");
    bool seen[kNumKeys] = {};
    for (const auto& member : state.members) {
      size_t which = 0;
      while (which < kNumKeys && member.first != kKeys[which]) ++which;
      if (which == kNumKeys) throw std::invalid_argument("state: unknown key '" + member.first + "'");
      if (seen[which]) throw std::invalid_argument("state: key '" + member.first + "' given twice");
      seen[which] = true;
    }
  }

  void read_events(const json::Value& state) {
    const auto& items = state.at("events").as_array("events", kMaxEvents);
    num_events = static_cast<int>(items.size());
    for (int i = 0; i < num_events; ++i) {
      const auto& entry = items[static_cast<size_t>(i)].as_array("events", 5);
      require(!entry.empty(), "events", "an event has no name");
      const std::string& name = entry[0].as_string("events");
      int which = 0;
      while (which < kNumEventNames && name != kEventNames[which]) ++which;
      require(which < kNumEventNames, "events", "an event has an unknown name");
      require(static_cast<int>(entry.size()) == kEventArity[which] + 1, "events", "an event has the wrong length");
      Event& event = events[i];
      event.name = static_cast<uint8_t>(which);
      for (int k = 0; k < kEventArity[which]; ++k) {
        const auto& value = entry[static_cast<size_t>(k + 1)];
        if (which == EVENT_GRAVEYARD && k == 2) event.args[k] = value.as_bool("events") ? 1 : 0;
        else event.args[k] = static_cast<int32_t>(value.as_int("events", -2 * int64_t{kMaxGold}, 2 * kMaxGold));
      }
    }
  }

  // validation._check_cards: every card in exactly one place; city sizes agree with the cities.
  void check_cards() const {
    int count[kNumKinds] = {};
    for (int i = 0; i < deck_size; ++i) ++count[deck[i]];
    for (int i = 0; i < drawn_size; ++i) ++count[drawn[i]];
    for (int i = 0; i < marked_size; ++i) ++count[marked[i]];
    if (graveyard_card >= 0) ++count[graveyard_card];
    for (int seat = 0; seat < n; ++seat) {
      int size = 0;
      for (int kind = 0; kind < kNumKinds; ++kind) {
        count[kind] += hands[seat][kind] + cities[seat][kind];
        size += cities[seat][kind];
      }
      require(size == city_size[seat], "city_size", "disagrees with the city");
    }
    for (int kind = 0; kind < kNumKinds; ++kind)
      require(count[kind] == kCopies[kind], "deck", "cards are missing or duplicated");
  }

  // validation._check_decision, as far as the transitions index by it.
  void check_decision() const {
    if (decision == D_GAME_OVER) {
      require(actor == -1, "actor", "acts although the game is over");
      return;
    }
    require(actor >= 0, "actor", "nobody acts");
    if (decision == D_SELECT_CHARACTER || decision == D_SELECT_DISCARD) {
      require(step < num_steps && steps[step][0] == actor && steps[step][1] == decision, "actor",
              "not the pick order's step");
      return;
    }
    require(called >= 1 && called != killed && holder[called] >= 0, "called", "has no living holder to act");
    require(turn_seat >= 0 && turn_seat == holder[called] && turn_seat == revealed[called], "turn_seat",
            "is not the holder of the called rank");
    require((graveyard_card >= 0) == (decision == D_GRAVEYARD), "graveyard_card", "disagrees with the decision");
    if (decision != D_GRAVEYARD) require(actor == turn_seat, "actor", "acts in another seat's turn");
  }

  // ----- the heuristic agent (heuristic.hpp) --------------------------------------------------
  // agents/citadels_heuristic.py's pick for `player` among `count` >= 2 legal ids, ties drawn from rng.
  int heuristic(int player, const int* legal, int count, Random& rng) const;
};

}  // namespace city_envs::native::citadels

#include "heuristic.hpp"
