// Big City, the native engine: the C++ twin of city_envs/big_city/rules.py and view.py.
//
// The Python engine memoizes its geometry (touch maps, tram edges, placements) in dicts; here the same
// values are computed from the plain state when asked, so a copy is a plain memcpy. Only the grid and
// what the outskirts flood fill finds (per plot: on the outskirts, what lies across each side) are
// derived and kept, recomputed when a tile is laid or a state is read.
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

namespace city_envs::native::big_city {

namespace detail {

constexpr int kPad = 55;  // rules.PAD: the cell grid padded by one cell on every side
constexpr int kCells = kPad * kPad;
constexpr int kVertexRow = 54;  // rules.VERTEX_ROW
constexpr int kMaxKey = 2 * kVertexRow * kVertexRow;
constexpr int kNoContact = 1 << 20;
constexpr int kMaxPlayers = 5;
constexpr int kMaxHand = 6;
constexpr int kMaxPieces = cp::kNumPlots;
constexpr int kMaxPlacements = 2 * cp::kNumPlots + 8;  // straight lines of 2 or 3 plots: at most 2 per plot
constexpr int kMaxFacilityPlacements = 8 * cp::kNumPlots;
constexpr int kSideStep[4] = {-kPad, 1, kPad, -1};  // N, E, S, W in the padded grid

// rules.cell_index
constexpr int cell_index(int x, int y) { return (y + 1) * kPad + x + 1; }

// A set of plots (rules.py's sets of plot indices).
struct PlotSet {
  uint64_t bits[2] = {0, 0};
  void add(int p) { bits[p >> 6] |= uint64_t{1} << (p & 63); }
  void remove(int p) { bits[p >> 6] &= ~(uint64_t{1} << (p & 63)); }
  bool has(int p) const { return p >= 0 && (bits[p >> 6] >> (p & 63) & 1U) != 0; }
  // The plots in the set, ascending, into `out`; returns their count.
  int list(int* out) const {
    int count = 0;
    for (int w = 0; w < 2; ++w)
      for (uint64_t rest = bits[w]; rest != 0; rest &= rest - 1) out[count++] = 64 * w + __builtin_ctzll(rest);
    return count;
  }
};

// A placement: up to 4 plots, sorted (a tuple of plot indices). Only the first `size` plots are set: the
// buffers of placements (`Placements`) are left unwritten until used.
struct Placement {
  int8_t size;
  int8_t plots[4];
  bool has(int p) const {
    for (int k = 0; k < size; ++k)
      if (plots[k] == p) return true;
    return false;
  }
  bool operator<(const Placement& other) const {
    for (int k = 0; k < size && k < other.size; ++k)
      if (plots[k] != other.plots[k]) return plots[k] < other.plots[k];
    return size < other.size;
  }
  bool operator==(const Placement& other) const {
    if (size != other.size) return false;
    for (int k = 0; k < size; ++k)
      if (plots[k] != other.plots[k]) return false;
    return true;
  }
};

inline Placement sorted_placement(const int* plots, int size) {
  Placement out;
  out.size = static_cast<int8_t>(size);
  for (int k = 0; k < size; ++k) {  // insertion sort: at most 4 plots
    int m = k;
    for (; m > 0 && out.plots[m - 1] > plots[k]; --m) out.plots[m] = out.plots[m - 1];
    out.plots[m] = static_cast<int8_t>(plots[k]);
  }
  return out;
}

// A list of placements in a fixed buffer.
template <int N>
struct Placements {
  int count = 0;
  Placement items[N];
  void push(const Placement& p) {
    if (count < N) items[count++] = p;
  }
};

// rules.key_vertices
inline void key_vertices(int key, int& a, int& b) {
  const int v = key >> 1;
  a = v;
  b = key % 2 == 0 ? v + 1 : v + kVertexRow;
}

}  // namespace detail

struct Piece {
  int8_t kind = 0;
  int8_t owner = 0;
  int8_t size = 0;
  int8_t plots[4] = {0, 0, 0, 0};
  int32_t points = 0;
};

struct Game {
  static constexpr const char* kName = "big_city";
  static constexpr int kNumActions = cp::kNumActions;
  static constexpr int kObservationSize = cp::kObservationSize;
  static constexpr int kMinPlayers = 2;
  static constexpr int kMaxPlayers = 5;
  static constexpr int kGameOver = -1;

  // ----- the plain state (rules.State, in its field order)
  int n = 0;
  int hand_limit = 0;
  int8_t tile_rotation[cp::kNumTiles];  // -1: the tile is not placed (None)
  int8_t tile_ax[cp::kNumTiles];
  int8_t tile_ay[cp::kNumTiles];
  int8_t px[cp::kNumPlots];
  int8_t py[cp::kNumPlots];
  int8_t occupant[cp::kNumPlots];
  int num_pieces = 0;
  Piece pieces[detail::kMaxPieces];
  int num_trams = 0;
  int16_t trams[cp::kNumTrams];
  int8_t supply[cp::kNumKinds];
  int8_t hand_size[detail::kMaxPlayers];
  int8_t hands[detail::kMaxPlayers][detail::kMaxHand];
  int8_t pile_size[8];
  int8_t piles[8][cp::kMaxPile];       // bottom first
  int8_t pile_known[8][cp::kMaxPile];  // the seat that returned the card, or -1
  bool out[cp::kNumCards];
  int32_t score[detail::kMaxPlayers];
  int num_setup_tiles = 0;
  int8_t setup_tiles[6];
  int num_setup_order = 0;
  int8_t setup_order[6];
  int active = 0;
  int decision = cp::kSetupTile;
  int turns = 0;
  int passes = 0;
  int8_t drawn[8];
  bool may_draw = false;
  bool dead_discarded = false;
  int main_action = -1;
  int kind = -1;
  int card = -1;
  int tile = 0;
  int rotation = -1;
  int edge = -1;
  int num_selected = 0;
  int8_t selected[4];
  int num_exchange = 0;
  int8_t exchange[detail::kMaxHand];
  int trams_this_action = 0;
  bool first_tram = false;
  bool last_pass[detail::kMaxPlayers];
  int num_winners = 0;
  int8_t winners_[detail::kMaxPlayers];
  bool truncated = false;

  // ----- derived (rules.rebuild_derived): the grid, the outskirts, what lies across each side
  int8_t grid[detail::kCells];
  bool outskirts[cp::kNumPlots];
  int8_t across[cp::kNumPlots][4];  // 0 nothing, 1 a plot, 2 exterior, 3 a hole

  // ===== setup (rules.new_state) ==================================================================
  void setup(int num_players, const json::Value& options, Random& chance) {
    if (options.kind != json::Value::Kind::kObject || !options.members.empty())
      throw std::invalid_argument("big_city takes no options");
    clear(num_players);
    for (int i = 1; i <= 8; ++i) {
      const int size = cp::kPileSize[i];
      const std::vector<int64_t> order = chance.permutation(size);
      pile_size[i - 1] = static_cast<int8_t>(size);
      for (int j = 0; j < size; ++j) {
        piles[i - 1][j] = static_cast<int8_t>(cp::kPileCards[i * cp::kMaxPile + order[static_cast<size_t>(j)]]);
        pile_known[i - 1][j] = -1;
      }
    }
    for (int i = 0; i < hand_limit; ++i)
      for (int seat = 0; seat < n; ++seat) hands[seat][hand_size[seat]++] = pile_pop(i);
    num_setup_tiles = cp::kInitialCount[n];
    num_setup_order = cp::kInitialCount[n];
    for (int k = 0; k < num_setup_tiles; ++k) {
      setup_tiles[k] = static_cast<int8_t>(cp::kInitialTiles[n * 6 + k]);
      setup_order[k] = static_cast<int8_t>(cp::kInitialOrder[n * 6 + k]);
    }
    put_tile(cp::kStartTile, 0, cp::kStartAx, cp::kStartAy);
    rebuild_derived();
    active = setup_order[0];
  }

  // ===== the contract's small queries ==============================================================
  int current_player() const { return active; }
  bool is_over() const { return decision == kGameOver; }
  bool is_truncated() const { return truncated; }
  const char* decision_name() const { return decision >= 0 ? cp::kDecisionNames[decision] : "GAME_OVER"; }

  void scores(double* out_) const {
    for (int seat = 0; seat < n; ++seat) out_[seat] = static_cast<double>(score[seat]);
  }

  // BigCity.winners: the state's winners at the end, else rules.ranking_winners
  void winners(std::vector<int>& out_) const {
    out_.clear();
    if (is_over()) {
      for (int k = 0; k < num_winners; ++k) out_.push_back(winners_[k]);
      return;
    }
    ranking_winners(out_);
  }

  // rules.standing_keys: the score alone
  void standings(std::vector<double>& out_, int& width) const {
    width = 1;
    out_.assign(static_cast<size_t>(n), 0.0);
    for (int seat = 0; seat < n; ++seat) out_[static_cast<size_t>(seat)] = static_cast<double>(score[seat]);
  }

  // ===== legal actions (rules.legal_actions) =====================================================
  void legal_actions(uint8_t* mask) const {
    std::memset(mask, 0, kNumActions);
    switch (decision) {
      case cp::kSetupTile:
        for (int k = 0; k < num_setup_tiles; ++k) mask[cp::kTile + setup_tiles[k]] = 1;
        break;
      case cp::kTileRotation:  // rules._legal_rotation
        for (int r = 0; r < 4; ++r)
          mask[cp::kRotation + r] = has_anchor(layout_width(tile, r), layout_height(tile, r)) ? 1 : 0;
        break;
      case cp::kTileEdge:
        legal_tile_edge(mask);
        break;
      case cp::kTileCell:
        for (int j = 0; j < 9; ++j) mask[cp::kLocalCell + j] = tile_cell_ok(j) ? 1 : 0;
        break;
      case cp::kDeadDiscard:
        for (int k = 0; k < hand_size[active]; ++k)
          if (is_dead(hands[active][k])) mask[cp::kCard + hands[active][k]] = 1;
        mask[cp::kDone] = 1;
        break;
      case cp::kMain:
        legal_main(mask);
        break;
      case cp::kBuildSelect:
      case cp::kPieceSelect:
        legal_select(mask);
        break;
      case cp::kTramEdge:
      case cp::kTramEdgeOpt:
        tram_edges(mask);
        if (decision == cp::kTramEdgeOpt) mask[cp::kDone] = 1;
        break;
      case cp::kExchangeSelect:  // rules._legal_exchange
        for (int k = 0; k < hand_size[active]; ++k) mask[cp::kCard + hands[active][k]] = 1;
        mask[cp::kDone] = (num_exchange > 0 || (hand_size[active] < hand_limit && any_pile())) ? 1 : 0;
        break;
      case cp::kDraw:
        for (int i = 0; i < 8; ++i)
          if (may_draw_pile(i)) mask[cp::kPile + i + 1] = 1;
        break;
      default:
        break;
    }
  }

  // ===== transitions (rules.apply_action) ===========================================================
  void apply(int action, Random& /*chance*/) {
    switch (decision) {
      case cp::kSetupTile:  // rules._apply_setup_tile
        tile = action - cp::kTile;
        decision = cp::kTileRotation;
        break;
      case cp::kTileRotation:
        rotation = action - cp::kRotation;
        decision = cp::kTileEdge;
        break;
      case cp::kTileEdge:
        edge = action - cp::kEdge;
        decision = cp::kTileCell;
        break;
      case cp::kTileCell:
        apply_tile_cell(action);
        break;
      case cp::kDeadDiscard:
        apply_dead_discard(action);
        break;
      case cp::kMain:
        apply_main(action);
        break;
      case cp::kBuildSelect:
      case cp::kPieceSelect:
        apply_select(action);
        break;
      case cp::kTramEdge:
      case cp::kTramEdgeOpt:
        apply_tram(action);
        break;
      case cp::kExchangeSelect:
        apply_exchange(action);
        break;
      case cp::kDraw:
        apply_draw(action);
        break;
      default:
        break;
    }
  }

  // ===== the observation (view.observation) ========================================================
  void observation(int p, float* obs) const {
    std::memset(obs, 0, sizeof(float) * kObservationSize);
    board_block(p, obs);
    for (int c = 0; c < cp::kNumCards; ++c)
      if (out[c]) obs[card_cell(c, cp::kPlotsOut, cp::kSpecialPlayed)] = 1.0F;
    for (int k = 0; k < hand_size[p]; ++k) obs[card_cell(hands[p][k], cp::kPlotsInMyHand, cp::kSpecialInMyHand)] = 1.0F;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < pile_size[i]; ++j)
        if (pile_known[i][j] == p) obs[card_cell(piles[i][j], cp::kPlotsReturned, cp::kSpecialReturned)] = 1.0F;
    for (int k = 0; k < num_selected; ++k)
      obs[cp::kPlotsStart + selected[k] * cp::kPlotsWidth + cp::kPlotsSelected] = 1.0F;
    if (active == p)
      for (int k = 0; k < num_exchange; ++k)
        obs[card_cell(exchange[k], cp::kPlotsExchanging, cp::kSpecialExchanging)] = 1.0F;
    // the players table, rows by relative seat
    for (int o = 0; o < n; ++o) {
      const int seat = (p + o) % n;
      float* row = obs + cp::kPlayersStart + o * cp::kPlayersWidth;
      double per_pile[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < hand_size[seat]; ++k) per_pile[cp::kCardPile[hands[seat][k]] - 1] += 1.0 / 3.0;
      const bool is_active = seat == active;
      row[cp::kPlayersPresent] = 1.0F;
      row[cp::kPlayersScore] = static_cast<float>(score[seat] / 100.0);
      for (int i = 0; i < 8; ++i) row[cp::kPlayersCards + i] = static_cast<float>(per_pile[i]);
      row[cp::kPlayersHandSize] = static_cast<float>(hand_size[seat] / 6.0);
      row[cp::kPlayersPassed] = last_pass[seat] ? 1.0F : 0.0F;
      row[cp::kPlayersActive] = is_active ? 1.0F : 0.0F;
      row[cp::kPlayersSetAside] = static_cast<float>((is_active ? num_exchange : 0) / 6.0);
    }
    // the global block
    float* g = obs + cp::kGlobalStart;
    for (int i = 0; i < 8; ++i) {
      g[cp::kGlobalPileSizes + i] = static_cast<float>(pile_size[i] / 9.0);
      g[cp::kGlobalDrawn + i] = static_cast<float>(drawn[i] * 0.5);
    }
    for (int k = 0; k < cp::kNumKinds; ++k)
      g[cp::kGlobalSupply + k] = static_cast<float>(static_cast<double>(supply[k]) / cp::kKindCount[k]);
    g[cp::kGlobalTramsLeft] = static_cast<float>(static_cast<double>(trams_left()) / cp::kNumTrams);
    for (int t = 0; t < cp::kNumTiles; ++t) g[cp::kGlobalTilesPlaced + t] = tile_rotation[t] >= 0 ? 1.0F : 0.0F;
    for (int k = 0; k < num_setup_tiles; ++k) g[cp::kGlobalSetupTiles + setup_tiles[k] - 1] = 1.0F;
    g[cp::kGlobalCityHallBuilt] = city_hall_built() ? 1.0F : 0.0F;
    g[cp::kGlobalPasses] = static_cast<float>(static_cast<double>(passes) / n);
    g[cp::kGlobalPlayerCount + n - 2] = 1.0F;
    if (decision >= 0) g[cp::kGlobalDecision + decision] = 1.0F;
    if (kind >= 0) g[kind < cp::kNumKinds ? cp::kGlobalKind + kind : cp::kGlobalFacility + kind - cp::kPark2] = 1.0F;
    if (tile != 0) g[cp::kGlobalTile + tile - 1] = 1.0F;
    if (rotation >= 0) g[cp::kGlobalRotation + rotation] = 1.0F;
    g[cp::kGlobalEdge] = static_cast<float>((edge + 1) / 272.0);
    g[cp::kGlobalTramsThisAction] = static_cast<float>(trams_this_action / 2.0);
    g[cp::kGlobalFirstTram] = first_tram ? 1.0F : 0.0F;
    g[cp::kGlobalMayDraw] = may_draw ? 1.0F : 0.0F;
    g[cp::kGlobalDeadDiscarded] = dead_discarded ? 1.0F : 0.0F;
    g[cp::kGlobalTurns] = static_cast<float>(static_cast<double>(turns) / cp::kMaxTurns);
  }

  // ===== the heuristic agent (agents/big_city_heuristic.py), defined in heuristic.hpp ================
  int heuristic(int player, const int* legal, int count, Random& rng) const;

  // ===== determinization (view.determinize) ========================================================
  void resample_hidden(int p, Random& rng) {
    const int q = active;
    detail::PlotSet fixed;  // the plots the active seat has selected in a BUILD_SELECT (public)
    if (q != p && decision == cp::kBuildSelect)
      for (int k = 0; k < num_selected; ++k) fixed.add(selected[k]);
    struct Slot {
      int8_t* place;
      int pile;
      bool in_hand_q;
    };
    Slot slots[detail::kMaxPlayers * detail::kMaxHand + detail::kMaxHand + cp::kNumCards];
    int num_slots = 0;
    for (int seat = 0; seat < n; ++seat) {
      if (seat == p) continue;
      for (int j = 0; j < hand_size[seat]; ++j) {
        const int c = hands[seat][j];
        if (!(seat == q && fixed.has(c))) slots[num_slots++] = {&hands[seat][j], cp::kCardPile[c] - 1, seat == q};
      }
    }
    if (q != p)
      for (int j = 0; j < num_exchange; ++j) slots[num_slots++] = {&exchange[j], cp::kCardPile[exchange[j]] - 1, false};
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < pile_size[i]; ++j)
        if (pile_known[i][j] != p) slots[num_slots++] = {&piles[i][j], i, false};
    int8_t pools[8][cp::kNumCards];
    int pool_size[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < num_slots; ++k) pools[slots[k].pile][pool_size[slots[k].pile]++] = *slots[k].place;
    int forced[4];
    int num_forced = 0;
    if (q >= 0 && q != p) {
      int hand_slots[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < hand_size[q]; ++k)
        if (!fixed.has(hands[q][k])) ++hand_slots[cp::kCardPile[hands[q][k]] - 1];
      detail::Placements<detail::kMaxPlacements> options;
      required_options(hand_slots, pools, pool_size, options);
      if (options.count > 0) {
        const detail::Placement& chosen = options.items[rng.integers(options.count)];
        num_forced = chosen.size;
        for (int k = 0; k < chosen.size; ++k) forced[k] = chosen.plots[k];
      }
    }
    for (int k = 0; k < num_forced; ++k) {  // pools[i].remove(c)
      const int i = cp::kCardPile[forced[k]] - 1;
      for (int j = 0; j < pool_size[i]; ++j)
        if (pools[i][j] == forced[k]) {
          for (int m = j; m + 1 < pool_size[i]; ++m) pools[i][m] = pools[i][m + 1];
          --pool_size[i];
          break;
        }
    }
    for (int i = 0; i < 8; ++i) {
      const std::vector<int64_t> order = rng.permutation(pool_size[i]);
      int8_t shuffled[cp::kNumCards];
      for (int j = 0; j < pool_size[i]; ++j) shuffled[j] = pools[i][order[static_cast<size_t>(j)]];
      std::memcpy(pools[i], shuffled, static_cast<size_t>(pool_size[i]));
    }
    const bool forcing = num_forced > 0;
    for (int k = 0; k < num_slots; ++k) {
      const int i = slots[k].pile;
      if (forcing && slots[k].in_hand_q) {
        int match = -1;
        for (int m = 0; m < num_forced; ++m)
          if (cp::kCardPile[forced[m]] - 1 == i) {
            match = m;
            break;
          }
        if (match >= 0) {
          *slots[k].place = static_cast<int8_t>(forced[match]);
          for (int m = match; m + 1 < num_forced; ++m) forced[m] = forced[m + 1];
          --num_forced;
          continue;
        }
      }
      *slots[k].place = pools[i][--pool_size[i]];
    }
  }

  // ===== JSON (BigCity._state_to_dict / _state_from_dict) ===========================================
  void write_json(json::Writer& w) const {
    w.begin_object();
    w.key("n").value(n);
    w.key("hand_limit").value(hand_limit);
    w.key("tiles").begin_array();
    for (int t = 0; t < cp::kNumTiles; ++t) {
      if (tile_rotation[t] < 0) {
        w.null();
      } else {
        w.begin_array().value(static_cast<int>(tile_rotation[t])).value(static_cast<int>(tile_ax[t]));
        w.value(static_cast<int>(tile_ay[t])).end_array();
      }
    }
    w.end_array();
    write_ints(w, "px", px, cp::kNumPlots);
    write_ints(w, "py", py, cp::kNumPlots);
    write_ints(w, "occupant", occupant, cp::kNumPlots);
    w.key("pieces").begin_array();
    for (int k = 0; k < num_pieces; ++k) {
      const Piece& piece = pieces[k];
      w.begin_array().value(static_cast<int>(piece.kind)).value(static_cast<int>(piece.owner));
      w.begin_array();
      for (int m = 0; m < piece.size; ++m) w.value(static_cast<int>(piece.plots[m]));
      w.end_array().value(static_cast<int>(piece.points)).end_array();
    }
    w.end_array();
    write_ints(w, "trams", trams, num_trams);
    write_ints(w, "supply", supply, cp::kNumKinds);
    w.key("hands").begin_array();
    for (int seat = 0; seat < n; ++seat) w.array(std::vector<int>(hands[seat], hands[seat] + hand_size[seat]));
    w.end_array();
    w.key("piles").begin_array();
    for (int i = 0; i < 8; ++i) w.array(std::vector<int>(piles[i], piles[i] + pile_size[i]));
    w.end_array();
    w.key("pile_known").begin_array();
    for (int i = 0; i < 8; ++i) w.array(std::vector<int>(pile_known[i], pile_known[i] + pile_size[i]));
    w.end_array();
    write_bools(w, "out", out, cp::kNumCards);
    write_ints(w, "scores", score, n);
    write_ints(w, "setup_tiles", setup_tiles, num_setup_tiles);
    write_ints(w, "setup_order", setup_order, num_setup_order);
    w.key("active").value(active);
    w.key("decision").value(decision);
    w.key("turns").value(turns);
    w.key("passes").value(passes);
    write_ints(w, "drawn", drawn, 8);
    w.key("may_draw").value(may_draw);
    w.key("dead_discarded").value(dead_discarded);
    w.key("main_action").value(main_action);
    w.key("kind").value(kind);
    w.key("card").value(card);
    w.key("tile").value(tile);
    w.key("rotation").value(rotation);
    w.key("edge").value(edge);
    write_ints(w, "selected", selected, num_selected);
    write_ints(w, "exchange", exchange, num_exchange);
    w.key("trams_this_action").value(trams_this_action);
    w.key("first_tram").value(first_tram);
    write_bools(w, "last_pass", last_pass, n);
    write_ints(w, "winners", winners_, num_winners);
    w.key("truncated").value(truncated);
    w.end_object();
  }

  void read_json(int num_players, const json::Value& options, const json::Value& s) {
    if (options.kind != json::Value::Kind::kObject || !options.members.empty())
      throw std::invalid_argument("big_city takes no options");
    if (num_players < kMinPlayers || num_players > kMaxPlayers) throw std::invalid_argument("n: not a player count");
    clear(num_players);
    if (s.kind != json::Value::Kind::kObject || s.members.size() != 36)
      throw std::invalid_argument("state: an object of the 36 fields of a Big City state was expected");
    if (s.at("n").as_int("n", num_players, num_players) != num_players) throw std::invalid_argument("n");
    s.at("hand_limit").as_int("hand_limit", hand_limit, hand_limit);
    // tiles, px, py
    const auto& tiles = s.at("tiles").as_array("tiles", cp::kNumTiles);
    if (tiles.size() != cp::kNumTiles) throw std::invalid_argument("state: tiles must list the 8 tiles");
    for (int t = 0; t < cp::kNumTiles; ++t) {
      tile_rotation[t] = -1;
      tile_ax[t] = tile_ay[t] = 0;
      const json::Value& row = tiles[static_cast<size_t>(t)];
      if (row.is_null()) continue;
      const auto& items = row.as_array("tiles[]", 3);
      if (items.size() != 3) throw std::invalid_argument("state: tiles[] must be [rotation, ax, ay]");
      tile_rotation[t] = static_cast<int8_t>(items[0].as_int("tiles[].rotation", 0, 3));
      tile_ax[t] = static_cast<int8_t>(items[1].as_int("tiles[].ax", -9, cp::kGrid));
      tile_ay[t] = static_cast<int8_t>(items[2].as_int("tiles[].ay", -9, cp::kGrid));
    }
    if (tile_rotation[0] != 0 || tile_ax[0] != cp::kStartAx || tile_ay[0] != cp::kStartAy)
      throw std::invalid_argument("state: tiles: the start tile is not at its place");
    read_ints(s.at("px"), "px", px, cp::kNumPlots, cp::kNumPlots, -1, cp::kGrid - 1);
    read_ints(s.at("py"), "py", py, cp::kNumPlots, cp::kNumPlots, -1, cp::kGrid - 1);
    for (int t = 1; t <= cp::kNumTiles; ++t)
      for (int k = 0; k < cp::kTilePlotCount[t]; ++k) {
        const int p = cp::kOffset[t] + k;
        const int r = tile_rotation[t - 1];
        const bool ok = r < 0 ? (px[p] == -1 && py[p] == -1)
                              : (px[p] == tile_ax[t - 1] + layout_col(t, r, k) &&
                                 py[p] == tile_ay[t - 1] + layout_row(t, r, k));
        if (!ok) throw std::invalid_argument("state: px: a plot is not where its tile puts it");
      }
    // pieces and occupants
    read_ints(s.at("occupant"), "occupant", occupant, cp::kNumPlots, cp::kNumPlots, -1, detail::kMaxPieces - 1);
    const auto& pieces_json = s.at("pieces").as_array("pieces", detail::kMaxPieces);
    num_pieces = static_cast<int>(pieces_json.size());
    for (int k = 0; k < num_pieces; ++k) {
      const auto& row = pieces_json[static_cast<size_t>(k)].as_array("pieces[]", 4);
      if (row.size() != 4) throw std::invalid_argument("state: pieces[] must be [kind, owner, plots, points]");
      Piece& piece = pieces[k];
      piece.kind = static_cast<int8_t>(row[0].as_int("pieces[].kind", 0, cp::kFactory4));
      piece.owner = static_cast<int8_t>(row[1].as_int("pieces[].owner", 0, n - 1));
      const auto& plots = row[2].as_array("pieces[].plots", 4);
      if (static_cast<int>(plots.size()) != piece_size(piece.kind))
        throw std::invalid_argument("state: pieces[].plots: not the piece's size");
      piece.size = static_cast<int8_t>(plots.size());
      for (int m = 0; m < piece.size; ++m) {
        const json::Value& plot = plots[static_cast<size_t>(m)];
        piece.plots[m] = static_cast<int8_t>(checked_index(plot, "pieces[].plots", cp::kNumPlots));
        if (px[piece.plots[m]] < 0 || occupant[piece.plots[m]] != k)
          throw std::invalid_argument("state: occupant: disagrees with pieces");
      }
      piece.points = static_cast<int32_t>(row[3].as_int("pieces[].points", 0, 1000000));
    }
    for (int p = 0; p < cp::kNumPlots; ++p)
      if (occupant[p] >= num_pieces || (occupant[p] >= 0 && !piece_has(pieces[occupant[p]], p)))
        throw std::invalid_argument("state: occupant: not a piece standing on the plot");
    // trams
    const auto& trams_json = s.at("trams").as_array("trams", cp::kNumTrams);
    num_trams = static_cast<int>(trams_json.size());
    for (int k = 0; k < num_trams; ++k)
      trams[k] = static_cast<int16_t>(trams_json[static_cast<size_t>(k)].as_int("trams", 0, detail::kMaxKey));
    read_ints(s.at("supply"), "supply", supply, cp::kNumKinds, cp::kNumKinds, 0, 8);
    // cards
    const auto& hands_json = s.at("hands").as_array("hands", static_cast<size_t>(n));
    if (static_cast<int>(hands_json.size()) != n)
      throw std::invalid_argument("state: hands must have one hand per seat");
    int seen[cp::kNumCards] = {};
    for (int seat = 0; seat < n; ++seat) {
      int size = 0;
      read_ints(hands_json[static_cast<size_t>(seat)], "hands[]", hands[seat], 0, hand_limit, 0, cp::kNumCards - 1,
                &size);
      hand_size[seat] = static_cast<int8_t>(size);
      for (int k = 0; k < size; ++k) ++seen[hands[seat][k]];
    }
    const auto& piles_json = s.at("piles").as_array("piles", 8);
    const auto& known_json = s.at("pile_known").as_array("pile_known", 8);
    if (piles_json.size() != 8 || known_json.size() != 8) throw std::invalid_argument("state: piles must list 8 piles");
    for (int i = 0; i < 8; ++i) {
      int size = 0, known = 0;
      read_ints(piles_json[static_cast<size_t>(i)], "piles[]", piles[i], 0, cp::kMaxPile, 0, cp::kNumCards - 1, &size);
      read_ints(known_json[static_cast<size_t>(i)], "pile_known[]", pile_known[i], 0, cp::kMaxPile, -1, n - 1, &known);
      if (size != known) throw std::invalid_argument("state: pile_known[]: not the length of its pile");
      pile_size[i] = static_cast<int8_t>(size);
      for (int j = 0; j < size; ++j) {
        if (cp::kCardPile[piles[i][j]] != i + 1)
          throw std::invalid_argument("state: piles[]: holds a card of another pile");
        ++seen[piles[i][j]];
      }
    }
    read_bools(s.at("out"), "out", out, cp::kNumCards);
    read_ints(s.at("exchange"), "exchange", exchange, 0, detail::kMaxHand, 0, cp::kNumCards - 1, &num_exchange);
    for (int k = 0; k < num_exchange; ++k) ++seen[exchange[k]];
    for (int c = 0; c < cp::kNumCards; ++c)
      if (seen[c] + (out[c] ? 1 : 0) != 1)
        throw std::invalid_argument("state: hands: a card is not in exactly one place");
    read_ints(s.at("scores"), "scores", score, n, n, 0, 1000000);
    read_ints(s.at("setup_tiles"), "setup_tiles", setup_tiles, 0, 6, 1, cp::kNumTiles, &num_setup_tiles);
    read_ints(s.at("setup_order"), "setup_order", setup_order, 0, 6, 0, n - 1, &num_setup_order);
    decision = static_cast<int>(s.at("decision").as_int("decision", kGameOver, cp::kNumDecisions - 1));
    const bool over = decision == kGameOver;
    active = static_cast<int>(s.at("active").as_int("active", over ? -1 : 0, over ? -1 : n - 1));
    turns = static_cast<int>(s.at("turns").as_int("turns", 0, cp::kMaxTurns));
    passes = static_cast<int>(s.at("passes").as_int("passes", 0, n));
    read_ints(s.at("drawn"), "drawn", drawn, 8, 8, 0, cp::kMaxDrawsPerPile);
    may_draw = s.at("may_draw").as_bool("may_draw");
    dead_discarded = s.at("dead_discarded").as_bool("dead_discarded");
    main_action = static_cast<int>(s.at("main_action").as_int("main_action", -1, cp::kDone));
    kind = static_cast<int>(s.at("kind").as_int("kind", -1, cp::kFactory4));
    card = static_cast<int>(s.at("card").as_int("card", -1, cp::kNumCards - 1));
    tile = static_cast<int>(s.at("tile").as_int("tile", 0, cp::kNumTiles));
    rotation = static_cast<int>(s.at("rotation").as_int("rotation", -1, 3));
    edge = static_cast<int>(s.at("edge").as_int("edge", -1, 4 * cp::kNumPlots - 1));
    read_ints(s.at("selected"), "selected", selected, 0, 3, 0, cp::kNumPlots - 1, &num_selected);
    trams_this_action = static_cast<int>(s.at("trams_this_action").as_int("trams_this_action", 0, 2));
    first_tram = s.at("first_tram").as_bool("first_tram");
    read_bools(s.at("last_pass"), "last_pass", last_pass, n);
    read_ints(s.at("winners"), "winners", winners_, 0, n, 0, n - 1, &num_winners);
    truncated = s.at("truncated").as_bool("truncated");
    // what the transitions index by, per pending decision
    if (decision >= 0 && hand_size[active] + num_exchange > hand_limit)
      throw std::invalid_argument("state: exchange: more cards than the hand held");
    if (num_exchange > 0 && decision != cp::kExchangeSelect)
      throw std::invalid_argument("state: exchange: cards set aside outside an exchange");
    if (num_selected > 0 && decision != cp::kBuildSelect && decision != cp::kPieceSelect)
      throw std::invalid_argument("state: selected: plots chosen outside a placement");
    if (decision == cp::kBuildSelect && (kind < 0 || kind >= cp::kNumKinds))
      throw std::invalid_argument("state: kind: not a building kind");
    if (decision == cp::kPieceSelect && kind < cp::kPark2) throw std::invalid_argument("state: kind: not a facility");
    if ((decision == cp::kBuildSelect || decision == cp::kPieceSelect) && num_selected >= piece_size(kind))
      throw std::invalid_argument("state: selected: more plots than the piece covers");
    if (decision >= cp::kTileRotation && decision <= cp::kTileCell) {
      if (tile < 1 || tile_rotation[tile - 1] >= 0) throw std::invalid_argument("state: tile: not a tile to place");
      if (decision >= cp::kTileEdge && rotation < 0) throw std::invalid_argument("state: rotation: none chosen");
      if (decision == cp::kTileCell && (edge < 0 || px[edge / 4] < 0))
        throw std::invalid_argument("state: edge: not a side of a placed plot");
    }
    if ((decision == cp::kTramEdge || decision == cp::kTramEdgeOpt) && num_trams >= cp::kNumTrams)
      throw std::invalid_argument("state: trams: none left to lay");
    if (num_setup_order > 0 && decision >= 0 && active != setup_order[0] && decision <= cp::kTileCell)
      throw std::invalid_argument("state: active: not the seat placing a tile");
    if (num_setup_tiles < num_setup_order) throw std::invalid_argument("state: setup_tiles: fewer than seats to place");
    rebuild_derived();
  }

  // ===== rules.py: geometry ========================================================================
  static int layout_width(int t, int r) { return cp::kLayoutWidth[t * 4 + r]; }
  static int layout_height(int t, int r) { return cp::kLayoutHeight[t * 4 + r]; }
  static int layout_col(int t, int r, int k) { return cp::kLayoutCol[(t * 4 + r) * 9 + k]; }
  static int layout_row(int t, int r, int k) { return cp::kLayoutRow[(t * 4 + r) * 9 + k]; }
  static int piece_size(int k) { return k < cp::kNumKinds ? cp::kKindSize[k] : cp::kFacilitySize[k - cp::kPark2]; }
  static bool piece_has(const Piece& piece, int p) {
    for (int m = 0; m < piece.size; ++m)
      if (piece.plots[m] == p) return true;
    return false;
  }

  // The plot on cell (x, y), -1 for none or off the padded grid.
  int plot_at(int x, int y) const {
    if (x < -1 || x > cp::kGrid || y < -1 || y > cp::kGrid) return -1;
    return grid[detail::cell_index(x, y)];
  }
  // rules.neighbour (p placed)
  int neighbour(int p, int side) const { return grid[detail::cell_index(px[p], py[p]) + detail::kSideStep[side]]; }
  // rules.plot_key / rules.side_key
  int plot_key(int p, int side) const {
    const int north = 2 * (detail::kVertexRow * py[p] + px[p]);
    switch (side) {
      case 0:
        return north;
      case 1:
        return north + 3;
      case 2:
        return north + 2 * detail::kVertexRow;
      default:
        return north + 1;
    }
  }
  bool has_tram(int key) const {
    for (int k = 0; k < num_trams; ++k)
      if (trams[k] == key) return true;
    return false;
  }
  // The plots on either side of a geometric key: `a` across its S or E side, `b` across its N or W side.
  void key_plots(int key, int& a, int& side_a, int& b, int& side_b) const {
    a = b = -1;
    side_a = side_b = 0;
    if (key < 0 || key >= detail::kMaxKey) return;
    const int v = key >> 1;
    const int x = v % detail::kVertexRow, y = v / detail::kVertexRow;
    if (key % 2 == 0) {
      a = plot_at(x, y - 1), side_a = 2;
      b = plot_at(x, y), side_b = 0;
    } else {
      a = plot_at(x - 1, y), side_a = 1;
      b = plot_at(x, y), side_b = 3;
    }
  }
  // rules.street_edges[key]: the canonical edge id of a street, -1 for a key beside no plot
  int street_edge(int key) const {
    int a, side_a, b, side_b;
    key_plots(key, a, side_a, b, side_b);
    if (a >= 0 && (b < 0 || a < b)) return 4 * a + side_a;
    if (b >= 0) return 4 * b + side_b;
    return -1;
  }
  // key in s.covered: an internal edge of a multi-plot piece
  bool covered(int key) const {
    int a, side_a, b, side_b;
    key_plots(key, a, side_a, b, side_b);
    return a >= 0 && b >= 0 && occupant[a] >= 0 && occupant[a] == occupant[b];
  }

  int trams_left() const { return cp::kNumTrams - num_trams; }
  bool city_hall_built() const { return occupant[cp::kCityHallPlot] >= 0; }
  // rules.is_dead
  bool is_dead(int c) const {
    if (c >= cp::kNumPlots) return false;
    const int piece = occupant[c];
    return piece >= 0 && pieces[piece].kind >= cp::kPark2;
  }
  bool has_dead_card(int seat) const {
    for (int k = 0; k < hand_size[seat]; ++k)
      if (is_dead(hands[seat][k])) return true;
    return false;
  }
  bool any_pile() const {
    for (int i = 0; i < 8; ++i)
      if (pile_size[i] > 0) return true;
    return false;
  }
  bool hand_has(int seat, int c) const {
    for (int k = 0; k < hand_size[seat]; ++k)
      if (hands[seat][k] == c) return true;
    return false;
  }

  // ===== rules.py: buildings =======================================================================
  // rules.hand_plots
  detail::PlotSet hand_plots(int seat) const {
    detail::PlotSet plots;
    for (int k = 0; k < hand_size[seat]; ++k) {
      const int c = hands[seat][k];
      if (c < cp::kNumPlots && px[c] >= 0 && occupant[c] < 0) plots.add(c);
    }
    return plots;
  }
  // rules.free_plots
  detail::PlotSet free_plots() const {
    detail::PlotSet plots;
    for (int p = 0; p < cp::kNumPlots; ++p)
      if (px[p] >= 0 && occupant[p] < 0) plots.add(p);
    return plots;
  }

  // rules.shape_placements: sorted straight lines of `size` plots from `plots`, no tram inside
  template <int N>
  void shape_placements(const detail::PlotSet& plots, int size, detail::Placements<N>& out_) const {
    out_.count = 0;
    int members[cp::kNumPlots];
    const int num_members = plots.list(members);
    for (int m = 0; m < num_members; ++m) {
      const int p = members[m];
      if (size == 1) {
        const int line[1] = {p};
        out_.push(detail::sorted_placement(line, 1));
        continue;
      }
      for (int side : {1, 2}) {
        const int q = neighbour(p, side);
        if (!plots.has(q) || has_tram(plot_key(p, side))) continue;
        if (size == 2) {
          const int line[2] = {p, q};
          out_.push(detail::sorted_placement(line, 2));
          continue;
        }
        const int r = neighbour(q, side);
        if (plots.has(r) && !has_tram(plot_key(q, side))) {
          const int line[3] = {p, q, r};
          out_.push(detail::sorted_placement(line, 3));
        }
      }
    }
    std::sort(out_.items, out_.items + out_.count);
  }

  // rules.neighbourhood_counts: R, B, S, park, factory (distinct adjacent pieces by class)
  void neighbourhood_counts(const detail::Placement& pl, int counts[6]) const {
    for (int k = 0; k < 6; ++k) counts[k] = 0;
    int found[16];
    int num_found = 0;
    for (int k = 0; k < pl.size; ++k)
      for (int side = 0; side < 4; ++side) {
        const int q = neighbour(pl.plots[k], side);
        if (q < 0 || occupant[q] < 0 || pl.has(q)) continue;
        const int piece = occupant[q];
        bool again = false;
        for (int m = 0; m < num_found; ++m) again = again || found[m] == piece;
        if (again) continue;
        found[num_found++] = piece;
        ++counts[cp::kNeighbourClass[pieces[piece].kind]];
      }
  }

  // rules.special_allowed
  bool special_allowed(int k, const detail::Placement& pl) const {
    if (cp::kRuleLastFreePlot[k]) {
      const int t = cp::kPlotTile[pl.plots[0]];
      for (int m = 0; m < cp::kTilePlotCount[t]; ++m) {
        const int q = cp::kOffset[t] + m;
        if (!pl.has(q) && occupant[q] < 0) return false;
      }
    }
    if (cp::kRuleMinRes[k] || cp::kRuleMinBus[k] || cp::kRuleMinSpecial[k]) {
      int counts[6];
      neighbourhood_counts(pl, counts);
      return counts[0] >= cp::kRuleMinRes[k] && counts[1] >= cp::kRuleMinBus[k] && counts[2] >= cp::kRuleMinSpecial[k];
    }
    return true;
  }

  // rules.building_points (placement_facts, points_from_facts); `tram_anyway`: as if a tram ran along it
  int building_points(int k, const detail::Placement& pl, bool tram_anyway = false) const {
    if (k == cp::kCityHall) return 0;
    int counts[6];
    neighbourhood_counts(pl, counts);
    const int res = counts[0], bus = counts[1], special = counts[2];
    const int park = counts[3] > 0 ? 1 : 0, factory = counts[4] > 0 ? 1 : 0;
    bool tram = false, hall = false, outer = false;
    for (int m = 0; m < pl.size; ++m) {
      const int p = pl.plots[m];
      for (int side = 0; side < 4; ++side) {
        if (num_trams > 0 && has_tram(plot_key(p, side))) tram = true;
        if (neighbour(p, side) == cp::kCityHallPlot) hall = true;
      }
      if (outskirts[p]) outer = true;
    }
    hall = hall && city_hall_built();
    tram = tram || tram_anyway;
    if (cp::kIsSpecial[k]) {
      int value = cp::kRuleBase[k] + cp::kRulePerRes[k] * res + cp::kRulePerBus[k] * bus +
                  cp::kRulePerSpecial[k] * special;
      if (tram) value *= cp::kRuleTramMult[k];
      if (hall) value *= cp::kRuleChaMult[k];
      return value;
    }
    const int base = cp::kBaseValue[pl.size] + park - 2 * factory;
    if (cp::kIsResidence[k]) return (base + (outer ? 1 : 0)) * (tram ? 2 : 1);
    return (base + (outer ? 0 : 1)) * (1 + (hall ? 1 : 0) + (tram ? 1 : 0));
  }

  // rules.kind_placements (sorted)
  template <int N>
  void kind_placements(int k, detail::PlotSet plots, detail::Placements<N>& out_) const {
    out_.count = 0;
    if (supply[k] <= 0) return;
    if (k == cp::kCityHall) {
      if (plots.has(cp::kCityHallPlot)) {
        const int line[1] = {cp::kCityHallPlot};
        out_.push(detail::sorted_placement(line, 1));
      }
      return;
    }
    if (cp::kIsSpecial[k] && !city_hall_built()) return;
    plots.remove(cp::kCityHallPlot);
    shape_placements(plots, cp::kKindSize[k], out_);
    if (cp::kIsSpecial[k]) {
      int kept = 0;
      for (int m = 0; m < out_.count; ++m)
        if (special_allowed(k, out_.items[m])) out_.items[kept++] = out_.items[m];
      out_.count = kept;
    }
  }

  // ===== rules.py: parks and factories =============================================================
  // rules._facility_candidates (possibly repeated, unsorted)
  template <int N>
  void facility_candidates(int k, detail::Placements<N>& out_, bool first_only) const {
    out_.count = 0;
    const int f = k - cp::kPark2;
    const int size = cp::kFacilitySize[f];
    for (int p = 0; p < cp::kNumPlots; ++p) {
      if (px[p] < 0 || occupant[p] >= 0) continue;
      for (int o = 0; o < cp::kFacilityOrientations[f]; ++o) {
        int plots[4];
        bool ok = true;
        for (int m = 0; m < size && ok; ++m) {
          const int idx = (f * 4 + o) * 4 + m;
          const int q = plot_at(px[p] + cp::kFacilityDx[idx], py[p] + cp::kFacilityDy[idx]);
          if (q < 0 || occupant[q] >= 0) ok = false;
          plots[m] = q;
        }
        if (!ok) continue;
        int outer = 0;
        for (int m = 0; m < size; ++m) outer += outskirts[plots[m]] ? 1 : 0;
        if (outer < cp::kFacilityOutskirtsLow[f] || outer > cp::kFacilityOutskirtsHigh[f]) continue;
        const detail::Placement pl = detail::sorted_placement(plots, size);
        bool tram_inside = false;
        for (int m = 0; m < size && num_trams > 0; ++m)
          for (int side : {1, 2})
            if (pl.has(neighbour(pl.plots[m], side)) && has_tram(plot_key(pl.plots[m], side))) tram_inside = true;
        if (tram_inside) continue;
        out_.push(pl);
        if (first_only) return;
      }
    }
  }
  // rules.facility_possible
  bool facility_possible(int k) const {
    detail::Placements<1> found;
    facility_candidates(k, found, true);
    return found.count > 0;
  }

  // ===== rules.py: trams ===========================================================================
  // rules.tram_edges as a mask (EDGE + canonical id); returns whether there is one
  bool tram_edges(uint8_t* mask) const {
    bool any = false;
    auto mark = [&](int e) {
      any = true;
      if (mask != nullptr) mask[cp::kEdge + e] = 1;
    };
    if (num_trams == 0) {  // the first segment: any street
      for (int p = 0; p < cp::kNumPlots; ++p) {
        if (px[p] < 0) continue;
        for (int side = 0; side < 4; ++side) {
          const int key = plot_key(p, side);
          if (covered(key)) continue;
          mark(street_edge(key));
          if (mask == nullptr) return true;
        }
      }
      return any;
    }
    for (int t = 0; t < num_trams; ++t) {
      int ends[2];
      detail::key_vertices(trams[t], ends[0], ends[1]);
      for (int v : ends) {
        const int keys[4] = {2 * v, 2 * v - 2, 2 * v + 1, 2 * v + 1 - 2 * detail::kVertexRow};
        for (int key : keys) {
          if (has_tram(key) || covered(key)) continue;
          const int e = street_edge(key);
          if (e < 0) continue;
          mark(e);
          if (mask == nullptr) return true;
        }
      }
    }
    return any;
  }
  bool tram_possible() const { return tram_edges(nullptr); }

  // ===== rules.py: neighbourhood tiles =============================================================
  // The minimum contact edge of an empty cell beside the city (rules._touch_map), else kNoContact.
  int contact(int x, int y) const {
    const int i = detail::cell_index(x, y);
    if (grid[i] >= 0) return detail::kNoContact;
    int best = detail::kNoContact;
    // the plot across each side of the cell; the cell lies on the opposite side of that plot
    for (int side = 0; side < 4; ++side) {
      const int q = grid[i + detail::kSideStep[side]];
      if (q >= 0 && 4 * q + cp::kOpposite[side] < best) best = 4 * q + cp::kOpposite[side];
    }
    return best;
  }
  // rules._placement_min_edge for a width x height rectangle: its minimum contact edge, or -1
  int anchor_min_edge(int width, int height, int ax, int ay) const {
    if (ax < 0 || ay < 0 || ax > cp::kGrid - width || ay > cp::kGrid - height) return -1;
    int touching = 0, best = detail::kNoContact;
    for (int w = 0; w < height; ++w)
      for (int c = 0; c < width; ++c) {
        if (grid[detail::cell_index(ax + c, ay + w)] >= 0) return -1;
        const int e = contact(ax + c, ay + w);
        if (e != detail::kNoContact) {
          ++touching;
          best = std::min(best, e);
        }
      }
    return touching >= 2 ? best : -1;
  }
  void city_box(int& x0, int& x1, int& y0, int& y1) const {
    x0 = y0 = cp::kGrid;
    x1 = y1 = -1;
    for (int p = 0; p < cp::kNumPlots; ++p) {
      if (px[p] < 0) continue;
      x0 = std::min(x0, static_cast<int>(px[p]));
      x1 = std::max(x1, static_cast<int>(px[p]));
      y0 = std::min(y0, static_cast<int>(py[p]));
      y1 = std::max(y1, static_cast<int>(py[p]));
    }
  }
  // rules.has_anchor (the rotation's rectangle)
  bool has_anchor(int width, int height) const {
    int x0, x1, y0, y1;
    city_box(x0, x1, y0, y1);
    for (int ay = std::max(0, y0 - height); ay <= std::min(cp::kGrid - height, y1 + 1); ++ay)
      for (int ax = std::max(0, x0 - width); ax <= std::min(cp::kGrid - width, x1 + 1); ++ax)
        if (anchor_min_edge(width, height, ax, ay) >= 0) return true;
    return false;
  }
  // rules._legal_tile_edge
  void legal_tile_edge(uint8_t* mask) const {
    const int width = layout_width(tile, rotation), height = layout_height(tile, rotation);
    int x0, x1, y0, y1;
    city_box(x0, x1, y0, y1);
    for (int ay = std::max(0, y0 - height); ay <= std::min(cp::kGrid - height, y1 + 1); ++ay)
      for (int ax = std::max(0, x0 - width); ax <= std::min(cp::kGrid - width, x1 + 1); ++ax) {
        const int e = anchor_min_edge(width, height, ax, ay);
        if (e >= 0) mask[cp::kEdge + e] = 1;
      }
  }
  // rules.anchor_from
  void anchor_from(int t, int r, int e, int j, int& ax, int& ay) const {
    const int q = e / 4, side = e % 4;
    ax = px[q] + cp::kDirX[side] - layout_col(t, r, j);
    ay = py[q] + cp::kDirY[side] - layout_row(t, r, j);
  }
  // rules._tile_cell_ok
  bool tile_cell_ok(int j) const {
    if (j >= cp::kTilePlotCount[tile]) return false;
    int ax, ay;
    anchor_from(tile, rotation, edge, j, ax, ay);
    return anchor_min_edge(layout_width(tile, rotation), layout_height(tile, rotation), ax, ay) == edge;
  }

  // ===== legal actions =============================================================================
  // rules.main_options
  void legal_main(uint8_t* mask) const {
    const int p = active;
    const bool hall = city_hall_built();
    if (hall)
      for (int c = cp::kPark2Card; c < cp::kNumCards; ++c)
        if (hand_has(p, c) && facility_possible(cp::kFacilityOfCard[c])) mask[cp::kCard + c] = 1;
    const detail::PlotSet plots = hand_plots(p);
    detail::PlotSet usable = plots;
    usable.remove(cp::kCityHallPlot);
    detail::Placements<detail::kMaxPlacements> by_size[4];
    bool computed[4] = {false, false, false, false};
    for (int k = 0; k < cp::kNumKinds; ++k) {
      if (supply[k] <= 0) continue;
      if (k == cp::kCityHall) {
        if (plots.has(cp::kCityHallPlot)) mask[cp::kBuild + k] = 1;
        continue;
      }
      const bool special = cp::kIsSpecial[k] != 0;
      if (special && !hall) continue;
      const int size = cp::kKindSize[k];
      if (!computed[size]) {
        shape_placements(usable, size, by_size[size]);
        computed[size] = true;
      }
      const auto& found = by_size[size];
      bool ok = found.count > 0;
      if (ok && special) {
        ok = false;
        for (int m = 0; m < found.count && !ok; ++m) ok = special_allowed(k, found.items[m]);
      }
      if (ok) mask[cp::kBuild + k] = 1;
    }
    if (hall && trams_left() > 0 && tram_possible()) mask[cp::kTram] = 1;
    if (hall)
      for (int t = 2; t <= cp::kNumTiles; ++t)
        if (tile_rotation[t - 1] < 0) mask[cp::kTile + t] = 1;
    if (hand_size[p] > 0 || (hand_size[p] < hand_limit && any_pile())) mask[cp::kExchange] = 1;
    mask[cp::kPass] = 1;
  }

  // rules._legal_select (selection_placements)
  void legal_select(uint8_t* mask) const {
    const int k = num_selected;
    if (decision == cp::kBuildSelect) {
      detail::Placements<detail::kMaxPlacements> found;
      detail::PlotSet plots = hand_plots(active);
      for (int m = 0; m < num_selected; ++m) plots.add(selected[m]);
      kind_placements(kind, plots, found);
      for (int m = 0; m < found.count; ++m)
        if (has_prefix(found.items[m])) mask[cp::kCard + found.items[m].plots[k]] = 1;
    } else {
      detail::Placements<detail::kMaxFacilityPlacements> found;
      facility_candidates(kind, found, false);
      for (int m = 0; m < found.count; ++m)
        if (has_prefix(found.items[m])) mask[cp::kCard + found.items[m].plots[k]] = 1;
    }
  }
  bool has_prefix(const detail::Placement& pl) const {
    if (pl.size <= num_selected) return false;
    for (int m = 0; m < num_selected; ++m)
      if (pl.plots[m] != selected[m]) return false;
    return true;
  }

  // rules.draw_piles
  bool may_draw_pile(int i) const {
    return hand_size[active] < hand_limit && pile_size[i] > 0 && drawn[i] < cp::kMaxDrawsPerPile;
  }
  bool can_draw() const {
    for (int i = 0; i < 8; ++i)
      if (may_draw_pile(i)) return true;
    return false;
  }

  // ===== transitions ===============================================================================
  // rules._apply_tile_cell
  void apply_tile_cell(int action) {
    const int t = tile, r = rotation;
    int ax, ay;
    anchor_from(t, r, edge, action - cp::kLocalCell, ax, ay);
    put_tile(t, r, ax, ay);
    rebuild_derived();
    tile = 0;
    rotation = -1;
    edge = -1;
    if (num_setup_order > 0) {
      remove_at(setup_order, num_setup_order, 0);
      for (int k = 0; k < num_setup_tiles; ++k)
        if (setup_tiles[k] == t) {
          remove_at(setup_tiles, num_setup_tiles, k);
          break;
        }
      if (num_setup_order > 0) {
        active = setup_order[0];
        decision = cp::kSetupTile;
      } else {
        begin_turn(0);
      }
    } else {
      end_action();
    }
  }

  // rules._apply_dead_discard
  void apply_dead_discard(int action) {
    if (action == cp::kDone) {
      decision = cp::kMain;
      return;
    }
    hand_remove(active, action);
    out[action] = true;
    may_draw = dead_discarded = true;
    if (!has_dead_card(active)) decision = cp::kMain;
  }

  // rules._apply_main
  void apply_main(int action) {
    main_action = action;
    if (action < cp::kBuild) {  // a park or factory card
      card = action;
      kind = cp::kFacilityOfCard[action];
      hand_remove(active, action);
      out[action] = true;
      may_draw = true;
      decision = cp::kPieceSelect;
    } else if (action < cp::kTram) {
      kind = action - cp::kBuild;
      decision = cp::kBuildSelect;
    } else if (action == cp::kTram) {
      first_tram = num_trams == 0;
      decision = cp::kTramEdge;
    } else if (action < cp::kExchange) {
      tile = action - cp::kTile;
      decision = cp::kTileRotation;
    } else if (action == cp::kExchange) {
      decision = cp::kExchangeSelect;
    } else {
      end_action();
    }
  }

  // rules._apply_select
  void apply_select(int action) {
    selected[num_selected++] = static_cast<int8_t>(action);
    if (num_selected < piece_size(kind)) return;
    Piece piece;
    piece.kind = static_cast<int8_t>(kind);
    piece.owner = static_cast<int8_t>(active);
    piece.size = static_cast<int8_t>(num_selected);
    for (int m = 0; m < num_selected; ++m) piece.plots[m] = selected[m];
    if (decision == cp::kBuildSelect) {
      detail::Placement pl;
      pl.size = piece.size;
      for (int m = 0; m < pl.size; ++m) pl.plots[m] = piece.plots[m];
      piece.points = building_points(kind, pl);
      for (int m = 0; m < piece.size; ++m) {
        hand_remove(active, piece.plots[m]);
        out[piece.plots[m]] = true;
      }
      --supply[kind];
      score[active] += piece.points;
      may_draw = true;
    }
    for (int m = 0; m < piece.size; ++m) occupant[piece.plots[m]] = static_cast<int8_t>(num_pieces);
    pieces[num_pieces++] = piece;
    num_selected = 0;
    kind = card = -1;
    end_action();
  }

  // rules._apply_tram
  void apply_tram(int action) {
    if (action == cp::kDone) {
      end_action();
      return;
    }
    const int e = action - cp::kEdge;
    trams[num_trams++] = static_cast<int16_t>(plot_key(e / 4, e % 4));
    ++trams_this_action;
    if (first_tram || trams_this_action >= 2 || trams_left() <= 0 || !tram_possible())
      end_action();
    else
      decision = cp::kTramEdgeOpt;
  }

  // rules._apply_exchange
  void apply_exchange(int action) {
    const int p = active;
    if (action != cp::kDone) {
      hand_remove(p, action);
      exchange[num_exchange++] = static_cast<int8_t>(action);
      return;
    }
    for (int k = 0; k < num_exchange; ++k) {  // each goes under its pile in turn
      const int c = exchange[k];
      const int i = cp::kCardPile[c] - 1;
      for (int j = pile_size[i]; j > 0; --j) {
        piles[i][j] = piles[i][j - 1];
        pile_known[i][j] = pile_known[i][j - 1];
      }
      piles[i][0] = static_cast<int8_t>(c);
      pile_known[i][0] = static_cast<int8_t>(p);
      ++pile_size[i];
    }
    num_exchange = 0;
    may_draw = true;
    end_action();
  }

  // rules._apply_draw
  void apply_draw(int action) {
    const int i = action - cp::kPile - 1;
    hands[active][hand_size[active]++] = pile_pop(i);
    ++drawn[i];
    if (!can_draw()) finish_turn();
  }

  // ===== turn structure ============================================================================
  // rules.city_full
  bool city_full() const {
    for (int t = 0; t < cp::kNumTiles; ++t)
      if (tile_rotation[t] < 0) return false;
    for (int p = 0; p < cp::kNumPlots; ++p)
      if (occupant[p] < 0) return false;
    return true;
  }
  // rules._end_action
  void end_action() {
    if (city_full()) {
      game_over(false);
      return;
    }
    if (may_draw && can_draw()) {
      decision = cp::kDraw;
      return;
    }
    finish_turn();
  }
  // rules._finish_turn
  void finish_turn() {
    const bool pure_pass = main_action == cp::kPass && !dead_discarded;
    passes = pure_pass ? passes + 1 : 0;
    last_pass[active] = main_action == cp::kPass;
    ++turns;
    if (passes >= n)
      game_over(false);
    else if (turns >= cp::kMaxTurns)
      game_over(true);
    else
      begin_turn((active + 1) % n);
  }
  // rules._begin_turn
  void begin_turn(int seat) {
    active = seat;
    std::memset(drawn, 0, sizeof drawn);
    may_draw = dead_discarded = false;
    main_action = -1;
    trams_this_action = 0;
    first_tram = false;
    decision = has_dead_card(seat) ? cp::kDeadDiscard : cp::kMain;
  }
  // rules.ranking_winners: the highest score, ties share
  void ranking_winners(std::vector<int>& out_) const {
    int best = score[0];
    for (int seat = 1; seat < n; ++seat) best = std::max(best, static_cast<int>(score[seat]));
    for (int seat = 0; seat < n; ++seat)
      if (score[seat] == best) out_.push_back(seat);
  }
  // rules._game_over
  void game_over(bool is_truncated_) {
    int best = score[0];
    for (int seat = 1; seat < n; ++seat) best = std::max(best, static_cast<int>(score[seat]));
    num_winners = 0;
    for (int seat = 0; seat < n; ++seat)
      if (score[seat] == best) winners_[num_winners++] = static_cast<int8_t>(seat);
    truncated = is_truncated_;
    decision = kGameOver;
    active = -1;
  }

  // ===== helpers ===================================================================================
  void clear(int num_players) {
    n = num_players;
    hand_limit = cp::kHandLimit[n];
    std::memset(tile_rotation, -1, sizeof tile_rotation);
    std::memset(tile_ax, 0, sizeof tile_ax);
    std::memset(tile_ay, 0, sizeof tile_ay);
    std::memset(px, -1, sizeof px);
    std::memset(py, -1, sizeof py);
    std::memset(occupant, -1, sizeof occupant);
    num_pieces = 0;
    num_trams = 0;
    std::memset(trams, 0, sizeof trams);
    for (int k = 0; k < cp::kNumKinds; ++k) supply[k] = static_cast<int8_t>(cp::kKindCount[k]);
    std::memset(hand_size, 0, sizeof hand_size);
    std::memset(hands, 0, sizeof hands);
    std::memset(pile_size, 0, sizeof pile_size);
    std::memset(piles, 0, sizeof piles);
    std::memset(pile_known, -1, sizeof pile_known);
    std::memset(out, 0, sizeof out);
    std::memset(score, 0, sizeof score);
    num_setup_tiles = num_setup_order = 0;
    std::memset(setup_tiles, 0, sizeof setup_tiles);
    std::memset(setup_order, 0, sizeof setup_order);
    active = 0;
    decision = cp::kSetupTile;
    turns = passes = 0;
    std::memset(drawn, 0, sizeof drawn);
    may_draw = dead_discarded = false;
    main_action = kind = card = -1;
    tile = 0;
    rotation = edge = -1;
    num_selected = num_exchange = 0;
    std::memset(selected, 0, sizeof selected);
    std::memset(exchange, 0, sizeof exchange);
    trams_this_action = 0;
    first_tram = false;
    std::memset(last_pass, 0, sizeof last_pass);
    num_winners = 0;
    std::memset(winners_, 0, sizeof winners_);
    truncated = false;
    std::memset(grid, -1, sizeof grid);
    std::memset(outskirts, 0, sizeof outskirts);
    std::memset(across, 0, sizeof across);
  }

  int8_t pile_pop(int i) {
    --pile_size[i];
    return piles[i][pile_size[i]];
  }
  void hand_remove(int seat, int c) {  // list.remove: the first occurrence
    for (int k = 0; k < hand_size[seat]; ++k)
      if (hands[seat][k] == c) {
        for (int m = k; m + 1 < hand_size[seat]; ++m) hands[seat][m] = hands[seat][m + 1];
        --hand_size[seat];
        return;
      }
  }
  static void remove_at(int8_t* values, int& count, int k) {
    for (int m = k; m + 1 < count; ++m) values[m] = values[m + 1];
    --count;
  }

  // rules._put_tile
  void put_tile(int t, int r, int ax, int ay) {
    tile_rotation[t - 1] = static_cast<int8_t>(r);
    tile_ax[t - 1] = static_cast<int8_t>(ax);
    tile_ay[t - 1] = static_cast<int8_t>(ay);
    for (int k = 0; k < cp::kTilePlotCount[t]; ++k) {
      const int p = cp::kOffset[t] + k;
      px[p] = static_cast<int8_t>(ax + layout_col(t, r, k));
      py[p] = static_cast<int8_t>(ay + layout_row(t, r, k));
    }
  }

  // rules._rebuild_grid and _recompute_outskirts (the flood fill), and what lies across each side
  void rebuild_derived() {
    std::memset(grid, -1, sizeof grid);
    for (int p = 0; p < cp::kNumPlots; ++p)
      if (px[p] >= 0) grid[detail::cell_index(px[p], py[p])] = static_cast<int8_t>(p);
    int x0, x1, y0, y1;
    city_box(x0, x1, y0, y1);
    uint8_t unreached[detail::kCells] = {};
    uint8_t seen[detail::kCells] = {};
    int16_t stack[detail::kCells];
    int top = 0;
    for (int x = x0 - 1; x <= x1 + 1; ++x)
      for (int y : {y0 - 1, y1 + 1}) {
        const int i = detail::cell_index(x, y);
        if (!seen[i]) stack[top++] = static_cast<int16_t>(i);
        seen[i] = 1;
      }
    for (int y = y0; y <= y1; ++y)
      for (int x : {x0 - 1, x1 + 1}) {
        const int i = detail::cell_index(x, y);
        if (!seen[i]) stack[top++] = static_cast<int16_t>(i);
        seen[i] = 1;
      }
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x)
        if (grid[detail::cell_index(x, y)] < 0) unreached[detail::cell_index(x, y)] = 1;
    while (top > 0) {
      const int i = stack[--top];
      for (int step : {1, -1, detail::kPad, -detail::kPad}) {
        const int j = i + step;
        if (j < 0 || j >= detail::kCells || !unreached[j]) continue;
        unreached[j] = 0;
        seen[j] = 1;
        stack[top++] = static_cast<int16_t>(j);
      }
    }
    for (int p = 0; p < cp::kNumPlots; ++p) {
      outskirts[p] = false;
      for (int side = 0; side < 4; ++side) across[p][side] = 0;
      if (px[p] < 0) continue;
      const int i = detail::cell_index(px[p], py[p]);
      outskirts[p] = seen[i + 1] || seen[i - 1] || seen[i + detail::kPad] || seen[i - detail::kPad];
      for (int side = 0; side < 4; ++side) {
        const int j = i + detail::kSideStep[side];
        across[p][side] = static_cast<int8_t>(grid[j] >= 0 ? 1 : seen[j] ? 2 : unreached[j] ? 3 : 0);
      }
    }
  }

  // ===== view.py helpers ===========================================================================
  static int card_cell(int c, int plot_column, int special_column) {
    if (c < cp::kNumPlots) return cp::kPlotsStart + c * cp::kPlotsWidth + plot_column;
    return cp::kSpecialStart + (c - cp::kPark2Card) * cp::kSpecialWidth + special_column;
  }

  // view.board_block and view._base: the plot table, owners relative to seat p
  void board_block(int p, float* obs) const {
    for (int q = 0; q < cp::kNumPlots; ++q) {
      float* row = obs + cp::kPlotsStart + q * cp::kPlotsWidth;
      row[cp::kPlotsTile + cp::kPlotTile[q] - 1] = 1.0F;
      row[cp::kPlotsOrdinal] = static_cast<float>(cp::kPlotOrdinal[q] / 9.0);
      if (px[q] < 0) continue;
      row[cp::kPlotsPlaced] = 1.0F;
      row[cp::kPlotsX] = static_cast<float>(px[q] / 53.0);
      row[cp::kPlotsY] = static_cast<float>(py[q] / 53.0);
      row[cp::kPlotsOutskirts] = outskirts[q] ? 1.0F : 0.0F;
      for (int side = 0; side < 4; ++side) {
        const int column = cp::kPlotsSideN + 4 * side;
        if (across[q][side] > 0) row[column + across[q][side] - 1] = 1.0F;
      }
      const int piece = occupant[q];
      if (piece < 0) {
        row[cp::kPlotsOccupant + cp::kFreeColumn] = 1.0F;
        continue;
      }
      const Piece& standing = pieces[piece];
      row[cp::kPlotsOccupant + cp::kOccupantColumn[standing.kind]] = 1.0F;
      row[cp::kPlotsOwner + (standing.owner - p + n) % n] = 1.0F;
      row[cp::kPlotsPieceSize] = static_cast<float>(standing.size / 4.0);
      row[cp::kPlotsDead] = standing.kind >= cp::kPark2 ? 1.0F : 0.0F;
    }
    if (city_hall_built())
      for (int side = 0; side < 4; ++side) {
        const int q = neighbour(cp::kCityHallPlot, side);
        if (q >= 0) obs[cp::kPlotsStart + q * cp::kPlotsWidth + cp::kPlotsBesideCityHall] = 1.0F;
      }
    for (int t = 0; t < num_trams; ++t) {
      int a, side_a, b, side_b;
      key_plots(trams[t], a, side_a, b, side_b);
      if (a >= 0) obs[cp::kPlotsStart + a * cp::kPlotsWidth + cp::kPlotsSideN + 4 * side_a + 3] = 1.0F;
      if (b >= 0) obs[cp::kPlotsStart + b * cp::kPlotsWidth + cp::kPlotsSideN + 4 * side_b + 3] = 1.0F;
    }
  }

  // ===== required options of determinize (view._required_options) ==================================
  template <int N>
  void required_options(const int hand_slots[8], const int8_t pools[8][cp::kNumCards], const int pool_size[8],
                        detail::Placements<N>& options) const {
    options.count = 0;
    bool unknown[cp::kNumCards] = {};
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < pool_size[i]; ++j) unknown[pools[i][j]] = true;
    auto fits = [&](const detail::Placement& cards) {
      int need[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int m = 0; m < cards.size; ++m) {
        if (!unknown[cards.plots[m]]) return false;
        ++need[cp::kCardPile[cards.plots[m]] - 1];
      }
      for (int i = 0; i < 8; ++i)
        if (need[i] > hand_slots[i]) return false;
      return true;
    };
    if (decision == cp::kDeadDiscard) {
      for (int c = 0; c < cp::kNumPlots; ++c)
        if (is_dead(c) && !out[c]) {
          const int line[1] = {c};
          const detail::Placement cards = detail::sorted_placement(line, 1);
          if (fits(cards)) options.push(cards);
        }
    } else if (decision == cp::kBuildSelect) {
      detail::Placements<detail::kMaxPlacements> found;
      kind_placements(kind, free_plots(), found);
      const int k = num_selected;
      for (int m = 0; m < found.count; ++m) {
        const detail::Placement& pl = found.items[m];
        if (pl.size < k) continue;
        bool prefix = true;
        for (int j = 0; j < k; ++j) prefix = prefix && pl.plots[j] == selected[j];
        if (!prefix) continue;
        detail::Placement rest;  // pl[k:]
        rest.size = static_cast<int8_t>(pl.size - k);
        for (int j = k; j < pl.size; ++j) rest.plots[j - k] = pl.plots[j];
        if (fits(rest)) options.push(rest);
      }
    }
  }

  // ===== JSON helpers ==============================================================================
  template <class T>
  static void write_ints(json::Writer& w, const char* name, const T* values, int count) {
    w.key(name).begin_array();
    for (int k = 0; k < count; ++k) w.value(static_cast<int64_t>(values[k]));
    w.end_array();
  }
  static void write_bools(json::Writer& w, const char* name, const bool* values, int count) {
    w.key(name).begin_array();
    for (int k = 0; k < count; ++k) w.value(values[k]);
    w.end_array();
  }
  template <class T>
  static void read_ints(const json::Value& v, const char* name, T* values, int min_size, int max_size, int64_t low,
                        int64_t high, int* size = nullptr) {
    const auto& items = v.as_array(name, static_cast<size_t>(max_size));
    if (static_cast<int>(items.size()) < min_size)
      throw std::invalid_argument(std::string("state: ") + name + " has too few values");
    for (size_t k = 0; k < items.size(); ++k) values[k] = static_cast<T>(items[k].as_int(name, low, high));
    if (size != nullptr) *size = static_cast<int>(items.size());
  }
  static void read_bools(const json::Value& v, const char* name, bool* values, int count) {
    const auto& items = v.as_array(name, static_cast<size_t>(count));
    if (static_cast<int>(items.size()) != count)
      throw std::invalid_argument(std::string("state: ") + name + " has too few values");
    for (int k = 0; k < count; ++k) values[k] = items[static_cast<size_t>(k)].as_bool(name);
  }
};

}  // namespace city_envs::native::big_city

#include "heuristic.hpp"  // Game::heuristic
