// Urban Sprawl, native: the C++ twin of city_envs/urban_sprawl (rules.py, view.py, game.py), same match
// for the same seed. Each member mirrors the Python function named in its comment.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/game.hpp"
#include "../core/json.hpp"
#include "../core/random.hpp"
#include "components.hpp"

namespace city_envs::native::urban_sprawl {

// A list of at most N values in place (a Python list whose size is bounded).
template <class T, int N>
struct Vec {
  T data[N];
  int count = 0;

  int size() const { return count; }
  bool empty() const { return count == 0; }
  T& operator[](int i) { return data[i]; }
  const T& operator[](int i) const { return data[i]; }
  T& back() { return data[count - 1]; }
  const T& back() const { return data[count - 1]; }
  T* begin() { return data; }
  T* end() { return data + count; }
  const T* begin() const { return data; }
  const T* end() const { return data + count; }
  void clear() { count = 0; }
  void push(T value) {  // never past N (unreachable from a state read_json accepts)
    if (count < N) data[count++] = value;
  }
  T pop() { return data[--count]; }
  T erase_at(int i) {
    T value = data[i];
    for (int k = i; k + 1 < count; ++k) data[k] = data[k + 1];
    --count;
    return value;
  }
  void insert_at(int i, T value) {
    for (int k = count; k > i; --k) data[k] = data[k - 1];
    data[i] = value;
    ++count;
  }
  int index_of(T value) const {
    for (int i = 0; i < count; ++i)
      if (data[i] == value) return i;
    return -1;
  }
  bool contains(T value) const { return index_of(value) >= 0; }
  void remove(T value) { erase_at(index_of(value)); }  // list.remove: the first occurrence
};

constexpr int kMaxSeats = 4;
constexpr int kMaxTasks = 256;  // a real stack holds far fewer (a Tribute pushes one per opponent building)
constexpr int NONE = -2;  // no decision pending: tasks run
constexpr int GAME_OVER = -1;
constexpr int NOBODY = -1;

// rules.Building, `alive` false for a demolished one (None)
struct Building {
  int8_t zone = 0, size = 0, owner = NOBODY;
  bool alive = false;
  uint8_t lots[4] = {0, 0, 0, 0};
};

// The task records of rules.py (TASK_NAMES order), fields a, b, c in the record's order.
enum TaskKind : uint8_t {
  kBuildDone, kVocation, kVocPayout, kVocPayOne, kEffectTask, kTributeOne, kParkNear, kParkAnywhere,
  kMarkerTask, kMoveMarker, kElectionTask, kElected, kBallot, kPayout, kSlidePlanning, kRefillPlanning,
  kRevealPlanning, kSlideContracts, kRefillContracts, kRevealContract, kNextTurn, kPlanningEventTask,
  kBlight, kHeadlines, kAuctionOne, kContractEventTask, kRelocate, kDisasterOne, kDemolish, kTaskKinds
};
constexpr const char* kTaskNames[kTaskKinds] = {
    "build_done", "vocation", "voc_payout", "voc_pay_one", "effect", "tribute_one", "park_near",
    "park_anywhere", "marker", "move_marker", "election", "elected", "ballot", "payout",
    "slide_planning", "refill_planning", "reveal_planning", "slide_contracts", "refill_contracts",
    "reveal_contract", "next_turn", "planning_event", "blight", "headlines", "auction_one",
    "contract_event", "relocate", "disaster_one", "demolish"};
constexpr int kTaskFields[kTaskKinds] = {0, 2, 2, 3, 3, 2, 2, 1, 2, 1, 1, 2, 0, 2, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 2, 1, 1, 2, 1};

struct Task {
  uint8_t kind = kBuildDone;
  int16_t a = 0, b = 0, c = 0;  // Payout: a = 0 for "w", 1 for "p"
};
inline Task make_task(TaskKind kind, int a = 0, int b = 0, int c = 0) {
  Task t;
  t.kind = kind;
  t.a = static_cast<int16_t>(a);
  t.b = static_cast<int16_t>(b);
  t.c = static_cast<int16_t>(c);
  return t;
}

// The pending decision's context (rules.Context): which TypedDict, and its fields.
enum CtxKind : uint8_t {
  kNoCtx, kVocSourceCtx, kVocPayoutCtx, kTributeCtx, kLotsCtx, kMarkerPlaceCtx, kMarkerMoveCtx,
  kElectionTieCtx, kMediaTieCtx, kPickCtx, kBlightCtx, kAuctionCtx, kDisasterCtx
};
enum Purpose : uint8_t { kPurposeBlight, kPurposeHeadlines, kPurposeRelocate, kPurposeDemolish };
constexpr const char* kPurposeNames[4] = {"blight", "headlines", "relocate", "demolish"};
constexpr TaskKind kPicked[4] = {kBlight, kHeadlines, kRelocate, kDemolish};  // rules.PICKED

struct Ctx {
  uint8_t kind = kNoCtx;
  uint8_t purpose = 0;
  bool optional = false, affordable = false;
  int voc = 0, amount = 0, marker = 0, office = 0, building = 0, event = 0, price = 0;
  Vec<uint8_t, cp::kLots> lots;
  Vec<int8_t, kMaxSeats> tied;
};

class Game {
 public:
  static constexpr const char* kName = "urban_sprawl";
  static constexpr int kNumActions = cp::kANumActions;
  static constexpr int kObservationSize = cp::kObservationSize;
  static constexpr int kMinPlayers = 2;
  static constexpr int kMaxPlayers = 4;

  // options
  int variant = 0;
  bool auto_single = true;
  int64_t max_turns = cp::kTurnLimit;

  // rules.State
  int n = 2;
  int16_t lot_building[cp::kLots];
  Vec<Building, cp::kMaxBuildings> buildings;
  int tiles[5][4];
  int circles[cp::kCircles];
  int wealth[kMaxSeats], prestige[kMaxSeats];
  Vec<uint8_t, cp::kPlanningCards> hands[kMaxSeats];
  Vec<uint8_t, cp::kExtraFavorCapacity> favors[kMaxSeats];
  int vocations[kMaxSeats][cp::kVocations];
  int voc_supply[cp::kVocations];
  int offices[cp::kOffices];
  Vec<uint8_t, cp::kPlanningCards> planning_deck;
  int planning_slots[4];
  Vec<uint8_t, cp::kPlanningCards> planning_discard;
  Vec<uint8_t, cp::kContractDeckSize> decks[3];
  int slots[cp::kSlots];
  int extra_favor = NOBODY;
  int pawn = cp::kMayor;
  bool airport = false, sports = false, planning_up = false;
  bool deck_up[3] = {false, false, false};
  Vec<uint8_t, cp::kNumContracts> removed;
  Vec<uint8_t, cp::kNumContractEvents> events_done;
  int active = 0, phase = cp::kDInvest, ap = 0;
  bool built_this_turn = false;
  int decision = cp::kDStartBuy, decider = 0;
  Ctx ctx;
  Vec<Task, kMaxTasks> tasks;
  bool has_build = false, build_has_building = false;  // build None; "building" in build
  int build_card = 0, build_paid = 0, build_building = 0;
  int planning_reshuffles = 0;
  int64_t turns = 0;
  Vec<int8_t, kMaxSeats> winner_seats;  // State.winners
  bool truncated = false;

  // ===== the contract =====
  void setup(int num_players, const json::Value& options, Random& chance) {
    read_options(options);
    new_state(num_players, chance);
  }
  int current_player() const { return decision != GAME_OVER ? decider : -1; }
  bool is_over() const { return decision == GAME_OVER; }
  bool is_truncated() const { return truncated; }
  const char* decision_name() const { return decision >= 0 ? cp::kDecisionNames[decision] : "GAME_OVER"; }

  void scores(double* out) const {
    for (int seat = 0; seat < n; ++seat) out[seat] = static_cast<double>(prestige[seat]);
  }
  void winners(std::vector<int>& out) const {
    out.clear();
    if (is_over()) {
      for (int seat : winner_seats) out.push_back(seat);
      return;
    }
    int keep[kMaxSeats];
    const int count = ranking_winners(keep);
    out.assign(keep, keep + count);
  }
  void standings(std::vector<double>& out, int& width) const {  // standing_keys: prestige, wealth
    width = 2;
    out.clear();
    for (int seat = 0; seat < n; ++seat) {
      out.push_back(static_cast<double>(prestige[seat]));
      out.push_back(static_cast<double>(wealth[seat]));
    }
  }

  // legal_actions
  void legal_actions(uint8_t* mask) const {
    std::memset(mask, 0, kNumActions);
    switch (decision) {
      case cp::kDInvest: legal_invest(mask); break;
      case cp::kDMain: legal_main(mask); break;
      case cp::kDPayPermit: legal_pay_permit(mask); break;
      case cp::kDPlace: search_placements(active, build_card, false, mask); break;
      case cp::kDVocSource: legal_voc_source(mask); break;
      case cp::kDVocPayout:
      case cp::kDTributePay: mask[cp::kAOptA] = mask[cp::kAOptB] = 1; break;
      case cp::kDMarkerPlace: legal_marker_place(mask); break;
      case cp::kDMarkerMoveSrc:
        for (int g = 0; g < cp::kCircles; ++g)
          if (circles[g] != 0) mask[cp::kACircle + g] = 1;
        mask[cp::kAPass] = 1;
        break;
      case cp::kDMarkerMoveDst:
        legal_marker_place(mask);
        mask[cp::kAPass] = ctx.optional ? 1 : 0;
        break;
      case cp::kDParkLot:
      case cp::kDMayorPark:
      case cp::kDPickBuilding:
        for (int lot : ctx.lots) mask[cp::kALot + lot] = 1;
        break;
      case cp::kDElectionTie:
      case cp::kDMediaTie:
        for (int seat : ctx.tied) mask[relative(seat)] = 1;
        break;
      case cp::kDAuction:
      case cp::kDDisasterChoice:
      case cp::kDBlightChoice:
        mask[cp::kAOptA] = ctx.affordable ? 1 : 0;
        mask[cp::kAOptB] = 1;
        break;
      case cp::kDStartBuy:
        for (int bid = 0; bid < std::min(cp::kStartingCount, buildings.size()); ++bid)
          if (buildings[bid].alive && buildings[bid].owner < 0) mask[cp::kALot + buildings[bid].lots[0]] = 1;
        break;
      default: break;
    }
  }

  // apply_action
  void apply(int action, Random& chance) {
    uint8_t mask[kNumActions];
    while (true) {
      apply_decision(action);
      run(chance);
      if (turns >= max_turns && decision == cp::kDInvest) game_over(true);
      if (!auto_single || decision == cp::kDInvest || decision == cp::kDMain || decision == GAME_OVER) return;
      legal_actions(mask);
      int legal = -1, count = 0;
      for (int a = 0; a < kNumActions; ++a)
        if (mask[a]) {
          ++count;
          legal = a;
        }
      if (count != 1) return;
      action = legal;
    }
  }

  void observation(int player, float* out) const;
  void resample_hidden(int player, Random& rng);
  void write_json(json::Writer& out) const;
  void read_json(int num_players, const json::Value& options, const json::Value& state);
  // agents/urban_sprawl_heuristic.py's pick among `count` >= 2 legal ids (heuristic.hpp)
  int heuristic(int player, const int* legal, int count, Random& rng) const;

 private:
  struct Heuristic;  // one decision of the heuristic agent (heuristic.hpp)

  void read_options(const json::Value& options) {
    const std::string& name = options.at("variant").as_string("options.variant");
    variant = -1;
    for (int k = 0; k < 3; ++k)
      if (name == cp::kVariants[k]) variant = k;
    if (variant < 0) throw std::invalid_argument("options: variant must be standard, long or short");
    auto_single = options.at("auto_single").as_bool("options.auto_single");
    max_turns = options.at("max_turns").as_int("options.max_turns", 1, INT64_MAX);
  }

  // ===== the city (2.2-2.4) =====
  int block_value(int block) const {
    return cp::kBaseValue[block] + circles[cp::kBlockCircles[block][0]] + circles[cp::kBlockCircles[block][1]];
  }
  int building_value(int bid) const { return block_value(buildings[bid].lots[0] / 4); }

  // buildings_adjacent: the set as a bool per building id (returns how many)
  int buildings_adjacent(int bid, bool* found) const {
    std::memset(found, 0, cp::kMaxBuildings);
    const Building& b = buildings[bid];
    int count = 0;
    for (int i = 0; i < b.size; ++i) {
      const int x = b.lots[i];
      for (int k = 0; k < cp::kAdjacentCount[x]; ++k) {
        const int other = lot_building[cp::kAdjacentLots[x][k]];
        if (other >= 0 && other != bid && !found[other]) {
          found[other] = true;
          ++count;
        }
      }
    }
    return count;
  }

  // row_blocks: the blocks a payout icon addresses (false when its marker is not on the board)
  bool row_blocks(int kind, int number, bool* inside) const {
    std::memset(inside, 0, cp::kBlocks);
    if (kind == 0 && number <= 6) {
      const int column = cp::kColumnOfWealth[number];
      for (int r = 0; r < 6; ++r) inside[6 * r + column] = true;
      return true;
    }
    if (kind == 1 && number <= 3) {
      for (int k = 0; k < 2; ++k)
        for (int c = 0; c < 6; ++c) inside[6 * cp::kBandRows[number][k] + c] = true;
      return true;
    }
    for (int g = 0; g < cp::kCircles; ++g)
      if (circles[g] == number) {
        for (int k = 0; k < cp::kCircleBlockCount[g]; ++k) inside[cp::kCircleBlocks[g][k]] = true;
        return true;
      }
    return false;
  }

  // payout_split
  void payout_split(const int* counts, int number, int* paid) const {
    int table[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const int full[4] = {number, number / 2, number / 4, number / 8};
    for (int k = 0; k < n; ++k) table[k] = full[k];
    for (int seat = 0; seat < n; ++seat) paid[seat] = 0;
    int position = 0;
    int previous = INT32_MAX;
    while (true) {  // distinct positive counts, descending
      int count = 0;
      for (int seat = 0; seat < n; ++seat)
        if (counts[seat] < previous && counts[seat] > count) count = counts[seat];
      if (count <= 0) break;
      int group = 0;
      for (int seat = 0; seat < n; ++seat)
        if (counts[seat] == count) ++group;
      int sum = 0;
      for (int k = position; k < position + group && k < 8; ++k) sum += table[k];
      for (int seat = 0; seat < n; ++seat)
        if (counts[seat] == count) paid[seat] = sum / group;
      position += group;
      previous = count;
    }
  }

  // row_payout
  void row_payout(int kind, int number, int* paid) const {
    bool inside[cp::kBlocks];
    if (!row_blocks(kind, number, inside)) {
      for (int seat = 0; seat < n; ++seat) paid[seat] = 0;
      return;
    }
    int counts[kMaxSeats] = {0, 0, 0, 0};
    for (const Building& b : buildings)
      if (b.alive && b.owner >= 0 && inside[b.lots[0] / 4]) counts[b.owner] += 1;
    payout_split(counts, number, paid);
  }

  // pay_row
  void pay_row(int kind, int number) {
    int paid[kMaxSeats];
    row_payout(kind, number, paid);
    for (int seat = 0; seat < n; ++seat) (kind == 0 ? wealth : prestige)[seat] += paid[seat];
  }

  // ===== setup (§3) =====
  // _stack: a contract deck stacked per 3.1 step 4 / 3.4, bottom first
  void stack(int deck, Random& rng) {
    const int special = cp::kEventBase + cp::kSpecialEvent[deck];
    int cards[cp::kContractDeckSize];
    int count = 0;
    for (int c : cp::kDeckCards[deck])
      if (c != special) cards[count++] = c;
    const std::vector<int64_t> order = rng.permutation(count);
    int others[cp::kContractDeckSize];
    for (int i = 0; i < count; ++i) others[i] = cards[order[static_cast<size_t>(i)]];
    const int above = cp::kDeckStacking[variant][0], mixed = cp::kDeckStacking[variant][1];
    int middle[cp::kContractDeckSize];
    int m = 0;
    for (int i = above; i < above + mixed; ++i) middle[m++] = others[i];
    middle[m++] = special;
    const std::vector<int64_t> shuffle = rng.permutation(m);
    int all[cp::kContractDeckSize];
    int k = 0;
    for (int i = 0; i < above; ++i) all[k++] = others[i];
    for (int i = 0; i < m; ++i) all[k++] = middle[shuffle[static_cast<size_t>(i)]];
    for (int i = above + mixed; i < count; ++i) all[k++] = others[i];
    decks[deck].clear();
    for (int i = k - 1; i >= 0; --i) decks[deck].push(static_cast<uint8_t>(all[i]));
  }

  // new_state
  void new_state(int num_players, Random& rng) {
    n = num_players;
    for (auto& x : lot_building) x = -1;
    std::memcpy(tiles, cp::kTiles, sizeof tiles);
    buildings.clear();
    for (int k = 0; k < cp::kStartingCount; ++k) {
      const int zone = cp::kStartingBuildings[k][0], lot = cp::kStartingBuildings[k][1];
      lot_building[lot] = static_cast<int16_t>(buildings.size());
      Building b;
      b.zone = static_cast<int8_t>(zone);
      b.size = 1;
      b.owner = NOBODY;
      b.alive = true;
      b.lots[0] = static_cast<uint8_t>(lot);
      buildings.push(b);
      tiles[zone][0] -= 1;
    }
    for (int deck = 0; deck < 3; ++deck) stack(deck, rng);
    const std::vector<int64_t> permits = rng.permutation(cp::kNumPermits);
    int bottom[cp::kPlanningCards];
    int nb = 0;
    const int split = cp::kNumPermits - cp::kPlanningTopPermits;
    for (int i = 0; i < split; ++i) bottom[nb++] = static_cast<int>(permits[static_cast<size_t>(i)]);
    for (int c = cp::kFirstPlanningEvent; c < cp::kPlanningCards; ++c) bottom[nb++] = c;
    const std::vector<int64_t> order = rng.permutation(nb);
    planning_deck.clear();
    for (int i = 0; i < nb; ++i) planning_deck.push(static_cast<uint8_t>(bottom[order[static_cast<size_t>(i)]]));
    for (int i = split; i < cp::kNumPermits; ++i) planning_deck.push(static_cast<uint8_t>(permits[static_cast<size_t>(i)]));
    for (int seat = 0; seat < kMaxSeats; ++seat) {
      hands[seat].clear();
      favors[seat].clear();
      for (int v = 0; v < cp::kVocations; ++v) vocations[seat][v] = 0;
      wealth[seat] = prestige[seat] = 0;
    }
    for (int seat = 0; seat < n; ++seat) {
      for (int k = 0; k <= seat; ++k) hands[seat].push(planning_deck.pop());
      std::sort(hands[seat].begin(), hands[seat].end());
    }
    for (int k = 0; k < 4; ++k) planning_slots[k] = planning_deck.pop();
    for (int& g : circles) g = 0;
    for (int seat = 0; seat < n; ++seat) wealth[seat] = cp::kStartingWealth[n];
    for (int v = 0; v < cp::kVocations; ++v) voc_supply[v] = cp::kVocationMarkers[v];
    for (int& o : offices) o = NOBODY;
    planning_discard.clear();
    for (int c : cp::kUrbanRenewal) planning_discard.push(static_cast<uint8_t>(c));
    for (int& s : slots) s = -1;
    extra_favor = NOBODY;
    pawn = cp::kMayor;
    airport = sports = false;
    deck_up[0] = deck_up[1] = deck_up[2] = false;
    removed.clear();
    events_done.clear();
    active = 0;
    phase = cp::kDInvest;
    ap = 0;
    built_this_turn = false;
    ctx = Ctx();
    tasks.clear();
    has_build = build_has_building = false;
    planning_reshuffles = 0;
    turns = 0;
    winner_seats.clear();
    truncated = false;
    planning_up = true;
    for (int slot = 0; slot < cp::kSlots; ++slot) slots[slot] = setup_draw(cp::kTown);
    decks[cp::kTown].push(static_cast<uint8_t>(setup_draw(cp::kTown)));
    deck_up[cp::kTown] = true;
    if (airport) {
      decks[cp::kCity].push(static_cast<uint8_t>(setup_draw(cp::kCity)));
      deck_up[cp::kCity] = true;
    }
    decision = cp::kDStartBuy;
    decider = 0;
  }

  // _setup_draw
  int setup_draw(int deck) {
    while (true) {
      const int card = decks[deck].pop();
      if (card < cp::kEventBase) return card;
      events_done.push(static_cast<uint8_t>(card - cp::kEventBase));
      if (card == cp::kEventBase + cp::kSpecialEvent[cp::kTown]) airport = true;
    }
  }

  void set_owner(int bid, int owner) { buildings[bid].owner = static_cast<int8_t>(owner); }

  bool starting_lots_left() const {
    for (int bid = 0; bid < std::min(cp::kStartingCount, buildings.size()); ++bid)
      if (buildings[bid].alive && buildings[bid].owner < 0) return true;
    return false;
  }

  // _start_buy
  void start_buy(int p, int lot) {
    const int bid = lot_building[lot];
    set_owner(bid, p);
    wealth[p] -= building_value(bid);
    if (starting_lots_left()) {
      decider = (p + 1) % n;
      decision = cp::kDStartBuy;
      return;
    }
    int richest = wealth[0];
    for (int seat = 1; seat < n; ++seat) richest = std::max(richest, wealth[seat]);
    int tied[kMaxSeats] = {0, 0, 0, 0}, count = 0;
    for (int seat = 0; seat < n; ++seat)
      if (wealth[seat] == richest) tied[count++] = seat;
    if (count > 1) {
      int fours[kMaxSeats], best = -1;
      for (int i = 0; i < count; ++i) {
        fours[i] = media_tie_count(tied[i]);
        best = std::max(best, fours[i]);
      }
      int kept = 0;
      for (int i = 0; i < count; ++i)
        if (fours[i] == best) tied[kept++] = tied[i];
      count = kept;
    }
    if (count > 1) {
      ask(cp::kDMediaTie, 0);
      ctx.kind = kMediaTieCtx;
      for (int i = 0; i < count; ++i) ctx.tied.push(static_cast<int8_t>(tied[i]));
      return;
    }
    give_media(tied[0]);
  }

  int media_tie_count(int seat) const {
    int count = 0;
    for (int bid = 0; bid < buildings.size(); ++bid) {
      const Building& b = buildings[bid];
      if (b.alive && b.owner == seat && b.zone == cp::kRES && building_value(bid) == cp::kMediaTieValue) ++count;
    }
    return count;
  }

  // _give_media
  void give_media(int seat) {
    vocations[seat][cp::kMedia] += 1;
    voc_supply[cp::kMedia] -= 1;
    ctx = Ctx();
    active = 0;
    begin_turn();
  }

  // ===== turn (§4) =====
  void begin_turn() {
    const int p = active;
    if (offices[cp::kTreasurer] == p) {
      for (int k = 1; k < n; ++k) {
        const int o = (p + k) % n;
        const int x = std::min(2, wealth[o]);
        wealth[o] -= x;
        wealth[p] += x;
      }
    }
    phase = cp::kDInvest;
    ap = 0;
    built_this_turn = false;
    decision = NONE;
  }

  int favor_capacity(int seat) const { return extra_favor == seat ? cp::kExtraFavorCapacity : cp::kFavorCapacity; }
  bool deck_active(int deck) const {
    return deck == cp::kTown || (deck == cp::kCity && airport) || (deck == cp::kMetro && sports);
  }
  // deck_tops, then the slots: contract_at of the eight spaces
  void contract_spaces(int* out) const {
    out[0] = deck_up[cp::kTown] && !decks[cp::kTown].empty() ? decks[cp::kTown].back() : -1;
    out[1] = deck_up[cp::kCity] && !decks[cp::kCity].empty() && airport ? decks[cp::kCity].back() : -1;
    out[2] = deck_up[cp::kMetro] && !decks[cp::kMetro].empty() && sports ? decks[cp::kMetro].back() : -1;
    for (int k = 0; k < cp::kSlots; ++k) out[3 + k] = slots[k];
  }
  int planning_at(int space) const {
    if (space == 0) return planning_up && !planning_deck.empty() ? planning_deck.back() : -1;
    return planning_slots[space - 1];
  }

  bool may_demolish(int seat) const {
    if (offices[cp::kContractor] == seat) return true;
    for (int c : hands[seat])
      if (c >= cp::kNumPermits && c < cp::kFirstPlanningEvent) return true;
    return false;
  }

  // _search_placements for one placement: whether it is legal (the block's tests passed), and what it demolishes
  bool placement_ok(const cp::Placement& pl, int size, int zone, int kind, int argument, int seat, bool demolishing,
                    int* demolished, int& nd) const {
    const int contractor = offices[cp::kContractor];
    nd = 0;
    if ((kind == cp::kAdjWater && !pl.water) || (kind == cp::kAdjForest && !pl.forest)) return false;
    for (int i = 0; i < size; ++i) {
      const int x = pl.lots[i];
      const int bid = lot_building[x];
      if (bid < 0) continue;
      if (!demolishing) return false;
      bool seen = false;
      for (int k = 0; k < nd; ++k) seen = seen || demolished[k] == bid;
      if (seen) continue;
      const Building& b = buildings[bid];
      if (b.size > size) return false;
      for (int j = 0; j < b.size; ++j) {  // wholly under the placement
        bool under = false;
        for (int k = 0; k < size; ++k) under = under || pl.lots[k] == b.lots[j];
        if (!under) return false;
      }
      if (contractor != seat && contractor >= 0 && b.owner == contractor) return false;
      demolished[nd++] = bid;
    }
    bool zoned = false, own = false;
    for (int k = 0; k < pl.around_count; ++k) {
      const int bid = lot_building[pl.around[k]];
      if (bid < 0) continue;
      const int z = buildings[bid].zone;
      if (z == cp::kPARK) continue;
      zoned = true;
      if (z == zone) own = true;
      if (kind == cp::kNotAdj && z == argument) return false;
    }
    if (kind != cp::kIgnoreZoning && zoned && !own) return false;
    return true;
  }

  // legal_placements: marks LOT + place in `mask` (if given); `first_only` stops at the first; returns how many
  int search_placements(int seat, int card, bool first_only, uint8_t* mask) const {
    const int zone = cp::kContractZone[card], size = cp::kContractSize[card];
    const int kind = cp::kRestriction[card][0], argument = cp::kRestriction[card][1];
    const bool demolishing = may_demolish(seat);
    const int w = wealth[seat];
    int found = 0;
    int demolished[4], nd = 0;
    int value = 0, last_block = -1;
    bool block_ok = false;
    for (int i = 0; i < cp::kPlacementCount[size - 1]; ++i) {
      const cp::Placement& pl = cp::kPlacements[size - 1][i];
      const int block = pl.place >> 2;
      if (block != last_block) {
        last_block = block;
        value = block_value(block);
        block_ok = !(value > w || (kind == cp::kMinValue && value < argument) || (kind == cp::kMaxValue && value > argument));
      }
      if (!block_ok) continue;
      if (!placement_ok(pl, size, zone, kind, argument, seat, demolishing, demolished, nd)) continue;
      ++found;
      if (mask != nullptr) mask[cp::kALot + pl.place] = 1;
      if (first_only) return found;
    }
    return found;
  }

  void legal_invest(uint8_t* mask) const {
    for (int c : hands[active])
      if (c < cp::kNumPermits) mask[cp::kACard + c] = 1;
    mask[cp::kAPass] = 1;
  }

  void legal_main(uint8_t* mask) const {
    const int p = active;
    mask[cp::kAPass] = 1;
    for (int space = 0; space < 5; ++space)
      if (cp::kPlanningAp[space] <= ap && planning_at(space) >= 0) mask[cp::kATakePlanning + space] = 1;
    const bool room = favors[p].size() < favor_capacity(p);
    int builds[16][2], nbuild = 0;
    int spaces[8];
    contract_spaces(spaces);
    for (int space = 0; space < 8; ++space) {
      const int card = spaces[space];
      if (cp::kContractAp[space] > ap || card < 0) continue;
      if (room) mask[cp::kATakeFavor + space] = 1;
      builds[nbuild][0] = cp::kABuild + space;
      builds[nbuild++][1] = card;
    }
    for (int k = 0; k < favors[p].size(); ++k) {
      builds[nbuild][0] = cp::kABuildFavor + k;
      builds[nbuild++][1] = favors[p][k];
    }
    int permits[5] = {0, 0, 0, 0, 0};
    for (int c : hands[p])
      if (c < cp::kNumPermits)
        for (int z = 0; z < 5; ++z)
          if (cp::kPermitZones[c] & (1 << z)) permits[z] += cp::kPermitValue[c];
    for (int i = 0; i < nbuild; ++i) {
      const int card = builds[i][1];
      const int zone = cp::kContractZone[card], size = cp::kContractSize[card];
      if (permits[zone] >= size && tiles[zone][size - 1] > 0 && search_placements(p, card, true, nullptr) > 0)
        mask[builds[i][0]] = 1;
    }
  }

  void legal_pay_permit(uint8_t* mask) const {
    const int zone = cp::kContractZone[build_card];
    for (int c : hands[active])
      if (c < cp::kNumPermits && (cp::kPermitZones[c] & (1 << zone))) mask[cp::kACard + c] = 1;
  }

  int relative(int seat) const { return cp::kAPlayer + ((seat - decider) % n + n) % n; }

  void legal_voc_source(uint8_t* mask) const {
    for (int seat = 0; seat < n; ++seat)
      if (seat != decider && vocations[seat][ctx.voc] > 0) mask[relative(seat)] = 1;
    mask[cp::kAPass] = 1;
  }

  void legal_marker_place(uint8_t* mask) const {
    for (int g = 0; g < cp::kCircles; ++g)
      if (circles[g] == 0) mask[cp::kACircle + g] = 1;
  }

  // ===== applying an action =====
  void apply_decision(int action) {
    switch (decision) {
      case cp::kDInvest: apply_invest(action); break;
      case cp::kDMain: apply_main(action); break;
      case cp::kDPayPermit: apply_pay_permit(action); break;
      case cp::kDPlace: apply_place(action); break;
      case cp::kDVocSource: apply_voc_source(action); break;
      case cp::kDVocPayout: apply_voc_payout(action); break;
      case cp::kDMarkerPlace:
        circles[action - cp::kACircle] = ctx.marker;
        done();
        break;
      case cp::kDMarkerMoveSrc: apply_marker_src(action); break;
      case cp::kDMarkerMoveDst: apply_marker_dst(action); break;
      case cp::kDParkLot:
      case cp::kDMayorPark:
        add_building(cp::kPARK, 1, action - cp::kALot, -1, -1, -1, decider);
        done();
        break;
      case cp::kDTributePay: apply_tribute(action); break;
      case cp::kDElectionTie: {
        const int office = ctx.office;
        const int seat = (decider + action - cp::kAPlayer) % n;
        done();
        tasks.push(make_task(kElected, office, seat));
        break;
      }
      case cp::kDAuction: {
        const int seat = decider, price = ctx.price;
        done();
        if (action == cp::kAOptA) {
          wealth[seat] -= price;
          tasks.push(make_task(kParkAnywhere, seat));
        }
        break;
      }
      case cp::kDPickBuilding: {
        const int bid = lot_building[action - cp::kALot];
        const int purpose = ctx.purpose;
        done();
        tasks.push(make_task(kPicked[purpose], bid));
        break;
      }
      case cp::kDDisasterChoice: apply_disaster_choice(action); break;
      case cp::kDBlightChoice:
        if (action == cp::kAOptA) prestige[decider] -= 3;
        else demolish(ctx.building);
        done();
        break;
      case cp::kDStartBuy: start_buy(decider, action - cp::kALot); break;
      case cp::kDMediaTie: give_media((decider + action - cp::kAPlayer) % n); break;
      default: break;
    }
  }

  // run
  void run(Random& rng) {
    while (decision == NONE) {
      if (!tasks.empty()) {
        const Task task = tasks.pop();
        run_task(task, rng);
      } else {
        decision = phase;
        decider = active;
      }
    }
  }

  void ask(int kind, int seat) {  // _ask with a context the caller fills in
    decision = kind;
    decider = seat;
    ctx = Ctx();
  }
  void done() {
    decision = NONE;
    ctx = Ctx();
  }

  void apply_invest(int action) {
    const int p = active;
    done();
    if (action == cp::kAPass) {
      phase = cp::kDMain;
      ap = offices[cp::kUnionBoss] == p ? cp::kUnionBossAp : cp::kApPerTurn;
      return;
    }
    const int card = action - cp::kACard;
    hands[p].remove(static_cast<uint8_t>(card));
    planning_discard.push(static_cast<uint8_t>(card));
    wealth[p] += cp::kInvestment[card];
  }

  int take_contract(int space) {
    if (space < 3) {
      deck_up[space] = false;
      return decks[space].pop();
    }
    const int card = slots[space - 3];
    slots[space - 3] = -1;
    return card;
  }

  void apply_main(int action) {
    const int p = active;
    done();
    if (action == cp::kAPass) {
      // END_OF_TURN, its first step last
      const TaskKind steps[9] = {kNextTurn,       kRevealContract, kRevealContract, kRevealContract, kRefillContracts,
                                 kSlideContracts, kRevealPlanning, kRefillPlanning, kSlidePlanning};
      const int decks_of[9] = {0, 2, 1, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < 9; ++k) tasks.push(make_task(steps[k], decks_of[k]));
      phase = NONE;
      return;
    }
    if (action < cp::kABuild) {
      const int space = action - cp::kATakePlanning;
      ap -= cp::kPlanningAp[space];
      int card;
      if (space == 0) {
        card = planning_deck.pop();
        planning_up = false;
      } else {
        card = planning_slots[space - 1];
        planning_slots[space - 1] = -1;
      }
      hands[p].push(static_cast<uint8_t>(card));
      std::sort(hands[p].begin(), hands[p].end());
    } else if (action < cp::kATakeFavor) {
      const int space = action - cp::kABuild;
      ap -= cp::kContractAp[space];
      start_build(take_contract(space));
    } else if (action < cp::kABuildFavor) {
      const int space = action - cp::kATakeFavor;
      ap -= cp::kContractAp[space];
      favors[p].push(static_cast<uint8_t>(take_contract(space)));
    } else {
      start_build(favors[p].erase_at(action - cp::kABuildFavor));
    }
  }

  void start_build(int card) {
    has_build = true;
    build_has_building = false;
    build_card = card;
    build_paid = 0;
    build_building = 0;
    ask(cp::kDPayPermit, active);
  }

  void apply_pay_permit(int action) {
    const int p = active, card = action - cp::kACard;
    hands[p].remove(static_cast<uint8_t>(card));
    planning_discard.push(static_cast<uint8_t>(card));
    build_paid += cp::kPermitValue[card];
    if (build_paid >= cp::kContractSize[build_card]) ask(cp::kDPlace, p);
  }

  void apply_place(int action) {
    const int p = active, card = build_card;
    const int place = action - cp::kALot;
    const int zone = cp::kContractZone[card], size = cp::kContractSize[card];
    const int block = place / 4, variant_ = place % 4;
    // the placement's record: legal_placements(...)[place]
    const cp::Placement* found = nullptr;
    for (int i = 0; i < cp::kPlacementCount[size - 1]; ++i)
      if (cp::kPlacements[size - 1][i].place == place) found = &cp::kPlacements[size - 1][i];
    int demolished[4], nd = 0;
    placement_ok(*found, size, zone, cp::kRestriction[card][0], cp::kRestriction[card][1], p, may_demolish(p),
                 demolished, nd);
    if (nd > 0 && offices[cp::kContractor] != p) {
      int renewal = 1000;
      for (int c : hands[p])
        if (c >= cp::kNumPermits && c < cp::kFirstPlanningEvent) renewal = std::min(renewal, c);
      hands[p].remove(static_cast<uint8_t>(renewal));
      planning_discard.push(static_cast<uint8_t>(renewal));
    }
    for (int k = 0; k < nd; ++k) demolish(demolished[k]);
    wealth[p] -= block_value(block);
    int lots[4] = {-1, -1, -1, -1};
    for (int k = 0; k < size; ++k) lots[k] = 4 * block + cp::kFootprints[size - 1][variant_][k];
    const int bid = add_building(zone, size, lots[0], lots[1], lots[2], lots[3], p);
    removed.push(static_cast<uint8_t>(card));
    bool near[cp::kMaxBuildings];
    buildings_adjacent(bid, near);
    int bonus = 0;
    for (int other = 0; other < buildings.size(); ++other)
      if (near[other] && buildings[other].zone == zone) ++bonus;
    if (offices[cp::kDistrictAttorney] == p && !built_this_turn) bonus *= 2;
    built_this_turn = true;
    prestige[p] += bonus;
    build_has_building = true;
    build_building = bid;
    tasks.push(make_task(kBuildDone));
    for (int k = cp::kEffectCount[card] - 1; k >= 0; --k) tasks.push(make_task(kEffectTask, card, k, bid));
    for (int k = cp::kVocationCount[card] - 1; k >= 0; --k)
      tasks.push(make_task(kVocation, cp::kContractVocations[card][k][0], cp::kContractVocations[card][k][1]));
    done();
  }

  int add_building(int zone, int size, int l0, int l1, int l2, int l3, int owner) {
    const int bid = buildings.size();
    Building b;
    b.zone = static_cast<int8_t>(zone);
    b.size = static_cast<int8_t>(size);
    b.owner = static_cast<int8_t>(owner);
    b.alive = true;
    const int lots[4] = {l0, l1, l2, l3};
    for (int k = 0; k < size; ++k) {
      b.lots[k] = static_cast<uint8_t>(lots[k]);
      lot_building[lots[k]] = static_cast<int16_t>(bid);
    }
    buildings.push(b);
    tiles[zone][size - 1] -= 1;
    return bid;
  }

  void demolish(int bid) {
    Building& b = buildings[bid];
    for (int k = 0; k < b.size; ++k) lot_building[b.lots[k]] = -1;
    b.alive = false;
  }

  // ----- vocations -----
  void apply_voc_source(int action) {
    if (action != cp::kAPass) {
      const int victim = (decider + action - cp::kAPlayer) % n;
      vocations[victim][ctx.voc] -= 1;
      vocations[decider][ctx.voc] += 1;
    }
    done();
  }

  void apply_voc_payout(int action) {
    const int seat = decider, amount = ctx.amount;
    if (action == cp::kAOptA) wealth[seat] += amount;
    else prestige[seat] += amount;
    done();
  }

  void apply_tribute(int action) {
    const int seat = decider, builder = active, amount = ctx.amount;
    if (action == cp::kAOptA) {
      const int paid = std::min(amount, wealth[seat]);
      wealth[seat] -= paid;
      wealth[builder] += paid;
    } else {
      const int paid = std::min(amount, prestige[seat]);
      prestige[seat] -= paid;
      prestige[builder] += paid;
    }
    done();
  }

  void apply_marker_src(int action) {
    if (action == cp::kAPass) {
      done();
      return;
    }
    const int marker = circles[action - cp::kACircle];
    ask(cp::kDMarkerMoveDst, decider);
    ctx.kind = kMarkerMoveCtx;
    ctx.marker = marker;
    ctx.optional = false;
  }

  void apply_marker_dst(int action) {
    if (action != cp::kAPass) {
      const int number = ctx.marker;
      for (int g = 0; g < cp::kCircles; ++g)
        if (circles[g] == number) {
          circles[g] = 0;
          break;
        }
      circles[action - cp::kACircle] = number;
    }
    done();
  }

  void apply_disaster_choice(int action) {
    const int seat = decider, event = ctx.event;
    done();
    if (action == cp::kAOptA) {
      wealth[seat] -= cp::kEventArgs[event][2];
      prestige[seat] -= cp::kEventArgs[event][3];
    } else {
      int targets[cp::kMaxBuildings];
      const int count = disaster_targets(seat, event, targets);
      ask(cp::kDPickBuilding, seat);
      ctx.kind = kPickCtx;
      ctx.purpose = kPurposeDemolish;
      lots_of(targets, count);
    }
  }

  // _matching: buildings of `zones` (a mask), of `size` (0: any), of `owner` (-2: any)
  bool matching(const Building& b, int zones, int size, int owner) const {
    return b.alive && (zones & (1 << b.zone)) && (size == 0 || b.size == size) && (owner == -2 || b.owner == owner);
  }
  int count_matching(int zones, int size, int owner) const {
    int count = 0;
    for (const Building& b : buildings)
      if (matching(b, zones, size, owner)) ++count;
    return count;
  }

  // _lots_of into ctx.lots (sorted)
  void lots_of(const int* bids, int count) {
    ctx.lots.clear();
    for (int i = 0; i < count; ++i) {
      const Building& b = buildings[bids[i]];
      for (int k = 0; k < b.size; ++k) ctx.lots.push(b.lots[k]);
    }
    std::sort(ctx.lots.begin(), ctx.lots.end());
  }

  int disaster_targets(int seat, int event, int* out) const {
    int count = 0;
    const bool by_water = cp::kEventArgs[event][0] != 0;
    const int size = cp::kEventArgs[event][1];
    for (int bid = 0; bid < buildings.size(); ++bid) {
      const Building& b = buildings[bid];
      if (!b.alive || b.owner != seat) continue;
      bool hit;
      if (by_water) {
        hit = false;
        for (int k = 0; k < b.size; ++k) hit = hit || cp::kLotWater[b.lots[k]];
      } else {
        hit = b.size == size;
      }
      if (hit) out[count++] = bid;
    }
    return count;
  }

  // ===== tasks =====
  void run_task(const Task& t, Random& rng) {
    switch (t.kind) {
      case kBuildDone: has_build = false; break;
      case kVocation: task_vocation(t.a, t.b); break;
      case kVocPayout: task_voc_payout(t.a, t.b); break;
      case kVocPayOne:
        ask(cp::kDVocPayout, t.a);
        ctx.kind = kVocPayoutCtx;
        ctx.voc = t.b;
        ctx.amount = t.c;
        break;
      case kEffectTask: task_effect(t.a, t.b, t.c); break;
      case kTributeOne:
        ask(cp::kDTributePay, t.a);
        ctx.kind = kTributeCtx;
        ctx.amount = t.b;
        break;
      case kParkNear: task_park_near(t.a, t.b); break;
      case kParkAnywhere:
        if (tiles[cp::kPARK][0] > 0 && has_empty_lot()) {
          ask(cp::kDMayorPark, t.a);
          ctx.kind = kLotsCtx;
          for (int x = 0; x < cp::kLots; ++x)
            if (lot_building[x] < 0) ctx.lots.push(static_cast<uint8_t>(x));
        }
        break;
      case kMarkerTask: task_marker(t.a, t.b); break;
      case kMoveMarker: {
        bool empty = false, any = false;
        for (int g : circles) {
          empty = empty || g == 0;
          any = any || g != 0;
        }
        if (empty && any) ask(cp::kDMarkerMoveSrc, t.a);
        break;
      }
      case kElectionTask: task_election(t.a); break;
      case kElected: task_elected(t.a, t.b); break;
      case kBallot:
        pawn = (pawn + 1) % cp::kPoliticians;
        if (pawn == cp::kMayor || airport) tasks.push(make_task(kElectionTask, pawn));
        break;
      case kPayout: pay_row(t.a, t.b); break;
      case kSlidePlanning: task_slide_planning(); break;
      case kRefillPlanning: task_refill_planning(rng); break;
      case kRevealPlanning: task_reveal_planning(rng); break;
      case kSlideContracts: task_slide_contracts(); break;
      case kRefillContracts: task_refill_contracts(); break;
      case kRevealContract: task_reveal_contract(t.a); break;
      case kNextTurn:
        turns += 1;
        active = (active + 1) % n;
        begin_turn();
        break;
      case kPlanningEventTask: task_planning_event(t.a); break;
      case kBlight: {
        const int bid = t.a, owner = buildings[bid].owner;
        if (owner < 0) {
          demolish(bid);
        } else {
          ask(cp::kDBlightChoice, owner);
          ctx.kind = kBlightCtx;
          ctx.building = bid;
          ctx.affordable = prestige[owner] >= 3;
        }
        break;
      }
      case kHeadlines: {
        const int owner = buildings[t.a].owner;
        if (owner >= 0) prestige[owner] += 3;
        break;
      }
      case kAuctionOne:
        if (wealth[t.a] >= t.b && tiles[cp::kPARK][0] > 0 && has_empty_lot()) {
          ask(cp::kDAuction, t.a);
          ctx.kind = kAuctionCtx;
          ctx.affordable = true;
          ctx.price = t.b;
        }
        break;
      case kContractEventTask: task_contract_event(t.a); break;
      case kRelocate: set_owner(t.a, NOBODY); break;
      case kDisasterOne: {
        const int seat = t.a, event = t.b;
        int targets[cp::kMaxBuildings];
        if (disaster_targets(seat, event, targets) == 0) break;
        const bool affordable = wealth[seat] >= cp::kEventArgs[event][2] && prestige[seat] >= cp::kEventArgs[event][3];
        ask(cp::kDDisasterChoice, seat);
        ctx.kind = kDisasterCtx;
        ctx.event = event;
        ctx.affordable = affordable;
        break;
      }
      case kDemolish: demolish(t.a); break;
      default: break;
    }
  }

  bool has_empty_lot() const {
    for (int x = 0; x < cp::kLots; ++x)
      if (lot_building[x] < 0) return true;
    return false;
  }

  void task_vocation(int voc, int value) {
    const int p = active;
    tasks.push(make_task(kVocPayout, voc, value));
    if (voc_supply[voc] > 0) {
      voc_supply[voc] -= 1;
      vocations[p][voc] += 1;
      return;
    }
    bool any = false;
    for (int o = 0; o < n; ++o) any = any || (o != p && vocations[o][voc] != 0);
    if (any) {
      ask(cp::kDVocSource, p);
      ctx.kind = kVocSourceCtx;
      ctx.voc = voc;
    }
  }

  // pushes `asks` (in order) so that the first is popped first
  void push_reversed(const Task* asks, int count) {
    for (int i = count - 1; i >= 0; --i) tasks.push(asks[i]);
  }

  void task_voc_payout(int voc, int value) {
    const int chief = offices[cp::kPoliceChief];
    Task asks[64];
    int count = 0;
    for (int k = 0; k < n; ++k) {
      const int seat = (active + k) % n;
      const int markers = vocations[seat][voc];
      if (seat == chief) {
        wealth[seat] += value * markers;
        prestige[seat] += value * markers;
      } else {
        for (int m = 0; m < markers && count < 64; ++m) asks[count++] = make_task(kVocPayOne, seat, voc, value);
      }
    }
    push_reversed(asks, count);
  }

  // _in_scope as a bool per building
  void in_scope(int bid, int scope, bool* inside) const {
    if (scope == cp::kAdjacent) {
      buildings_adjacent(bid, inside);
      return;
    }
    std::memset(inside, 0, cp::kMaxBuildings);
    if (scope == cp::kTheseRows) {
      const int block = buildings[bid].lots[0] / 4;
      const int r = block / 6, c = block % 6;
      for (int other = 0; other < buildings.size(); ++other) {
        const Building& b = buildings[other];
        if (b.alive && (b.lots[0] / 24 == r || b.lots[0] / 4 % 6 == c)) inside[other] = true;
      }
      return;
    }
    for (int other = 0; other < buildings.size(); ++other) inside[other] = buildings[other].alive;
  }

  void task_effect(int card, int k, int bid) {
    const cp::Effect& e = cp::kEffects[card][k];
    const int p = active;
    switch (e.kind) {
      case cp::kTGain:
        wealth[p] += e.wealth;
        prestige[p] += e.prestige;
        break;
      case cp::kTPerBuilding: {
        bool inside[cp::kMaxBuildings];
        in_scope(bid, e.scope, inside);
        for (int seat = 0; seat < n; ++seat) {
          if (e.recipients != cp::kEachOwn && seat != p) continue;
          const int owner = e.recipients == cp::kActiveAll ? -2 : seat;
          int count = 0;
          for (int other = 0; other < buildings.size(); ++other)
            if (matching(buildings[other], e.zones, e.size, owner) && inside[other]) ++count;
          wealth[seat] += e.wealth * count;
          prestige[seat] += e.prestige * count;
        }
        break;
      }
      case cp::kTElection: tasks.push(make_task(kElectionTask, e.office)); break;
      case cp::kTWinElection:
        if (office_in_play(e.office)) tasks.push(make_task(kElected, e.office, p));
        break;
      case cp::kTMarker: tasks.push(make_task(kMarkerTask, e.number, p)); break;
      case cp::kTParkEffect:
        for (int i = 0; i < e.parks; ++i) tasks.push(make_task(kParkNear, bid, p));
        break;
      case cp::kTExtraFavor: extra_favor = p; break;
      default: {  // Tribute
        Task asks[cp::kMaxBuildings];
        int count = 0;
        for (int k2 = 1; k2 < n; ++k2) {
          const int seat = (p + k2) % n;
          const int times = count_matching(e.zones, e.size, seat);
          for (int m = 0; m < times; ++m) asks[count++] = make_task(kTributeOne, seat, e.amount);
        }
        push_reversed(asks, count);
        break;
      }
    }
  }

  void task_park_near(int bid, int seat) {
    const Building& b = buildings[bid];
    if (tiles[cp::kPARK][0] <= 0 || !b.alive) return;
    bool near[cp::kLots];
    std::memset(near, 0, sizeof near);
    bool any = false;
    for (int i = 0; i < b.size; ++i) {
      const int x = b.lots[i];
      for (int k = 0; k < cp::kAdjacentCount[x]; ++k) {
        const int y = cp::kAdjacentLots[x][k];
        if (lot_building[y] < 0) near[y] = any = true;
      }
    }
    if (!any) return;
    ask(cp::kDParkLot, seat);
    ctx.kind = kLotsCtx;
    for (int y = 0; y < cp::kLots; ++y)
      if (near[y]) ctx.lots.push(static_cast<uint8_t>(y));
  }

  void task_marker(int number, int seat) {
    bool empty = false, placed = false;
    for (int g : circles) {
      empty = empty || g == 0;
      placed = placed || g == number;
    }
    if (!empty) return;
    if (placed) {
      ask(cp::kDMarkerMoveDst, seat);
      ctx.kind = kMarkerMoveCtx;
      ctx.marker = number;
      ctx.optional = true;
    } else {
      ask(cp::kDMarkerPlace, seat);
      ctx.kind = kMarkerPlaceCtx;
      ctx.marker = number;
    }
  }

  // ===== elections (4.3, 5.5) =====
  bool office_in_play(int office) const {
    if (office == cp::kMayor) return true;
    if (office == cp::kContractor) return sports;
    return airport;
  }

  // election_candidates: the seats tied for winning (returns how many, 0: nobody qualifies)
  int election_candidates(int office, int* tied) const {
    int64_t keys[kMaxSeats];  // each seat's key as one comparable number
    if (office == cp::kMayor) {
      int64_t best = INT64_MIN;
      for (int seat = 0; seat < n; ++seat) {
        int sum = 0;
        for (int v = 0; v < cp::kVocations; ++v) sum += vocations[seat][v];
        keys[seat] = sum;
        best = std::max(best, keys[seat]);
      }
      if (best <= 0) return 0;
    } else if (office == cp::kContractor) {
      for (int seat = 0; seat < n; ++seat) keys[seat] = -static_cast<int64_t>(prestige[seat]);
    } else {
      const int zone = cp::kOfficeZone[office];
      int64_t value[kMaxSeats] = {0, 0, 0, 0}, count[kMaxSeats] = {0, 0, 0, 0};
      for (const Building& b : buildings)
        if (b.alive && b.zone == zone && b.owner >= 0) {
          value[b.owner] = std::max<int64_t>(value[b.owner], block_value(b.lots[0] / 4));
          count[b.owner] += 1;
        }
      int64_t best = INT64_MIN, best_count = 0;
      for (int seat = 0; seat < n; ++seat) {
        keys[seat] = value[seat] * 100000 + count[seat];
        if (keys[seat] > best) {
          best = keys[seat];
          best_count = count[seat];
        }
      }
      if (best_count == 0) return 0;
    }
    int64_t best = keys[0];
    for (int seat = 1; seat < n; ++seat) best = std::max(best, keys[seat]);
    int found = 0;
    for (int seat = 0; seat < n; ++seat)
      if (keys[seat] == best) tied[found++] = seat;
    return found;
  }

  int tie_decider(int office) const {
    int chosen = NOBODY;
    if (office == cp::kMayor) {
      for (int seat = 0; seat < n; ++seat)
        if (vocations[seat][cp::kMedia] != 0) {
          chosen = seat;
          break;
        }
    } else {
      chosen = offices[cp::kTieDecider[office]];
    }
    return chosen >= 0 ? chosen : active;
  }

  void task_election(int office) {
    if (!office_in_play(office)) return;
    int tied[kMaxSeats];
    const int count = election_candidates(office, tied);
    if (count == 1) {
      tasks.push(make_task(kElected, office, tied[0]));
    } else if (count > 1) {
      ask(cp::kDElectionTie, tie_decider(office));
      ctx.kind = kElectionTieCtx;
      ctx.office = office;
      for (int i = 0; i < count; ++i) ctx.tied.push(static_cast<int8_t>(tied[i]));
    }
  }

  void task_elected(int office, int seat) {
    offices[office] = seat;
    if (office == cp::kContractor) return;
    if (sports) tasks.push(make_task(kElectionTask, cp::kContractor));
    if (office == cp::kMayor) tasks.push(make_task(kParkAnywhere, seat));
  }

  // ===== end of turn (4.2) =====
  void push_reveal_triggers(int card) {
    if (cp::kWealthPayout[card]) tasks.push(make_task(kPayout, 0, cp::kWealthPayout[card]));
    if (cp::kBallot[card]) tasks.push(make_task(kBallot));
  }

  static bool has_non_event(const Vec<uint8_t, cp::kPlanningCards>& cards) {
    for (int c : cards)
      if (c < cp::kFirstPlanningEvent) return true;
    return false;
  }

  bool planning_available(Random& rng) {
    if (planning_deck.empty()) {
      if (!has_non_event(planning_discard)) return false;
      const std::vector<int64_t> order = rng.permutation(planning_discard.size());
      planning_deck.clear();
      for (int64_t i : order) planning_deck.push(planning_discard[static_cast<int>(i)]);
      planning_discard.clear();
      planning_up = false;
      planning_reshuffles += 1;
    }
    return has_non_event(planning_deck) || has_non_event(planning_discard);
  }

  void task_slide_planning() {
    int cards[5], count = 0;
    for (int c : planning_slots)
      if (c >= 0) cards[count++] = c;
    if (planning_up && !planning_deck.empty() && count < 4) {
      for (int i = count; i > 0; --i) cards[i] = cards[i - 1];
      cards[0] = planning_deck.pop();
      ++count;
      planning_up = false;
    }
    for (int k = 0; k < 4 - count; ++k) planning_slots[k] = -1;
    for (int i = 0; i < count; ++i) planning_slots[4 - count + i] = cards[i];
  }

  void task_refill_planning(Random& rng) {
    int empty = -1;
    for (int k = 3; k >= 0; --k)
      if (planning_slots[k] < 0) {
        empty = k;
        break;
      }
    if (empty < 0 || !planning_available(rng)) return;
    tasks.push(make_task(kRefillPlanning));
    const int card = planning_deck.pop();
    const bool was_up = planning_up;
    planning_up = false;
    if (card >= cp::kFirstPlanningEvent) {
      planning_discard.push(static_cast<uint8_t>(card));
      tasks.push(make_task(kPlanningEventTask, card));
      return;
    }
    planning_slots[empty] = card;
    if (!was_up) push_reveal_triggers(card);
  }

  void task_reveal_planning(Random& rng) {
    if (planning_up || !planning_available(rng)) return;
    const int card = planning_deck.back();
    if (card >= cp::kFirstPlanningEvent) {
      planning_deck.pop();
      planning_discard.push(static_cast<uint8_t>(card));
      tasks.push(make_task(kRevealPlanning));
      tasks.push(make_task(kPlanningEventTask, card));
      return;
    }
    planning_up = true;
    push_reveal_triggers(card);
  }

  // contract_chains: (deck, first slot, last slot) per chain; returns how many
  int contract_chains(int chains[3][3]) const {
    auto set = [&chains](int k, int deck, int first, int last) {
      chains[k][0] = deck;
      chains[k][1] = first;
      chains[k][2] = last;
    };
    if (!airport) {
      set(0, cp::kTown, 0, 4);
      return 1;
    }
    const bool city_open = !decks[cp::kCity].empty();
    if (!sports) {
      if (city_open) {
        set(0, cp::kTown, 0, 0);
        set(1, cp::kCity, 1, 4);
        return 2;
      }
      set(0, cp::kTown, 0, 4);
      return 1;
    }
    if (city_open) {
      set(0, cp::kTown, 0, 0);
      set(1, cp::kCity, 1, 1);
      set(2, cp::kMetro, 2, 4);
      return 3;
    }
    set(0, cp::kTown, 0, 1);
    set(1, cp::kMetro, 2, 4);
    return 2;
  }

  void task_slide_contracts() {
    int chains[3][3];
    const int count = contract_chains(chains);
    for (int c = 0; c < count; ++c) {
      const int deck = chains[c][0], first = chains[c][1], last = chains[c][2];
      const int length = last - first + 1;
      int held[6], nh = 0;
      for (int k = first; k <= last; ++k)
        if (slots[k] >= 0) held[nh++] = slots[k];
      if (deck_up[deck] && !decks[deck].empty() && nh < length) {
        for (int i = nh; i > 0; --i) held[i] = held[i - 1];
        held[0] = decks[deck].pop();
        ++nh;
        deck_up[deck] = false;
      }
      for (int i = 0; i < length; ++i) slots[first + i] = i < length - nh ? -1 : held[i - (length - nh)];
    }
  }

  void task_refill_contracts() {
    for (int k = cp::kSlots - 1; k >= 0; --k) {
      if (slots[k] >= 0) continue;
      int chains[3][3];
      const int count = contract_chains(chains);
      int deck = -1;
      for (int c = 0; c < count && deck < 0; ++c)
        if (chains[c][1] <= k && k <= chains[c][2]) deck = chains[c][0];
      if (decks[deck].empty()) continue;
      tasks.push(make_task(kRefillContracts));
      const int card = decks[deck].pop();
      const bool was_up = deck_up[deck];
      deck_up[deck] = false;
      if (card >= cp::kEventBase) {
        events_done.push(static_cast<uint8_t>(card - cp::kEventBase));
        tasks.push(make_task(kContractEventTask, card - cp::kEventBase));
        return;
      }
      slots[k] = card;
      if (cp::kContractPayout[card] && !was_up) tasks.push(make_task(kPayout, 1, cp::kContractPayout[card]));
      return;
    }
  }

  void task_reveal_contract(int deck) {
    if (!deck_active(deck) || deck_up[deck] || decks[deck].empty()) return;
    const int card = decks[deck].back();
    if (card >= cp::kEventBase) {
      decks[deck].pop();
      events_done.push(static_cast<uint8_t>(card - cp::kEventBase));
      tasks.push(make_task(kRevealContract, deck));
      tasks.push(make_task(kContractEventTask, card - cp::kEventBase));
      return;
    }
    deck_up[deck] = true;
    if (cp::kContractPayout[card]) tasks.push(make_task(kPayout, 1, cp::kContractPayout[card]));
  }

  // ===== events (5.6, 5.7) =====
  int controlled_count(int seat, int zone, int size_at_least, int size_exact) const {
    int count = 0;
    for (const Building& b : buildings)
      if (b.alive && b.owner == seat && (zone < 0 || b.zone == zone) && b.size >= size_at_least &&
          (size_exact == 0 || b.size == size_exact))
        ++count;
    return count;
  }

  void task_planning_event(int card) {
    const int kind = cp::kPlanningEventKind[card - cp::kFirstPlanningEvent];
    const int arg = cp::kPlanningEventArg[card - cp::kFirstPlanningEvent];
    switch (kind) {
      case cp::kLuxuryTax:
        for (int seat = 0; seat < n; ++seat) wealth[seat] -= std::min(arg, wealth[seat]);
        break;
      case cp::kAuction:
        for (int k = n - 1; k >= 0; --k) tasks.push(make_task(kAuctionOne, (active + k) % n, arg));
        break;
      case cp::kUrbanBlight: pick_extreme(true, kPurposeBlight); break;
      case cp::kLocalHeadlines: pick_extreme(false, kPurposeHeadlines); break;
      case cp::kSpecialElection: tasks.push(make_task(kBallot)); break;
      case cp::kHoldElection: tasks.push(make_task(kElectionTask, arg)); break;
      case cp::kIncomePerZone:
        for (int seat = 0; seat < n; ++seat) wealth[seat] += controlled_count(seat, arg, 0, 0);
        break;
      case cp::kPrestigePerPark:
        for (int seat = 0; seat < n; ++seat) prestige[seat] += arg * controlled_count(seat, cp::kPARK, 0, 0);
        break;
      case cp::kTaxPerSize:
        for (int seat = 0; seat < n; ++seat) {
          const int due = controlled_count(seat, -1, 0, arg);
          wealth[seat] -= std::min(due, wealth[seat]);
        }
        break;
      case cp::kMoveMarker: tasks.push(make_task(kMoveMarker, active)); break;
      case cp::kMediaBonus: media_bonus(arg, arg); break;
      default: break;
    }
  }

  void media_bonus(int w, int p) {
    for (int seat = 0; seat < n; ++seat)
      if (vocations[seat][cp::kMedia] != 0) {
        wealth[seat] += w;
        prestige[seat] += p;
      }
  }

  void pick_extreme(bool lowest, int purpose) {
    int values[cp::kMaxBuildings];
    bool any = false;
    int target = 0;
    for (int bid = 0; bid < buildings.size(); ++bid) {
      if (!buildings[bid].alive) continue;
      values[bid] = building_value(bid);
      if (!any || (lowest ? values[bid] < target : values[bid] > target)) target = values[bid];
      any = true;
    }
    if (!any) return;
    int tied[cp::kMaxBuildings], count = 0;
    for (int bid = 0; bid < buildings.size(); ++bid)
      if (buildings[bid].alive && values[bid] == target) tied[count++] = bid;
    if (count == 1) {
      tasks.push(make_task(kPicked[purpose], tied[0]));
      return;
    }
    ask(cp::kDPickBuilding, active);
    ctx.kind = kPickCtx;
    ctx.purpose = static_cast<uint8_t>(purpose);
    lots_of(tied, count);
  }

  void task_contract_event(int event) {
    const int kind = cp::kEventKind[event];
    const int* args = cp::kEventArgs[event];
    switch (kind) {
      case cp::kAirport: airport = true; break;
      case cp::kSportsTeam: sports = true; break;
      case cp::kOlympicGames: final_scoring(); break;
      case cp::kDisaster:
        for (int k = n - 1; k >= 0; --k) tasks.push(make_task(kDisasterOne, (active + k) % n, event));
        break;
      case cp::kPlaceMarker: tasks.push(make_task(kMarkerTask, args[0], active)); break;
      case cp::kHoldElections:
        for (int k = cp::kEventArgCount[event] - 1; k >= 0; --k) tasks.push(make_task(kElectionTask, args[k]));
        break;
      case cp::kIncomeNearForest:
        for (int seat = 0; seat < n; ++seat) {
          int count = 0;
          for (const Building& b : buildings) {
            if (!b.alive || b.owner != seat) continue;
            bool forest = false;
            for (int k = 0; k < b.size; ++k) forest = forest || cp::kLotForest[b.lots[k]];
            if (forest) ++count;
          }
          wealth[seat] += args[0] * count;
        }
        break;
      case cp::kRelocation: {
        media_bonus(args[0], args[1]);
        const int treasurer = offices[cp::kTreasurer];
        int targets[cp::kMaxBuildings], count = 0;
        for (int bid = 0; bid < buildings.size(); ++bid)
          if (matching(buildings[bid], 1 << cp::kCOM, 0, -2) && buildings[bid].owner >= 0) targets[count++] = bid;
        if (treasurer >= 0 && count > 0) {
          ask(cp::kDPickBuilding, treasurer);
          ctx.kind = kPickCtx;
          ctx.purpose = kPurposeRelocate;
          lots_of(targets, count);
        }
        break;
      }
      case cp::kUnionStrike: {
        const int boss = offices[cp::kUnionBoss];
        if (boss >= 0) wealth[boss] += args[0] * count_matching(1 << cp::kIND, 0, -2);
        tasks.push(make_task(kElectionTask, cp::kUnionBoss));
        break;
      }
      case cp::kPrestigePerBigZone:
        for (int seat = 0; seat < n; ++seat) prestige[seat] += args[2] * controlled_count(seat, args[0], args[1], 0);
        break;
      case cp::kScandal: {
        const int mayor = offices[cp::kMayor];
        if (mayor >= 0) prestige[mayor] -= std::min(args[0], prestige[mayor]);
        tasks.push(make_task(kElectionTask, cp::kMayor));
        break;
      }
      case cp::kMoveMarker: tasks.push(make_task(kMoveMarker, active)); break;
      default: break;
    }
  }

  // ===== end of the game (§6) =====
  // final_payouts, summed per seat
  void final_payouts(int* total) const {
    int numbers[3 + cp::kCircles] = {3, 1, 2};
    int count = 3;
    for (int g : circles)
      for (int m : cp::kPrestigeMarkers)
        if (g == m) numbers[count++] = g;
    for (int seat = 0; seat < n; ++seat) total[seat] = wealth[seat] / 10;
    for (int i = 0; i < count; ++i) {
      int paid[kMaxSeats];
      row_payout(1, numbers[i], paid);
      for (int seat = 0; seat < n; ++seat) total[seat] += paid[seat];
    }
    for (int office = 0; office < cp::kOffices; ++office)
      if (offices[office] >= 0) total[offices[office]] += office_bonus(office, offices[office]);
  }

  void final_scoring() {
    int total[kMaxSeats];
    final_payouts(total);
    for (int seat = 0; seat < n; ++seat) prestige[seat] += total[seat];
    game_over(false);
  }

  int office_bonus(int office, int seat) const {
    if (office == cp::kContractor) return 0;
    if (office == cp::kMayor) {
      int count = 0;
      bool near[cp::kMaxBuildings];
      for (int bid = 0; bid < buildings.size(); ++bid) {
        const Building& b = buildings[bid];
        if (!b.alive || b.owner != seat || b.zone == cp::kPARK) continue;
        buildings_adjacent(bid, near);
        bool park = false;
        for (int other = 0; other < buildings.size(); ++other) park = park || (near[other] && buildings[other].zone == cp::kPARK);
        if (park) ++count;
      }
      return count;
    }
    return count_matching(1 << cp::kOfficeBonusZone[office], 0, -2);
  }

  // ranking_winners: most prestige, then most wealth
  int ranking_winners(int* out) const {
    int best = 0;
    for (int seat = 1; seat < n; ++seat)
      if (prestige[seat] > prestige[best] || (prestige[seat] == prestige[best] && wealth[seat] > wealth[best])) best = seat;
    int count = 0;
    for (int seat = 0; seat < n; ++seat)
      if (prestige[seat] == prestige[best] && wealth[seat] == wealth[best]) out[count++] = seat;
    return count;
  }

  void game_over(bool truncated_) {
    int keep[kMaxSeats];
    const int count = ranking_winners(keep);
    winner_seats.clear();
    for (int i = 0; i < count; ++i) winner_seats.push(static_cast<int8_t>(keep[i]));
    truncated = truncated_;
    tasks.clear();
    decision = GAME_OVER;
    decider = -1;
    has_build = false;
    build_has_building = false;
  }
};


// ===== view.py: observation =====
inline void Game::observation(int p, float* out) const {
  std::memset(out, 0, sizeof(float) * kObservationSize);
  // the lot planes (_fill_lots for seat p)
  const int contractor = offices[cp::kContractor];
  for (int x = 0; x < cp::kLots; ++x) {
    const int base = cp::kLotBase[x];
    out[base + cp::kObsBlockValue] = static_cast<float>(block_value(x / 4)) / 30.0f;
    out[base + cp::kObsWater] = cp::kLotWater[x] ? 1.0f : 0.0f;
    out[base + cp::kObsForest] = cp::kLotForest[x] ? 1.0f : 0.0f;
    if (lot_building[x] < 0) out[base + cp::kObsZone] = 1.0f;
  }
  for (const Building& b : buildings) {
    if (!b.alive) continue;
    const int control = b.owner < 0 ? cp::kObsController + 4 : cp::kObsController + ((b.owner - p) % n + n) % n;
    const bool contracted = b.owner >= 0 && b.owner == contractor;
    for (int k = 0; k < b.size; ++k) {
      const int base = cp::kLotBase[b.lots[k]];
      out[base + cp::kObsZone + 1 + b.zone] = 1.0f;
      out[base + control] = 1.0f;
      out[base + cp::kObsSize + b.size - 1] = 1.0f;
      if (contracted) out[base + cp::kObsContractor] = 1.0f;
    }
    out[cp::kLotBase[b.lots[0]] + cp::kObsAnchor] = 1.0f;
  }
  // _circles_block
  for (int g = 0; g < cp::kCircles; ++g)
    out[cp::kObsCirclesStart + cp::kObsCirclesWidth * g + (circles[g] ? circles[g] - 3 : 0)] = 1.0f;
  for (int k = 0; k < static_cast<int>(sizeof cp::kMarkers / sizeof cp::kMarkers[0]); ++k) {
    bool placed = false;
    for (int g : circles) placed = placed || g == cp::kMarkers[k];
    out[cp::kObsMarkerBoxStart + k] = placed ? 0.0f : 1.0f;
  }
  // planning spaces
  for (int space = 0; space < 5; ++space) {
    const int card = planning_at(space);
    const int row = cp::kObsPlanningStart + cp::kObsPlanningWidth * space;
    out[row + (card >= 0 ? card : cp::kObsPlanningEmpty)] = 1.0f;
  }
  // contract spaces and their cards' features (contract_features)
  int spaces[8];
  contract_spaces(spaces);
  for (int space = 0; space < 8; ++space) {
    const int card = spaces[space];
    const int row = cp::kObsContractsStart + cp::kObsContractsWidth * space;
    out[row + (card >= 0 ? card : cp::kObsContractsEmpty)] = 1.0f;
    if (card < 0) continue;
    float* f = out + cp::kObsFeaturesStart + cp::kObsFeaturesWidth * space;
    f[cp::kObsFZone + cp::kContractZone[card]] = 1.0f;
    f[cp::kObsFSize + cp::kContractSize[card] - 1] = 1.0f;
    for (int k = 0; k < cp::kVocationCount[card]; ++k)
      f[cp::kObsFVocations + cp::kContractVocations[card][k][0]] =
          static_cast<float>(cp::kContractVocations[card][k][1] / 7.0);
    f[cp::kObsFPayout + cp::kContractPayout[card]] = 1.0f;
    f[cp::kObsFRestriction + (cp::kRestriction[card][0] < 0 ? 0 : 1 + cp::kRestriction[card][0])] = 1.0f;
    for (int k = 0; k < cp::kEffectCount[card]; ++k) f[cp::kObsFEffects + cp::kEffects[card][k].kind] = 1.0f;
  }
  // the players' rows, p's first
  for (int j = 0; j < n; ++j) {
    const int seat = (p + j) % n;
    float* row = out + cp::kObsPlayersStart + cp::kObsPlayersWidth * j;
    row[0] = static_cast<float>(wealth[seat] / 50.0);
    row[1] = static_cast<float>(prestige[seat] / 100.0);
    for (int c : hands[seat]) row[cp::kObsHand + c] = 1.0f;
    for (int c : favors[seat]) row[cp::kObsFavors + c] = 1.0f;
    for (int v = 0; v < cp::kVocations; ++v)
      row[cp::kObsOwnVocations + v] = static_cast<float>(vocations[seat][v]) / 5.0f;
    for (int office = 0; office < cp::kOffices; ++office)
      row[cp::kObsOffices + office] = offices[office] == seat ? 1.0f : 0.0f;
    row[cp::kObsOffices + cp::kOffices] = extra_favor == seat ? 1.0f : 0.0f;
  }
  // globals
  for (int v = 0; v < cp::kVocations; ++v) out[cp::kObsSupply + v] = static_cast<float>(voc_supply[v]) / 5.0f;
  float* scalars = out + cp::kObsPawnToDecks;
  scalars[pawn] = 1.0f;
  scalars[cp::kPoliticians] = airport ? 1.0f : 0.0f;
  scalars[cp::kPoliticians + 1] = sports ? 1.0f : 0.0f;
  scalars[cp::kPoliticians + 2] = static_cast<float>(planning_deck.size() / 54.0);
  for (int d = 0; d < 3; ++d) scalars[cp::kPoliticians + 3 + d] = static_cast<float>(decks[d].size() / 37.0);
  for (int c : planning_discard) out[cp::kObsDiscard + c] = 1.0f;
  for (int c : removed) out[cp::kObsOut + c] = 1.0f;
  for (int e : events_done) out[cp::kObsEvents + e] = 1.0f;
  out[cp::kObsAp] = static_cast<float>(ap / 8.0);
  out[cp::kObsActive + ((active - p) % n + n) % n] = 1.0f;
  out[cp::kObsPlayerCount + n - 2] = 1.0f;
  out[cp::kObsVariant + variant] = 1.0f;
  for (int zone = 0; zone < 5; ++zone)
    for (int size = 0; size < 4; ++size)
      out[cp::kObsTiles + 4 * zone + size] = static_cast<float>(tiles[zone][size]) / 20.0f;
  // the decision block (_decision_block)
  if (decision >= 0) out[cp::kObsKind + decision] = 1.0f;
  out[has_build ? cp::kObsContract + build_card : cp::kObsNoContract] = 1.0f;
  out[cp::kObsPermits] = static_cast<float>((has_build ? build_paid : 0) / 4.0);
  const bool has_voc = ctx.kind == kVocSourceCtx || ctx.kind == kVocPayoutCtx;
  out[has_voc ? cp::kObsVocation + ctx.voc : cp::kObsNoVocation] = 1.0f;
  const bool has_amount = ctx.kind == kVocPayoutCtx || ctx.kind == kTributeCtx;
  out[cp::kObsAmount] = static_cast<float>((has_amount ? ctx.amount : 0) / 10.0);
  out[cp::kObsIAmActive] = active == p ? 1.0f : 0.0f;
}

// ===== view.py: determinize =====
inline void Game::resample_hidden(int /*player*/, Random& rng) {
  // _resample_planning_deck
  {
    const int hidden = planning_up && !planning_deck.empty() ? planning_deck.size() - 1 : planning_deck.size();
    int from_top[cp::kPlanningCards], count = 0;
    if (planning_reshuffles) {
      const std::vector<int64_t> order = rng.permutation(hidden);
      for (int i = 0; i < hidden; ++i) from_top[count++] = planning_deck[static_cast<int>(order[static_cast<size_t>(i)])];
    } else {
      int permits[cp::kPlanningCards], np = 0;
      for (int i = 0; i < hidden; ++i)
        if (planning_deck[i] < cp::kFirstPlanningEvent) permits[np++] = planning_deck[i];
      const std::vector<int64_t> order = rng.permutation(np);
      int shuffled[cp::kPlanningCards];
      for (int i = 0; i < np; ++i) shuffled[i] = permits[order[static_cast<size_t>(i)]];
      const int safe = std::max(0, cp::kPlanningTopPermits - (cp::kPlanningStartDeck - hidden));
      int rest[cp::kPlanningCards], nr = 0;
      for (int i = safe; i < np; ++i) rest[nr++] = shuffled[i];
      for (int i = 0; i < hidden; ++i)
        if (planning_deck[i] >= cp::kFirstPlanningEvent) rest[nr++] = planning_deck[i];
      for (int i = 0; i < std::min(safe, np); ++i) from_top[count++] = shuffled[i];
      const std::vector<int64_t> order2 = rng.permutation(nr);
      for (int i = 0; i < nr; ++i) from_top[count++] = rest[order2[static_cast<size_t>(i)]];
    }
    Vec<uint8_t, cp::kPlanningCards> deck;
    for (int i = count - 1; i >= 0; --i) deck.push(static_cast<uint8_t>(from_top[i]));
    for (int i = hidden; i < planning_deck.size(); ++i) deck.push(planning_deck[i]);
    planning_deck = deck;
  }
  // _resample_contract_deck, per deck
  for (int d = 0; d < 3; ++d) {
    Vec<uint8_t, cp::kContractDeckSize>& cards = decks[d];
    const int hidden = deck_up[d] ? std::max(0, cards.size() - 1) : cards.size();
    const int gone = cp::kContractDeckSize - hidden;
    const int special = cp::kEventBase + cp::kSpecialEvent[d];
    int others[cp::kContractDeckSize], no = 0;
    bool special_hidden = false;
    for (int i = 0; i < hidden; ++i) {
      if (cards[i] != special) others[no++] = cards[i];
      else special_hidden = true;
    }
    const std::vector<int64_t> order = rng.permutation(no);
    Vec<int, cp::kContractDeckSize + 1> from_top;
    for (int i = 0; i < no; ++i) from_top.push(others[order[static_cast<size_t>(i)]]);
    if (special_hidden) {
      const int above = cp::kDeckStacking[variant][0], mixed = cp::kDeckStacking[variant][1];
      const int first = std::max(above + 1, gone + 1), last = above + mixed + 1;
      const int at = static_cast<int>(rng.integers(first, last + 1)) - gone - 1;
      from_top.insert_at(std::min(std::max(at, 0), from_top.size()), special);  // list.insert
    }
    Vec<uint8_t, cp::kContractDeckSize> deck;
    for (int i = from_top.size() - 1; i >= 0; --i) deck.push(static_cast<uint8_t>(from_top[i]));
    for (int i = hidden; i < cards.size(); ++i) deck.push(cards[i]);
    cards = deck;
  }
}

// ===== game.py: _state_to_dict =====
inline void Game::write_json(json::Writer& out) const {
  auto ints = [&out](const int* values, int count) {
    out.begin_array();
    for (int i = 0; i < count; ++i) out.value(values[i]);
    out.end_array();
  };
  auto cards = [&out](const auto& list) {
    out.begin_array();
    for (int c : list) out.value(c);
    out.end_array();
  };
  out.begin_object();
  out.key("n").value(n);
  out.key("lot_building").begin_array();
  for (int x = 0; x < cp::kLots; ++x) out.value(static_cast<int>(lot_building[x]));
  out.end_array();
  out.key("buildings").begin_array();
  for (const Building& b : buildings) {
    if (!b.alive) {
      out.null();
      continue;
    }
    out.begin_array().value(static_cast<int>(b.zone)).value(static_cast<int>(b.size)).begin_array();
    for (int k = 0; k < b.size; ++k) out.value(static_cast<int>(b.lots[k]));
    out.end_array().value(static_cast<int>(b.owner)).end_array();
  }
  out.end_array();
  out.key("tiles").begin_array();
  for (int zone = 0; zone < 5; ++zone) ints(tiles[zone], 4);
  out.end_array();
  out.key("circles");
  ints(circles, cp::kCircles);
  out.key("wealth");
  ints(wealth, n);
  out.key("prestige");
  ints(prestige, n);
  out.key("hands").begin_array();
  for (int seat = 0; seat < n; ++seat) cards(hands[seat]);
  out.end_array();
  out.key("favors").begin_array();
  for (int seat = 0; seat < n; ++seat) cards(favors[seat]);
  out.end_array();
  out.key("vocations").begin_array();
  for (int seat = 0; seat < n; ++seat) ints(vocations[seat], cp::kVocations);
  out.end_array();
  out.key("voc_supply");
  ints(voc_supply, cp::kVocations);
  out.key("offices");
  ints(offices, cp::kOffices);
  out.key("planning_deck");
  cards(planning_deck);
  out.key("planning_slots");
  ints(planning_slots, 4);
  out.key("planning_discard");
  cards(planning_discard);
  out.key("decks").begin_array();
  for (int d = 0; d < 3; ++d) cards(decks[d]);
  out.end_array();
  out.key("slots");
  ints(slots, cp::kSlots);
  out.key("extra_favor").value(extra_favor);
  out.key("pawn").value(pawn);
  out.key("airport").value(airport);
  out.key("sports").value(sports);
  out.key("planning_up").value(planning_up);
  out.key("deck_up").begin_array().value(deck_up[0]).value(deck_up[1]).value(deck_up[2]).end_array();
  out.key("removed");
  cards(removed);
  out.key("events_done");
  cards(events_done);
  out.key("active").value(active);
  out.key("phase").value(phase);
  out.key("ap").value(ap);
  out.key("built_this_turn").value(built_this_turn);
  out.key("decision").value(decision);
  out.key("decider").value(decider);
  out.key("ctx").begin_object();
  switch (ctx.kind) {
    case kVocSourceCtx: out.key("voc").value(ctx.voc); break;
    case kVocPayoutCtx: out.key("voc").value(ctx.voc).key("amount").value(ctx.amount); break;
    case kTributeCtx: out.key("amount").value(ctx.amount); break;
    case kLotsCtx:
      out.key("lots");
      cards(ctx.lots);
      break;
    case kMarkerPlaceCtx: out.key("marker").value(ctx.marker); break;
    case kMarkerMoveCtx: out.key("marker").value(ctx.marker).key("optional").value(ctx.optional); break;
    case kElectionTieCtx:
      out.key("office").value(ctx.office).key("tied");
      cards(ctx.tied);
      break;
    case kMediaTieCtx:
      out.key("tied");
      cards(ctx.tied);
      break;
    case kPickCtx:
      out.key("purpose").value(kPurposeNames[ctx.purpose]).key("lots");
      cards(ctx.lots);
      break;
    case kBlightCtx: out.key("building").value(ctx.building).key("affordable").value(ctx.affordable); break;
    case kAuctionCtx: out.key("affordable").value(ctx.affordable).key("price").value(ctx.price); break;
    case kDisasterCtx: out.key("event").value(ctx.event).key("affordable").value(ctx.affordable); break;
    default: break;
  }
  out.end_object();
  out.key("tasks").begin_array();
  for (const Task& t : tasks) {
    out.begin_array().value(kTaskNames[t.kind]);
    const int fields[3] = {t.a, t.b, t.c};
    for (int k = 0; k < kTaskFields[t.kind]; ++k) {
      if (t.kind == kPayout && k == 0) out.value(t.a == 0 ? "w" : "p");
      else out.value(fields[k]);
    }
    out.end_array();
  }
  out.end_array();
  out.key("build");
  if (has_build) {
    out.begin_object().key("card").value(build_card).key("paid").value(build_paid);
    if (build_has_building) out.key("building").value(build_building);
    out.end_object();
  } else {
    out.null();
  }
  out.key("planning_reshuffles").value(planning_reshuffles);
  out.key("turns").value(static_cast<int64_t>(turns));
  out.key("winners");
  cards(winner_seats);
  out.key("truncated").value(truncated);
  out.end_object();
}

// ===== validation.state_from_json: every index range-checked before use =====
inline void Game::read_json(int num_players, const json::Value& options, const json::Value& s) {
  read_options(options);
  if (s.kind != json::Value::Kind::kObject) throw std::invalid_argument("state: an object was expected");
  if (s.members.size() != 38) throw std::invalid_argument("state: 38 keys were expected");
  constexpr int64_t kBig = 1000000000;
  n = static_cast<int>(s.at("n").as_int("n", num_players, num_players));
  auto int_list = [](const json::Value& v, const char* what, int size, int64_t low, int64_t high, int* out) {
    const auto& items = v.as_array(what, static_cast<size_t>(size));
    if (static_cast<int>(items.size()) != size)
      throw std::invalid_argument(std::string("state: ") + what + " must hold " + std::to_string(size) + " values");
    for (int i = 0; i < size; ++i) out[i] = static_cast<int>(items[static_cast<size_t>(i)].as_int(what, low, high));
  };
  auto card_list = [](const json::Value& v, const char* what, auto& out, int64_t low, int64_t high) {
    const int capacity = static_cast<int>(sizeof(out.data) / sizeof(out.data[0]));
    const auto& items = v.as_array(what, static_cast<size_t>(capacity));
    out.clear();
    for (const auto& item : items) out.push(static_cast<std::remove_reference_t<decltype(out.data[0])>>(item.as_int(what, low, high)));
  };
  // the city
  {
    const auto& rows = s.at("buildings").as_array("buildings", cp::kMaxBuildings);
    buildings.clear();
    for (const auto& row : rows) {
      Building b;
      if (!row.is_null()) {
        const auto& fields = row.as_array("buildings[]", 4);
        if (fields.size() != 4) throw std::invalid_argument("state: buildings[] must be [zone, size, lots, owner]");
        b.zone = static_cast<int8_t>(fields[0].as_int("buildings[].zone", 0, cp::kZones - 1));
        b.size = static_cast<int8_t>(fields[1].as_int("buildings[].size", 1, 4));
        const auto& lots = fields[2].as_array("buildings[].lots", 4);
        if (static_cast<int>(lots.size()) != b.size) throw std::invalid_argument("state: buildings[].lots must hold size lots");
        for (int k = 0; k < b.size; ++k) b.lots[k] = static_cast<uint8_t>(checked_index(lots[static_cast<size_t>(k)], "buildings[].lots", cp::kLots));
        for (int k = 1; k < b.size; ++k)
          if (b.lots[k] / 4 != b.lots[0] / 4) throw std::invalid_argument("state: buildings[] lies in several blocks");
        b.owner = static_cast<int8_t>(fields[3].as_int("buildings[].owner", NOBODY, n - 1));
        b.alive = true;
      }
      buildings.push(b);
    }
    int lb[cp::kLots];
    int_list(s.at("lot_building"), "lot_building", cp::kLots, -1, buildings.size() - 1, lb);
    for (int x = 0; x < cp::kLots; ++x) {
      if (lb[x] >= 0 && !buildings[lb[x]].alive) throw std::invalid_argument("state: lot_building names a demolished building");
      lot_building[x] = static_cast<int16_t>(lb[x]);
    }
    int covered = 0;
    for (int bid = 0; bid < buildings.size(); ++bid) {
      const Building& b = buildings[bid];
      if (!b.alive) continue;
      for (int k = 0; k < b.size; ++k)
        if (lot_building[b.lots[k]] != bid) throw std::invalid_argument("state: lot_building disagrees with buildings");
      covered += b.size;
    }
    int occupied = 0;
    for (int x = 0; x < cp::kLots; ++x) occupied += lot_building[x] >= 0;
    if (covered != occupied) throw std::invalid_argument("state: lot_building disagrees with the buildings");
    const auto& rows_t = s.at("tiles").as_array("tiles", 5);
    if (rows_t.size() != 5) throw std::invalid_argument("state: tiles must hold 5 rows");
    int supply = 0;
    for (int zone = 0; zone < 5; ++zone) {
      int_list(rows_t[static_cast<size_t>(zone)], "tiles", 4, 0, 1000, tiles[zone]);
      for (int size = 0; size < 4; ++size) supply += tiles[zone][size];
    }
    // each building record took one tile from the supply (so the records stay within kMaxBuildings)
    if (buildings.size() + supply > cp::kMaxBuildings)
      throw std::invalid_argument("state: tiles: more tiles in supply and built than the game has");
    int_list(s.at("circles"), "circles", cp::kCircles, 0, cp::kMaxMarker, circles);
    for (int g = 0; g < cp::kCircles; ++g) {
      if (circles[g] != 0 && circles[g] < cp::kMarkers[0]) throw std::invalid_argument("state: circles must hold markers");
      for (int h = 0; h < g; ++h)
        if (circles[g] != 0 && circles[h] == circles[g]) throw std::invalid_argument("state: circles repeat a marker");
    }
  }
  // the seats
  for (int seat = 0; seat < kMaxSeats; ++seat) {
    wealth[seat] = prestige[seat] = 0;
    hands[seat].clear();
    favors[seat].clear();
    for (int v = 0; v < cp::kVocations; ++v) vocations[seat][v] = 0;
  }
  int_list(s.at("wealth"), "wealth", n, 0, kBig, wealth);
  int_list(s.at("prestige"), "prestige", n, 0, kBig, prestige);
  extra_favor = static_cast<int>(s.at("extra_favor").as_int("extra_favor", NOBODY, n - 1));
  {
    const auto& hs = s.at("hands").as_array("hands", static_cast<size_t>(n));
    const auto& fs = s.at("favors").as_array("favors", static_cast<size_t>(n));
    const auto& vs = s.at("vocations").as_array("vocations", static_cast<size_t>(n));
    if (static_cast<int>(hs.size()) != n || static_cast<int>(fs.size()) != n || static_cast<int>(vs.size()) != n)
      throw std::invalid_argument("state: hands, favors and vocations must hold one list per seat");
    for (int seat = 0; seat < n; ++seat) {
      card_list(hs[static_cast<size_t>(seat)], "hands", hands[seat], 0, cp::kPlanningCards - 1);
      card_list(fs[static_cast<size_t>(seat)], "favors", favors[seat], 0, cp::kNumContracts - 1);
      if (favors[seat].size() > favor_capacity(seat)) throw std::invalid_argument("state: favors over capacity");
      int_list(vs[static_cast<size_t>(seat)], "vocations", cp::kVocations, 0, 100, vocations[seat]);
    }
  }
  int_list(s.at("voc_supply"), "voc_supply", cp::kVocations, 0, 100, voc_supply);
  for (int v = 0; v < cp::kVocations; ++v) {
    int total = voc_supply[v];
    for (int seat = 0; seat < n; ++seat) total += vocations[seat][v];
    if (total != cp::kVocationMarkers[v]) throw std::invalid_argument("state: voc_supply disagrees with the markers");
  }
  int_list(s.at("offices"), "offices", cp::kOffices, NOBODY, n - 1, offices);
  // planning cards: each once
  card_list(s.at("planning_deck"), "planning_deck", planning_deck, 0, cp::kPlanningCards - 1);
  int_list(s.at("planning_slots"), "planning_slots", 4, -1, cp::kPlanningCards - 1, planning_slots);
  card_list(s.at("planning_discard"), "planning_discard", planning_discard, 0, cp::kPlanningCards - 1);
  {
    int seen[cp::kPlanningCards] = {};
    for (int seat = 0; seat < n; ++seat)
      for (int c : hands[seat]) seen[c] += 1;
    for (int c : planning_slots)
      if (c >= 0) seen[c] += 1;
    for (int c : planning_deck) seen[c] += 1;
    for (int c : planning_discard) seen[c] += 1;
    for (int c = 0; c < cp::kPlanningCards; ++c)
      if (seen[c] != 1) throw std::invalid_argument("state: planning_deck: the planning cards are not each there once");
  }
  // contract cards: each once
  {
    const auto& ds = s.at("decks").as_array("decks", 3);
    if (ds.size() != 3) throw std::invalid_argument("state: decks must hold 3 decks");
    for (int d = 0; d < 3; ++d) {
      card_list(ds[static_cast<size_t>(d)], "decks", decks[d], 0, cp::kEventBase + cp::kNumContractEvents - 1);
      for (int c : decks[d]) {
        bool own = false;
        for (int k : cp::kDeckCards[d]) own = own || k == c;
        if (!own) throw std::invalid_argument("state: decks holds a card of another deck");
      }
    }
  }
  int_list(s.at("slots"), "slots", cp::kSlots, -1, cp::kNumContracts - 1, slots);
  card_list(s.at("removed"), "removed", removed, 0, cp::kNumContracts - 1);
  card_list(s.at("events_done"), "events_done", events_done, 0, cp::kNumContractEvents - 1);
  pawn = static_cast<int>(s.at("pawn").as_int("pawn", 0, cp::kPoliticians - 1));
  airport = s.at("airport").as_bool("airport");
  sports = s.at("sports").as_bool("sports");
  planning_up = s.at("planning_up").as_bool("planning_up");
  {
    const auto& du = s.at("deck_up").as_array("deck_up", 3);
    if (du.size() != 3) throw std::invalid_argument("state: deck_up must hold 3 values");
    for (int d = 0; d < 3; ++d) deck_up[d] = du[static_cast<size_t>(d)].as_bool("deck_up");
    for (int d = 0; d < 3; ++d)
      if (deck_up[d] && !decks[d].empty() && decks[d].back() >= cp::kEventBase)
        throw std::invalid_argument("state: deck_up shows an event on a deck's top");
  }
  // build
  {
    const json::Value& b = s.at("build");
    has_build = !b.is_null();
    build_has_building = false;
    build_card = build_paid = build_building = 0;
    if (has_build) {
      if (b.kind != json::Value::Kind::kObject) throw std::invalid_argument("state: build must be an object or null");
      for (const auto& member : b.members)
        if (member.first != "card" && member.first != "paid" && member.first != "building")
          throw std::invalid_argument("state: build has an unknown key");
      build_card = static_cast<int>(b.at("card").as_int("build.card", 0, cp::kNumContracts - 1));
      build_paid = static_cast<int>(b.at("paid").as_int("build.paid", 0, 1000));
      if (b.has("building") && !b.at("building").is_null()) {
        build_has_building = true;
        build_building = checked_index(b.at("building"), "build.building", buildings.size());
      }
    }
  }
  {
    int seen[cp::kEventBase + cp::kNumContractEvents] = {};
    for (int seat = 0; seat < n; ++seat)
      for (int c : favors[seat]) seen[c] += 1;
    for (int c : slots)
      if (c >= 0) seen[c] += 1;
    for (int c : removed) seen[c] += 1;
    for (int d = 0; d < 3; ++d)
      for (int c : decks[d]) seen[c] += 1;
    for (int e : events_done) seen[cp::kEventBase + e] += 1;
    if (has_build && !build_has_building) seen[build_card] += 1;
    for (int c = 0; c < cp::kEventBase + cp::kNumContractEvents; ++c)
      if (seen[c] != 1) throw std::invalid_argument("state: decks: the contract cards are not each there once");
  }
  // the turn
  active = static_cast<int>(s.at("active").as_int("active", 0, n - 1));
  phase = static_cast<int>(s.at("phase").as_int("phase", NONE, cp::kDMain));
  if (phase == GAME_OVER) throw std::invalid_argument("state: phase is not a phase");
  ap = static_cast<int>(s.at("ap").as_int("ap", 0, cp::kUnionBossAp));
  built_this_turn = s.at("built_this_turn").as_bool("built_this_turn");
  decision = static_cast<int>(s.at("decision").as_int("decision", GAME_OVER, cp::kDecisions - 1));
  // the Python engine checks the decider of a pending decision only
  decider = static_cast<int>(decision == GAME_OVER ? s.at("decider").as_int("decider", INT32_MIN, INT32_MAX)
                                                   : s.at("decider").as_int("decider", 0, n - 1));
  planning_reshuffles = static_cast<int>(s.at("planning_reshuffles").as_int("planning_reshuffles", 0, kBig));
  turns = s.at("turns").as_int("turns", 0, max_turns);
  truncated = s.at("truncated").as_bool("truncated");
  card_list(s.at("winners"), "winners", winner_seats, 0, n - 1);
  if ((decision == cp::kDPayPermit || decision == cp::kDPlace) && (!has_build || build_has_building))
    throw std::invalid_argument("state: build: no contract is being built by the seat to decide");
  if (decision == GAME_OVER && winner_seats.empty()) throw std::invalid_argument("state: winners: none at the end");
  // ctx: exactly the keys the pending decision reads
  {
    const json::Value& c = s.at("ctx");
    if (c.kind != json::Value::Kind::kObject) throw std::invalid_argument("state: ctx must be an object");
    ctx = Ctx();
    const char* keys[2] = {nullptr, nullptr};
    switch (decision) {
      case cp::kDVocSource: ctx.kind = kVocSourceCtx; keys[0] = "voc"; break;
      case cp::kDVocPayout: ctx.kind = kVocPayoutCtx; keys[0] = "voc"; keys[1] = "amount"; break;
      case cp::kDTributePay: ctx.kind = kTributeCtx; keys[0] = "amount"; break;
      case cp::kDParkLot:
      case cp::kDMayorPark: ctx.kind = kLotsCtx; keys[0] = "lots"; break;
      case cp::kDMarkerPlace: ctx.kind = kMarkerPlaceCtx; keys[0] = "marker"; break;
      case cp::kDMarkerMoveDst: ctx.kind = kMarkerMoveCtx; keys[0] = "marker"; keys[1] = "optional"; break;
      case cp::kDElectionTie: ctx.kind = kElectionTieCtx; keys[0] = "office"; keys[1] = "tied"; break;
      case cp::kDMediaTie: ctx.kind = kMediaTieCtx; keys[0] = "tied"; break;
      case cp::kDPickBuilding: ctx.kind = kPickCtx; keys[0] = "purpose"; keys[1] = "lots"; break;
      case cp::kDBlightChoice: ctx.kind = kBlightCtx; keys[0] = "building"; keys[1] = "affordable"; break;
      case cp::kDAuction: ctx.kind = kAuctionCtx; keys[0] = "affordable"; keys[1] = "price"; break;
      case cp::kDDisasterChoice: ctx.kind = kDisasterCtx; keys[0] = "event"; keys[1] = "affordable"; break;
      default: break;
    }
    const size_t wanted = (keys[0] != nullptr) + (keys[1] != nullptr);
    if (c.members.size() != wanted) throw std::invalid_argument("state: ctx has other keys than its decision reads");
    for (const char* key : keys) {
      if (key == nullptr) continue;
      const json::Value& v = c.at(key);
      const std::string k = key;
      if (k == "voc") ctx.voc = static_cast<int>(v.as_int("ctx.voc", 0, cp::kVocations - 1));
      else if (k == "amount") ctx.amount = static_cast<int>(v.as_int("ctx.amount", 0, 1000));
      else if (k == "price") ctx.price = static_cast<int>(v.as_int("ctx.price", 0, 1000));
      else if (k == "office") ctx.office = static_cast<int>(v.as_int("ctx.office", 0, cp::kOffices - 1));
      else if (k == "building") {
        ctx.building = checked_index(v, "ctx.building", buildings.size());
        if (!buildings[ctx.building].alive) throw std::invalid_argument("state: ctx.building is demolished");
      }
      else if (k == "optional") ctx.optional = v.as_bool("ctx.optional");
      else if (k == "affordable") ctx.affordable = v.as_bool("ctx.affordable");
      else if (k == "event") {
        ctx.event = static_cast<int>(v.as_int("ctx.event", 0, cp::kNumContractEvents - 1));
        if (cp::kEventKind[ctx.event] != cp::kDisaster) throw std::invalid_argument("state: ctx.event is no disaster");
      } else if (k == "marker") {
        ctx.marker = static_cast<int>(v.as_int("ctx.marker", cp::kMarkers[0], cp::kMaxMarker));
      } else if (k == "lots") {
        card_list(v, "ctx.lots", ctx.lots, 0, cp::kLots - 1);
        if (ctx.lots.empty()) throw std::invalid_argument("state: ctx.lots: no lot to choose from");
        for (int lot : ctx.lots)  // a park goes on an empty lot; a picked building stands on its lot
          if ((lot_building[lot] >= 0) != (ctx.kind == kPickCtx))
            throw std::invalid_argument("state: ctx.lots: a lot is not what the decision picks");
      } else if (k == "tied") {
        card_list(v, "ctx.tied", ctx.tied, 0, n - 1);
      } else if (k == "purpose") {
        const std::string& purpose = v.as_string("ctx.purpose");
        int found = -1;
        for (int i = 0; i < 4; ++i)
          if (purpose == kPurposeNames[i]) found = i;
        if (found < 0) throw std::invalid_argument("state: ctx.purpose is not a purpose");
        ctx.purpose = static_cast<uint8_t>(found);
      }
    }
  }
  // tasks
  {
    const auto& rows = s.at("tasks").as_array("tasks", kMaxTasks - 64);
    tasks.clear();
    for (const auto& row : rows) {
      const auto& items = row.as_array("tasks[]", 4);
      if (items.empty()) throw std::invalid_argument("state: tasks[] is not a task [name, *fields]");
      const std::string& name = items[0].as_string("tasks[].name");
      int kind = -1;
      for (int k = 0; k < kTaskKinds; ++k)
        if (name == kTaskNames[k]) kind = k;
      if (kind < 0 || static_cast<int>(items.size()) != 1 + kTaskFields[kind])
        throw std::invalid_argument("state: tasks[] is not a task [name, *fields]");
      int f[3] = {0, 0, 0};
      auto field = [&items, &f](int k, const char* what, int64_t low, int64_t high) {
        f[k] = static_cast<int>(items[static_cast<size_t>(k + 1)].as_int(what, low, high));
      };
      const int nb = buildings.size() - 1;
      switch (kind) {
        case kVocation:
        case kVocPayout: field(0, "tasks[].voc", 0, cp::kVocations - 1); field(1, "tasks[].value", 0, 1000); break;
        case kVocPayOne:
          field(0, "tasks[].seat", 0, n - 1);
          field(1, "tasks[].voc", 0, cp::kVocations - 1);
          field(2, "tasks[].value", 0, 1000);
          break;
        case kEffectTask:
          field(0, "tasks[].card", 0, cp::kNumContracts - 1);
          field(1, "tasks[].effect", 0, cp::kEffectCount[f[0]] - 1);
          field(2, "tasks[].building", 0, nb);
          break;
        case kTributeOne: field(0, "tasks[].seat", 0, n - 1); field(1, "tasks[].amount", 0, 1000); break;
        case kParkNear: field(0, "tasks[].building", 0, nb); field(1, "tasks[].seat", 0, n - 1); break;
        case kParkAnywhere:
        case kMoveMarker: field(0, "tasks[].seat", 0, n - 1); break;
        case kMarkerTask:
          field(0, "tasks[].number", cp::kMarkers[0], cp::kMaxMarker);
          field(1, "tasks[].seat", 0, n - 1);
          break;
        case kElectionTask: field(0, "tasks[].office", 0, cp::kOffices - 1); break;
        case kElected: field(0, "tasks[].office", 0, cp::kOffices - 1); field(1, "tasks[].seat", 0, n - 1); break;
        case kPayout: {
          const std::string& icon = items[1].as_string("tasks[].icon");
          if (icon != "w" && icon != "p") throw std::invalid_argument("state: tasks[].icon is not 'w' or 'p'");
          f[0] = icon == "w" ? 0 : 1;
          field(1, "tasks[].number", 1, cp::kMaxMarker);
          break;
        }
        case kRevealContract: field(0, "tasks[].deck", 0, 2); break;
        case kPlanningEventTask: field(0, "tasks[].card", cp::kFirstPlanningEvent, cp::kPlanningCards - 1); break;
        case kBlight:
        case kHeadlines:
        case kRelocate:
        case kDemolish:
          field(0, "tasks[].building", 0, nb);
          if (!buildings[f[0]].alive) throw std::invalid_argument("state: tasks[].building is demolished");
          break;
        case kAuctionOne: field(0, "tasks[].seat", 0, n - 1); field(1, "tasks[].price", 0, 1000); break;
        case kContractEventTask: field(0, "tasks[].event", 0, cp::kNumContractEvents - 1); break;
        case kDisasterOne:
          field(0, "tasks[].seat", 0, n - 1);
          field(1, "tasks[].event", 0, cp::kNumContractEvents - 1);
          if (cp::kEventKind[f[1]] != cp::kDisaster) throw std::invalid_argument("state: tasks[].event is no disaster");
          break;
        default: break;
      }
      tasks.push(make_task(static_cast<TaskKind>(kind), f[0], f[1], f[2]));
    }
  }
  // between a turn's end and the next (phase NONE) the next turn is on the stack, else `run` would never end
  bool next_turn = false;
  for (const Task& t : tasks) next_turn = next_turn || t.kind == kNextTurn;
  if (phase == NONE && !next_turn && decision != GAME_OVER) throw std::invalid_argument("state: phase: no phase, and no next turn to come");
}

}  // namespace city_envs::native::urban_sprawl
