// Big City's heuristic agent in C++: agents/big_city_heuristic.py (BigCityHeuristicAgent._choose and what it
// calls), decision for decision, drawing ties from the agent's generator exactly when and as the Python agent
// does (HeuristicAgent._best: `rng.integers(len(tied))` when two or more options lie within TIE_TOLERANCE of
// the best). It reads what the acting seat knows: its hand, the board, the scores, the pile sizes, the cards it
// returned to the piles and how many cards of each pile the others hold (its view's hand_counts).
//
// The Python agent's SeatMemo only caches values of the board and hand (`points`, tile worths), so nothing is
// carried between decisions here: every value is computed from the position.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/heuristic.hpp"
#include "game.hpp"

namespace city_envs::native::big_city {

namespace heuristic {

constexpr int kGoodBuild = 5;           // GOOD_BUILD
constexpr int kFairBuild = 3;           // FAIR_BUILD
constexpr int kTramGain = 3;            // TRAM_GAIN
constexpr double kWeakCard = 2.5;       // WEAK_CARD
constexpr int kLastExchangeTurn = 150;  // LAST_EXCHANGE_TURN
constexpr int kRes1 = 0;                // components.RES1
constexpr int kBus1 = 3;                // components.BUS1
constexpr int kPark3 = 13;              // components.PARK3
constexpr int kNumEdges = 4 * cp::kNumPlots;

// Table.Build: a legal build and what it scores now.
struct Build {
  int points;
  int kind;
  detail::Placement placement;
};

// Table.TileOption: a placement of a neighbourhood tile and its worth.
struct TileOption {
  double worth;
  int rotation;
  int edge;
  int ax;
  int ay;
};

// Per tram edge (canonical id), the gain of the best build if a tram lay there (Table.tram_gains).
struct TramGains {
  bool has[kNumEdges] = {};
  int gain[kNumEdges] = {};
  bool any = false;
  int max = 0;
};

// Table and BigCityHeuristicAgent: one seat's information and the decisions.
class Seat {
 public:
  Seat(const Game& g, int me, const int* legal, int count, Random& rng)
      : g_(g), me_(me), legal_(legal), count_(count), rng_(rng), held_(g.hand_plots(me)) {
    std::fill(held_beside_, held_beside_ + cp::kNumPlots, 0);
    int held[cp::kNumPlots];
    const int num_held = held_.list(held);
    for (int m = 0; m < num_held; ++m) {
      const int p = held[m];
      for (int side = 0; side < 4; ++side) {
        const int q = g_.neighbour(p, side);
        if (q >= 0) ++held_beside_[q];
        held_keys_[num_held_keys_++] = g_.plot_key(p, side);
      }
    }
  }

  // BigCityHeuristicAgent._choose
  int choose() {
    int action = legal_[count_ - 1];
    switch (g_.decision) {
      case cp::kSetupTile:
        action = tile_choice();
        break;
      case cp::kTileRotation:
      case cp::kTileEdge:
      case cp::kTileCell:
        action = tile_placement();
        break;
      case cp::kDeadDiscard:
        action = legal_[0];  // _dead_discard: min(legal)
        break;
      case cp::kMain:
        action = main_choice();
        break;
      case cp::kBuildSelect:
      case cp::kPieceSelect:
        action = select();
        break;
      case cp::kTramEdge:
      case cp::kTramEdgeOpt:
        action = tram();
        break;
      case cp::kExchangeSelect:
        action = exchange();
        break;
      case cp::kDraw:
        action = draw();
        break;
      default:
        break;
    }
    return is_legal(action) ? action : legal_[count_ - 1];
  }

 private:
  const Game& g_;
  int me_;
  const int* legal_;
  int count_;
  Random& rng_;
  detail::PlotSet held_;
  int held_beside_[cp::kNumPlots];  // Table.held_beside
  int held_keys_[4 * cp::kNumPlots];  // the sides (geometric keys) of the held plots
  int num_held_keys_ = 0;

  // _best over options scored `scores` (two or more options, or one): the index picked
  size_t tie_break(const std::vector<double>& scores) {
    return static_cast<size_t>(best_index(scores.data(), static_cast<int>(scores.size()), rng_));
  }
  bool is_legal(int action) const { return std::binary_search(legal_, legal_ + count_, action); }
  bool in_hand(int c) const { return g_.hand_has(me_, c); }

  // Table.my_cards_of
  int my_cards_of(int n) const {
    int count = 0;
    for (int k = 0; k < g_.hand_size[me_]; ++k) {
      const int c = g_.hands[me_][k];
      count += cp::kCardPile[c] == n && c < cp::kNumPlots ? 1 : 0;
    }
    return count;
  }

  // ----- builds ----------------------------------------------------------------------------------
  // Table.builds: every legal build of the kinds in kinds[0, num_kinds), on the held plots
  std::vector<Build> builds(const int* kinds, int num_kinds) const {
    std::vector<Build> out;
    detail::Placements<detail::kMaxPlacements> found;
    for (int m = 0; m < num_kinds; ++m) {
      const int k = kinds[m];
      if (k == cp::kCityHall) continue;
      g_.kind_placements(k, held_, found);
      for (int j = 0; j < found.count; ++j) out.push_back({g_.building_points(k, found.items[j]), k, found.items[j]});
    }
    return out;
  }
  std::vector<Build> all_builds() const {
    int kinds[cp::kNumKinds];
    for (int k = 0; k < cp::kNumKinds; ++k) kinds[k] = k;
    return builds(kinds, cp::kNumKinds);
  }

  // ----- trams -----------------------------------------------------------------------------------
  // Table.tram_gains: the edges beside held plots, each with the best build's gain if a tram lay there
  TramGains tram_gains(const std::vector<Build>& all) const {
    TramGains out;
    int base = 0;
    for (const Build& b : all) base = std::max(base, b.points);
    std::vector<int> on_tram(all.size());
    for (size_t m = 0; m < all.size(); ++m) on_tram[m] = g_.building_points(all[m].kind, all[m].placement, true);
    uint8_t mask[cp::kNumActions] = {};
    g_.tram_edges(mask);
    for (int e = 0; e < kNumEdges; ++e) {
      if (mask[cp::kEdge + e] == 0) continue;
      const int key = g_.plot_key(e / 4, e % 4);
      if (!beside_held(key)) continue;
      bool found = false;
      int best = 0;
      for (size_t m = 0; m < all.size(); ++m) {
        bool between = false;
        const bool along = runs_along(all[m].placement, key, between);
        if (along && between) continue;
        const int points = along ? on_tram[m] : all[m].points;
        best = found ? std::max(best, points) : points;
        found = true;
      }
      out.has[e] = true;
      out.gain[e] = best - base;
      out.max = out.any ? std::max(out.max, out.gain[e]) : out.gain[e];
      out.any = true;
    }
    return out;
  }
  // key is a side of a held plot
  bool beside_held(int key) const {
    for (int k = 0; k < num_held_keys_; ++k)
      if (held_keys_[k] == key) return true;
    return false;
  }
  // key is a side of one of the placement's plots; `between`: it lies between two of them
  bool runs_along(const detail::Placement& pl, int key, bool& between) const {
    bool along = false;
    between = false;
    for (int m = 0; m < pl.size; ++m)
      for (int side = 0; side < 4; ++side) {
        if (g_.plot_key(pl.plots[m], side) != key) continue;
        along = true;
        if (pl.has(g_.neighbour(pl.plots[m], side))) between = true;
      }
    return along;
  }

  // ----- cards -----------------------------------------------------------------------------------
  // Table.usefulness
  double usefulness(int c) const {
    if (c >= cp::kNumPlots) return 4.0;
    if (g_.is_dead(c)) return -10.0;
    if (c == cp::kCityHallPlot) return 6.0;
    if (g_.px[c] < 0) {
      int same = 0;
      for (int k = 0; k < g_.hand_size[me_]; ++k) same += cp::kCardPile[g_.hands[me_][k]] == cp::kPlotTile[c] ? 1 : 0;
      return same >= 2 ? 2.0 : 1.0;
    }
    detail::Placement single;
    single.size = 1;
    single.plots[0] = static_cast<int8_t>(c);
    const int points = std::max(g_.building_points(kRes1, single), g_.building_points(kBus1, single));
    return points + 2.0 * held_beside_[c];
  }

  // Table.pile_worth
  double pile_worth(int pile) const {
    if (g_.tile_rotation[pile - 1] < 0) return 0.2;
    double worth = 0.0;
    if (pile == cp::kPlotTile[cp::kCityHallPlot] && !g_.city_hall_built() && !in_hand(cp::kCityHallPlot)) worth += 3.0;
    for (int m = 0; m < cp::kTilePlotCount[pile]; ++m) {
      const int p = cp::kOffset[pile] + m;
      if (g_.occupant[p] >= 0 || g_.out[p] || held_.has(p) || p == cp::kCityHallPlot) continue;
      worth += 0.1 + held_beside_[p];
    }
    return worth;
  }

  // ----- parks and factories ---------------------------------------------------------------------
  // rules.facility_placements: sorted, without repeats
  std::vector<detail::Placement> facility_placements(int k) const {
    detail::Placements<detail::kMaxFacilityPlacements> found;
    g_.facility_candidates(k, found, false);
    std::vector<detail::Placement> out(found.items, found.items + found.count);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Table.facility_worth
  double facility_worth(int k, const detail::Placement& pl) const {
    for (int m = 0; m < pl.size; ++m)
      if (in_hand(pl.plots[m])) return -10.0;
    detail::PlotSet beside;
    int num_beside = 0;
    for (int m = 0; m < pl.size; ++m)
      for (int side = 0; side < 4; ++side) {
        const int q = g_.neighbour(pl.plots[m], side);
        if (held_.has(q) && !beside.has(q)) {
          beside.add(q);
          ++num_beside;
        }
      }
    if (k == cp::kPark2 || k == kPark3) return static_cast<double>(num_beside);
    int rivals = 0;
    for (int m = 0; m < pl.size; ++m)
      for (int q = 0; q < g_.n; ++q)
        if (q != me_) rivals += hand_count(q, cp::kPlotTile[pl.plots[m]]);
    return 0.3 * rivals - 2.0 * num_beside + 0.1;
  }

  // view["hand_counts"][seat][pile - 1]: how many cards of the pile the seat holds (public)
  int hand_count(int seat, int pile) const {
    int count = 0;
    for (int j = 0; j < g_.hand_size[seat]; ++j) count += cp::kCardPile[g_.hands[seat][j]] == pile ? 1 : 0;
    return count;
  }

  // ----- the main choice -------------------------------------------------------------------------
  // BigCityHeuristicAgent._main
  int main_choice() {
    int kinds[cp::kNumKinds];
    int num_kinds = 0;
    for (int m = 0; m < count_; ++m)
      if (legal_[m] >= cp::kBuild && legal_[m] < cp::kTram) kinds[num_kinds++] = legal_[m] - cp::kBuild;
    const std::vector<Build> all = builds(kinds, num_kinds);
    int best = -1;
    for (const Build& b : all) best = std::max(best, b.points);
    int build_action = cp::kPass;
    if (!all.empty()) {
      std::vector<double> scores(all.size());
      for (size_t m = 0; m < all.size(); ++m) scores[m] = all[m].points - 0.01 * cp::kKindSize[all[m].kind];
      build_action = cp::kBuild + all[tie_break(scores)].kind;
    }
    int top_score = g_.score[0];
    for (int q = 1; q < g_.n; ++q) top_score = std::max(top_score, static_cast<int>(g_.score[q]));
    const bool leading = g_.score[me_] >= top_score;
    if (leading && g_.passes == g_.n - 1 && best < kGoodBuild) return cp::kPass;
    if (best >= kGoodBuild) return build_action;
    if (is_legal(cp::kBuild + cp::kCityHall)) return cp::kBuild + cp::kCityHall;
    if (is_legal(cp::kTram)) {
      const TramGains gains = tram_gains(all);
      if (gains.any && gains.max >= kTramGain) return cp::kTram;
    }
    for (int c = cp::kPark2Card; c < cp::kNumCards; ++c) {
      if (!is_legal(c)) continue;
      const int k = cp::kFacilityOfCard[c];
      double top = 0.0;
      bool first = true;
      for (const detail::Placement& pl : facility_placements(k)) {
        const double worth = facility_worth(k, pl);
        top = first ? worth : std::max(top, worth);
        first = false;
      }
      if (!first && top > 0) return c;
    }
    std::vector<int> tiles;
    for (int m = 0; m < count_; ++m) {
      const int a = legal_[m];
      if (a > cp::kTile && a < cp::kExchange && my_cards_of(a - cp::kTile) >= 2) tiles.push_back(a);
    }
    if (!tiles.empty()) return best_tile(tiles);
    if (best >= kFairBuild) return build_action;
    const bool fresh = g_.turns < kLastExchangeTurn && pile_cards() > known_in_piles();
    if (fresh && is_legal(cp::kExchange) && has_weak_card()) return cp::kExchange;
    if (!all.empty()) return build_action;
    if (fresh && is_legal(cp::kExchange) && g_.hand_size[me_] < g_.hand_limit) return cp::kExchange;
    return cp::kPass;
  }
  // _best over TILE actions by my_cards_of
  int best_tile(const std::vector<int>& tiles) {
    std::vector<double> scores(tiles.size());
    for (size_t m = 0; m < tiles.size(); ++m) scores[m] = my_cards_of(tiles[m] - cp::kTile);
    return tiles[tie_break(scores)];
  }
  int pile_cards() const {
    int total = 0;
    for (int i = 0; i < 8; ++i) total += g_.pile_size[i];
    return total;
  }
  // len(view["known_in_piles"]): the cards this seat returned that lie in the piles
  int known_in_piles() const {
    int total = 0;
    for (int i = 0; i < 8; ++i) total += known_in_pile(i);
    return total;
  }
  int known_in_pile(int i) const {
    int total = 0;
    for (int j = 0; j < g_.pile_size[i]; ++j) total += g_.pile_known[i][j] == me_ ? 1 : 0;
    return total;
  }
  bool has_weak_card() const {
    for (int k = 0; k < g_.hand_size[me_]; ++k)
      if (usefulness(g_.hands[me_][k]) < kWeakCard) return true;
    return false;
  }

  // ----- placing pieces --------------------------------------------------------------------------
  // BigCityHeuristicAgent._select
  int select() {
    const int k = g_.num_selected;
    std::vector<detail::Placement> options;
    std::vector<double> scores;
    if (g_.decision == cp::kBuildSelect) {
      detail::PlotSet plots = held_;
      for (int m = 0; m < k; ++m) plots.add(g_.selected[m]);
      detail::Placements<detail::kMaxPlacements> found;
      g_.kind_placements(g_.kind, plots, found);
      for (int m = 0; m < found.count; ++m)
        if (has_prefix(found.items[m])) {
          options.push_back(found.items[m]);
          scores.push_back(g_.building_points(g_.kind, found.items[m]));
        }
    } else {
      for (const detail::Placement& pl : facility_placements(g_.kind))
        if (has_prefix(pl)) {
          options.push_back(pl);
          scores.push_back(facility_worth(g_.kind, pl));
        }
    }
    if (options.empty()) return legal_[count_ - 1];
    const detail::Placement& choice = options[tie_break(scores)];
    return choice.plots[k];
  }
  // pl[:k] == selected
  bool has_prefix(const detail::Placement& pl) const {
    if (pl.size <= g_.num_selected) return false;
    for (int m = 0; m < g_.num_selected; ++m)
      if (pl.plots[m] != g_.selected[m]) return false;
    return true;
  }

  // BigCityHeuristicAgent._tram
  int tram() {
    const TramGains all = tram_gains(all_builds());
    std::vector<int> edges;
    std::vector<double> scores;
    int top = 0;
    for (int e = 0; e < kNumEdges; ++e)
      if (all.has[e] && is_legal(cp::kEdge + e)) {
        top = edges.empty() ? all.gain[e] : std::max(top, all.gain[e]);
        edges.push_back(e);
        scores.push_back(all.gain[e]);
      }
    if (!edges.empty() && top > 0) return cp::kEdge + edges[tie_break(scores)];
    if (is_legal(cp::kDone)) return cp::kDone;
    std::vector<int> actions;
    scores.clear();
    for (int m = 0; m < count_; ++m)
      if (legal_[m] >= cp::kEdge && legal_[m] < cp::kLocalCell) {
        actions.push_back(legal_[m]);
        scores.push_back(closeness((legal_[m] - cp::kEdge) / 4));
      }
    if (actions.empty()) return legal_[count_ - 1];
    return actions[tie_break(scores)];
  }
  // closeness: minus the city-block distance from plot p to the nearest held plot (City Hall's plot if none)
  double closeness(int p) const {
    int best = -1;
    for (int q = 0; q < cp::kNumPlots; ++q)
      if (held_.has(q)) {
        const int d = std::abs(g_.px[p] - g_.px[q]) + std::abs(g_.py[p] - g_.py[q]);
        best = best < 0 ? d : std::min(best, d);
      }
    if (best < 0) {
      const int h = cp::kCityHallPlot;
      best = std::abs(g_.px[p] - g_.px[h]) + std::abs(g_.py[p] - g_.py[h]);
    }
    return -static_cast<double>(best);
  }

  // ----- neighbourhoods --------------------------------------------------------------------------
  // BigCityHeuristicAgent._tile_choice
  int tile_choice() {
    std::vector<int> tiles(legal_, legal_ + count_);
    return best_tile(tiles);
  }

  // BigCityHeuristicAgent._tile_placement
  int tile_placement() {
    const int n = g_.tile;
    int rotations[4];
    int num_rotations = 0;
    if (g_.rotation < 0) {
      for (int m = 0; m < count_; ++m) rotations[num_rotations++] = legal_[m] - cp::kRotation;
    } else {
      rotations[num_rotations++] = g_.rotation;
    }
    const std::vector<TileOption> options = best_tile_placements(n, rotations, num_rotations, g_.edge);
    if (options.empty()) return legal_[count_ - 1];
    std::vector<double> scores(options.size());
    for (size_t m = 0; m < options.size(); ++m) scores[m] = options[m].worth;
    const TileOption& pick = options[tie_break(scores)];
    if (g_.decision == cp::kTileRotation) return cp::kRotation + pick.rotation;
    if (g_.decision == cp::kTileEdge) return cp::kEdge + pick.edge;
    return cp::kLocalCell + local_cell(n, pick);
  }

  // Table.best_tile_placements: the legal placements (across `edge` unless -1) worth the most, within the
  // tolerance, by rotation then anchor (by y, then x): 3 per pair of a held plot of the city and a held plot
  // of the tile beside it, 0.1 per cell touching the city
  std::vector<TileOption> best_tile_placements(int n, const int* rotations, int num_rotations, int edge) const {
    int mine_new[9];
    int num_new = 0;
    for (int k = 0; k < g_.hand_size[me_]; ++k) {
      const int c = g_.hands[me_][k];
      if (c < cp::kNumPlots && cp::kPlotTile[c] == n) mine_new[num_new++] = cp::kPlotOrdinal[c] - 1;
    }
    const bool pairs_count = num_new > 0 && any_held();
    std::vector<TileOption> scored;
    int x0, x1, y0, y1;
    g_.city_box(x0, x1, y0, y1);
    for (int m = 0; m < num_rotations; ++m) {
      const int rot = rotations[m];
      const int width = Game::layout_width(n, rot), height = Game::layout_height(n, rot);
      for (int ay = std::max(0, y0 - height); ay <= std::min(cp::kGrid - height, y1 + 1); ++ay)
        for (int ax = std::max(0, x0 - width); ax <= std::min(cp::kGrid - width, x1 + 1); ++ax) {
          int touching = 0;
          const int e = anchor_contact(width, height, ax, ay, touching);
          if (e < 0 || (edge >= 0 && e != edge)) continue;
          double worth = 0.1 * touching;
          if (pairs_count) {
            int pairs = 0;
            for (int j = 0; j < num_new; ++j) {
              const int k = mine_new[j];
              pairs += held_around(ax + Game::layout_col(n, rot, k), ay + Game::layout_row(n, rot, k));
            }
            worth = 3.0 * pairs + 0.1 * touching;
          }
          scored.push_back({worth, rot, e, ax, ay});
        }
    }
    if (scored.empty()) return scored;
    double top = scored[0].worth;
    for (const TileOption& o : scored) top = std::max(top, o.worth);
    std::vector<TileOption> out;
    for (const TileOption& o : scored)
      if (o.worth >= top - kTieTolerance) out.push_back(o);
    return out;
  }
  bool any_held() const { return held_.bits[0] != 0 || held_.bits[1] != 0; }
  // rules._rectangle_anchors for one anchor: its minimum contact edge (-1 when illegal), its touching cells
  int anchor_contact(int width, int height, int ax, int ay, int& touching) const {
    touching = 0;
    int best = detail::kNoContact;
    for (int w = 0; w < height; ++w)
      for (int c = 0; c < width; ++c) {
        if (g_.grid[detail::cell_index(ax + c, ay + w)] >= 0) return -1;
        const int e = g_.contact(ax + c, ay + w);
        if (e != detail::kNoContact) {
          ++touching;
          best = std::min(best, e);
        }
      }
    return touching >= 2 ? best : -1;
  }
  // the held plots of the city beside cell (x, y)
  int held_around(int x, int y) const {
    const int i = detail::cell_index(x, y);
    int count = 0;
    for (int side = 0; side < 4; ++side) count += held_.has(g_.grid[i + detail::kSideStep[side]]) ? 1 : 0;
    return count;
  }
  // Table.local_cell: the first j whose anchor_from is the option's anchor
  int local_cell(int n, const TileOption& o) const {
    const int q = o.edge / 4, side = o.edge % 4;
    const int c = g_.px[q] + cp::kDirX[side] - o.ax, w = g_.py[q] + cp::kDirY[side] - o.ay;
    for (int j = 0; j < cp::kTilePlotCount[n]; ++j)
      if (Game::layout_col(n, o.rotation, j) == c && Game::layout_row(n, o.rotation, j) == w) return j;
    return -1;
  }

  // ----- cards -----------------------------------------------------------------------------------
  // BigCityHeuristicAgent._exchange: the least useful card while it is weak (or DONE is not allowed)
  int exchange() const {
    int worst = -1;
    double worst_use = 0.0;
    for (int m = 0; m < count_ && legal_[m] < cp::kBuild; ++m) {
      const double use = usefulness(legal_[m]);
      if (worst < 0 || use < worst_use) {
        worst = legal_[m];
        worst_use = use;
      }
    }
    if (worst >= 0 && (worst_use < kWeakCard || !is_legal(cp::kDone))) return worst;
    return cp::kDone;
  }

  // BigCityHeuristicAgent._draw: the best pile, never one holding only cards this seat returned while
  // another is open
  int draw() {
    std::vector<int> fresh;
    for (int m = 0; m < count_; ++m) {
      const int i = legal_[m] - cp::kPile - 1;
      if (g_.pile_size[i] > known_in_pile(i)) fresh.push_back(legal_[m]);
    }
    if (fresh.empty()) fresh.assign(legal_, legal_ + count_);
    std::vector<double> scores(fresh.size());
    for (size_t m = 0; m < fresh.size(); ++m) {
      const int pile = fresh[m] - cp::kPile;
      scores[m] = pile_worth(pile) + 0.01 * g_.pile_size[pile - 1];
    }
    return fresh[tie_break(scores)];
  }
};

}  // namespace heuristic

inline int Game::heuristic(int player, const int* legal, int count, Random& rng) const {
  return heuristic::Seat(*this, player, legal, count, rng).choose();
}

}  // namespace city_envs::native::big_city
