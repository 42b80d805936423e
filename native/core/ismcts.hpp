// `Ismcts<G>`: agents/ismcts.py's information-set Monte Carlo tree search over a native game, decision
// for decision the Python agent's.
//
// The same search as the Python agent (its docstring describes it): a fresh determinization of the
// match from the seat's information set every iteration; a max-n tree keyed by the moves played (each
// edge keyed by (seat, action) with that seat's statistics); availability counts in place of the
// parent's visits; progressive bias from the heuristic's hint; the heuristic opponent model; random or
// heuristic rollouts of at most `max_rollout` decisions; `returns()` at the end, else the standings'
// places in [-1, 1]; the root move by visits, then the hint, then the mean value, then the lower id.
//
// Parity: every draw comes from the agent's generator in the Python agent's order (the determinization,
// the heuristic's ties wherever it is asked, `integers(len(untried))` for an untried move, the random
// rollout's `integers(count)`), the values and UCB scores are the same double operations in the same
// order, and every maximum keeps the first of equals as Python's `max` does.
//
// The tree is flat: nodes are rows of hints, and every (node, seat, action) seen is one `Slot` in a
// vector (its availability count and, once it is an edge, its statistics and child), found through an
// open-addressing index. One scratch game is reassigned each iteration; nothing else allocates once the
// vectors have grown.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "game.hpp"
#include "random.hpp"

namespace city_envs::native {

// ISMCTSAgent's settings; `check` refuses what the agent's constructor refuses, and NaNs.
struct IsmctsOptions {
  int64_t iters = 0;         // the iteration budget (0: none, `seconds` is the budget)
  double seconds = 0.0;      // the time budget in seconds (0: none)
  double time_limit = 0.0;   // the hard stop in seconds, whatever the budget (0: none)
  double exploration = 0.7;
  int64_t max_rollout = 40;  // the rollout's decisions at most (-1: to the end)
  bool heuristic_rollout = true;
  double bias = 1.0;
  bool heuristic_opponents = true;

  void check() const {
    if ((iters > 0) == (seconds > 0) || iters < 0 || seconds < 0)
      throw std::invalid_argument("give exactly one budget: iters (>= 1) or seconds (> 0)");
    if (std::isnan(seconds) || std::isnan(time_limit) || time_limit < 0)
      throw std::invalid_argument("seconds and time_limit must be > 0 (a time limit of 0: none)");
    if (!std::isfinite(exploration)) throw std::invalid_argument("exploration must be a finite number");
    if (max_rollout < -1) throw std::invalid_argument("max_rollout must be >= 0 (or -1: rollouts to the end)");
    if (!(bias >= 0) || !std::isfinite(bias)) throw std::invalid_argument("bias must be a finite number >= 0");
  }
};

struct IsmctsResult {
  int action = -1;
  int64_t iterations = 0;
  std::vector<std::pair<int, double>> values;  // the root's own moves' mean values, in the order tried
};

// `kHeuristic`: G has the game's heuristic agent (`G::heuristic`, see game.hpp); without it the search
// takes only options that never ask it (random rollouts, no bias, every seat searched).
template <class G, bool kHeuristic>
class Ismcts {
 public:
  // A search for seat `me` (a seat of the match, to move in `root`: the caller checks); the options are
  // checked here. `run` once.
  Ismcts(const G& root, int num_players, int me, const IsmctsOptions& options)
      : root_(root), game_(root), num_players_(num_players), me_(me), options_(options) {
    options_.check();
    if (!kHeuristic && needs_heuristic())
      throw std::invalid_argument("this game's native engine has no heuristic for the search to ask");
  }

  bool needs_heuristic() const {
    return options_.heuristic_rollout || options_.bias > 0 || options_.heuristic_opponents;
  }

  IsmctsResult run(Random& rng) {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    // the one budget given and the hard stop, in seconds; what is not given never ends the search
    const double inf = std::numeric_limits<double>::infinity();
    const double stop = std::fmin(options_.seconds > 0 ? options_.seconds : inf,
                                  options_.time_limit > 0 ? options_.time_limit : inf);
    const auto in_time = [&start, stop] {
      return stop == std::numeric_limits<double>::infinity() ||
             std::chrono::duration<double>(Clock::now() - start).count() < stop;
    };
    const int64_t iters = options_.iters > 0 ? options_.iters : std::numeric_limits<int64_t>::max();
    new_node();
    IsmctsResult result;
    while (result.iterations == 0 || (result.iterations < iters && in_time())) {
      iterate(rng);
      ++result.iterations;
    }
    result.action = root_choice();
    for (int index : root_edges_) {
      const Slot& slot = slots_[static_cast<size_t>(index)];
      if (slot.seat == me_ && slot.visits > 0) result.values.emplace_back(slot.action, slot.total / slot.visits);
    }
    return result;
  }

 private:
  static constexpr int kNoHint = -1;
  static constexpr int kNone = -1;

  // One (seat, action) seen at a node: availability count and, once an edge, its statistics and child.
  struct Slot {
    uint64_t key;
    int seat;
    int action;
    int64_t available = 0;  // 64 bits: a time budget has no bound on the iterations
    bool edge = false;
    int64_t visits = 0;
    double total = 0.0;
    int child = kNone;
  };

  // ----- the tree ----------------------------------------------------------------------------------
  int new_node() {
    const int node = static_cast<int>(hints_.size() / static_cast<size_t>(num_players_));
    hints_.insert(hints_.end(), static_cast<size_t>(num_players_), kNoHint);
    return node;
  }

  uint64_t key_of(int node, int seat, int action) const {
    return (static_cast<uint64_t>(node) * static_cast<uint64_t>(num_players_) + static_cast<uint64_t>(seat)) *
               static_cast<uint64_t>(G::kNumActions) +
           static_cast<uint64_t>(action);
  }

  static size_t mix(uint64_t key) {  // splitmix64's finalizer
    key ^= key >> 30;
    key *= 0xBF58476D1CE4E5B9ULL;
    key ^= key >> 27;
    key *= 0x94D049BB133111EBULL;
    key ^= key >> 31;
    return static_cast<size_t>(key);
  }

  // The slot of (node, seat, action), made if new (-1 with `create` false and none there).
  int find(int node, int seat, int action, bool create) {
    if (create && (slots_.size() + 1) * 2 > index_.size()) grow();
    if (index_.empty()) return kNone;
    const uint64_t key = key_of(node, seat, action);
    const size_t mask = index_.size() - 1;
    for (size_t at = mix(key) & mask;; at = (at + 1) & mask) {
      const int found = index_[at];
      if (found == kNone) {
        if (!create) return kNone;
        index_[at] = static_cast<int>(slots_.size());
        slots_.push_back(Slot{key, seat, action});
        return index_[at];
      }
      if (slots_[static_cast<size_t>(found)].key == key) return found;
    }
  }

  void grow() {
    index_.assign(index_.empty() ? 1024 : index_.size() * 2, kNone);
    const size_t mask = index_.size() - 1;
    for (size_t s = 0; s < slots_.size(); ++s) {
      size_t at = mix(slots_[s].key) & mask;
      while (index_[at] != kNone) at = (at + 1) & mask;
      index_[at] = static_cast<int>(s);
    }
  }

  // The slot made an edge (Python's `node.edges[move] = Edge()`), remembered in order at the root.
  void make_edge(int node, int slot) {
    slots_[static_cast<size_t>(slot)].edge = true;
    if (node == 0) root_edges_.push_back(slot);
  }

  int child_of(int slot) {
    if (slots_[static_cast<size_t>(slot)].child == kNone) {
      const int node = new_node();
      slots_[static_cast<size_t>(slot)].child = node;
    }
    return slots_[static_cast<size_t>(slot)].child;
  }

  int& hint_of(int node, int seat) {
    return hints_[static_cast<size_t>(node) * static_cast<size_t>(num_players_) + static_cast<size_t>(seat)];
  }

  // ----- the game ----------------------------------------------------------------------------------
  int legal_moves() {
    uint8_t mask[G::kNumActions];
    game_.legal_actions(mask);
    return legal_ids(mask, G::kNumActions, legal_);
  }

  // HeuristicAgent.act for the seat to move: the only legal action without a draw, else the game's pick.
  int heuristic_pick(Random& rng) {
    const int count = legal_moves();
    if (count == 0) throw std::logic_error("the search reached a decision with no legal action");
    if (count == 1) return legal_[0];
    if constexpr (kHeuristic) {
      return game_.heuristic(game_.current_player(), legal_, count, rng);
    } else {
      throw std::logic_error("the search asked a heuristic the game does not have");
    }
  }

  void play(int action) {
    Random chance(chance_);
    game_.apply(action, chance);
  }

  // ----- one iteration (ISMCTSAgent._iterate) ------------------------------------------------------
  void iterate(Random& rng) {
    game_ = root_;  // Game.determinize: a match generator seeded from rng, then the hidden information
    chance_ = Pcg64::from_seed(rng.below(uint64_t{1} << 63));
    game_.resample_hidden(me_, rng);
    path_.clear();
    int node = 0;
    while (!game_.is_over()) {
      const int seat = game_.current_player();
      if (seat != me_ && options_.heuristic_opponents) {
        const int action = heuristic_pick(rng);
        const int slot = find(node, seat, action, true);
        if (!slots_[static_cast<size_t>(slot)].edge) make_edge(node, slot);
        node = child_of(slot);
        play(action);
        continue;
      }
      const int count = legal_moves();
      moves_.resize(static_cast<size_t>(count));
      for (int k = 0; k < count; ++k) {
        moves_[static_cast<size_t>(k)] = find(node, seat, legal_[k], true);
        slots_[static_cast<size_t>(moves_[static_cast<size_t>(k)])].available += 1;
      }
      const int hint = hint_at(node, seat, rng);  // after the counts, as Python asks it
      int hinted = kNone;                         // the hint's slot among the legal moves, if any
      int untried = 0;
      for (int k = 0; k < count; ++k) {
        const Slot& slot = slots_[static_cast<size_t>(moves_[static_cast<size_t>(k)])];
        if (slot.action == hint) hinted = moves_[static_cast<size_t>(k)];
        if (!slot.edge) ++untried;
      }
      if (untried > 0) {
        int chosen = hinted;
        if (chosen == kNone || slots_[static_cast<size_t>(chosen)].edge) {
          int pick = static_cast<int>(rng.integers(untried));
          for (int k = 0; k < count; ++k) {
            const int slot = moves_[static_cast<size_t>(k)];
            if (!slots_[static_cast<size_t>(slot)].edge && pick-- == 0) {
              chosen = slot;
              break;
            }
          }
        }
        make_edge(node, chosen);
        play(slots_[static_cast<size_t>(chosen)].action);
        path_.emplace_back(chosen, seat);
        break;
      }
      int best = moves_[0];
      double best_value = ucb(best, hinted);
      for (int k = 1; k < count; ++k) {
        const double value = ucb(moves_[static_cast<size_t>(k)], hinted);
        if (value > best_value) {
          best = moves_[static_cast<size_t>(k)];
          best_value = value;
        }
      }
      play(slots_[static_cast<size_t>(best)].action);
      path_.emplace_back(best, seat);
      node = child_of(best);
    }
    rollout(rng);
    values();
    for (const auto& [slot, seat] : path_) {
      Slot& edge = slots_[static_cast<size_t>(slot)];
      edge.visits += 1;
      edge.total += values_[static_cast<size_t>(seat)];
    }
  }

  // ISMCTSAgent._hint: the heuristic's move for `seat` at `node`, asked on the node's first visit by it.
  int hint_at(int node, int seat, Random& rng) {
    if (!(options_.bias > 0)) return kNoHint;  // Python: no hints with bias 0
    if (hint_of(node, seat) == kNoHint) {
      const int pick = heuristic_pick(rng);
      hint_of(node, seat) = pick;
    }
    return hint_of(node, seat);
  }

  // ISMCTSAgent._ucb, the same operations in the same order.
  double ucb(int index, int hinted) const {
    const Slot& edge = slots_[static_cast<size_t>(index)];
    const double visits = static_cast<double>(edge.visits);
    double value = edge.total / visits +
                   options_.exploration * std::sqrt(std::log(static_cast<double>(edge.available)) / visits);
    if (index == hinted) value += options_.bias / static_cast<double>(edge.visits + 1);
    return value;
  }

  void rollout(Random& rng) {
    if (options_.heuristic_rollout) {
      for (int64_t steps = 0; !game_.is_over() && (options_.max_rollout < 0 || steps < options_.max_rollout);
           ++steps)
        play(heuristic_pick(rng));
      return;
    }
    // Game.playout: the k-th legal id, k = rng.integers(count)
    for (int64_t played = 0; !game_.is_over() && (options_.max_rollout < 0 || played < options_.max_rollout);
         ++played) {
      const int count = legal_moves();
      if (count == 0) break;
      play(legal_[rng.integers(count)]);
    }
  }

  // ISMCTSAgent._values into values_: `returns()` at the end, else the places by `standings()`.
  void values() {
    const int n = num_players_;
    values_.assign(static_cast<size_t>(n), 0.0);
    if (game_.is_over()) {  // Game.returns
      game_.winners(winners_);
      bool won[G::kMaxPlayers] = {};
      int count = 0;
      for (int seat : winners_)
        if (seat >= 0 && seat < n && !won[seat]) {
          won[seat] = true;
          ++count;
        }
      if (count == n) return;
      if (count == 0) throw std::logic_error("a finished match without a winner");
      const double win = 1.0 / count, lose = -1.0 / (n - count);
      for (int seat = 0; seat < n; ++seat) values_[static_cast<size_t>(seat)] = won[seat] ? win : lose;
      return;
    }
    int width = 1;
    game_.standings(keys_, width);
    const auto compare = [this, width](int a, int b) {  // the key tuples of seats a and b: -1, 0 or 1
      for (int k = 0; k < width; ++k) {
        const double x = keys_[static_cast<size_t>(a * width + k)], y = keys_[static_cast<size_t>(b * width + k)];
        if (x != y) return x < y ? -1 : 1;
      }
      return 0;
    };
    for (int mine = 0; mine < n; ++mine) {
      int greater = 0, equal = 0;
      for (int other = 0; other < n; ++other) {
        const int order = compare(mine, other);
        greater += order > 0 ? 1 : 0;
        equal += order == 0 ? 1 : 0;
      }
      const double ahead = static_cast<double>(greater) + 0.5 * static_cast<double>(equal - 1);
      values_[static_cast<size_t>(mine)] = 2.0 * ahead / static_cast<double>(n - 1) - 1.0;
    }
  }

  // ISMCTSAgent._rank_at_root over the legal ids: visits, the hint, the mean value, the lower id.
  int root_choice() {
    game_ = root_;
    const int count = legal_moves();
    const int hint = options_.bias > 0 ? hint_of(0, me_) : kNoHint;
    int best = -1;
    int64_t best_visits = 0;
    bool best_hinted = false;
    double best_mean = 0.0;
    for (int k = 0; k < count; ++k) {
      const int action = legal_[k];
      const int index = find(0, me_, action, false);
      int64_t visits = -1;
      double mean = 0.0;
      if (index != kNone && slots_[static_cast<size_t>(index)].edge && slots_[static_cast<size_t>(index)].visits > 0) {
        visits = slots_[static_cast<size_t>(index)].visits;
        mean = slots_[static_cast<size_t>(index)].total / visits;
      }
      const bool hinted = visits > 0 && action == hint;
      // the ascending ids make every later action's -id lower: it wins only if strictly better before it
      if (best < 0 || visits > best_visits ||
          (visits == best_visits && (hinted > best_hinted || (hinted == best_hinted && mean > best_mean)))) {
        best = action;
        best_visits = visits;
        best_hinted = hinted;
        best_mean = mean;
      }
    }
    return best;
  }

  const G root_;  // a copy: the caller's match may change while the search runs without the GIL
  G game_;
  Pcg64 chance_;
  int num_players_;
  int me_;
  IsmctsOptions options_;
  std::vector<int> hints_;  // num_players_ per node: the heuristic's move for each seat, or kNoHint
  std::vector<Slot> slots_;
  std::vector<int> index_;  // open addressing over slots_ by key (kNone: empty)
  std::vector<int> root_edges_;
  std::vector<std::pair<int, int>> path_;  // (slot, seat) of the edges chosen this iteration
  std::vector<int> moves_;
  std::vector<int> winners_;
  std::vector<double> keys_;
  std::vector<double> values_;
  int legal_[G::kNumActions];
};

}  // namespace city_envs::native
