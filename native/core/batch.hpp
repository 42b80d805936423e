// `Batch<G>`: N training matches of one game and player count, the learner's seat against native random
// or heuristic opponents, stepped together (bound as `<Game>Batch` by binding.hpp, wrapped by
// city_envs/core/vector.py).
//
// A batch plays what training/vec_env.py's SelfPlayVecEnv plays with a pool of random and heuristic
// opponents, decision for decision. Slot i's identity is index = first_index + i; its generator is
// `default_rng([seed, index])`. Its k-th match (k = 0, 1, ...):
//   - seats the learner at (k + index) % players;
//   - is dealt from `default_rng(rng.integers(2**63))`;
//   - gives each other seat, in seat order, an opponent as OpponentPool.draw does: the kind is the first
//     whose cumulative weight (`cdf`, computed by the caller with numpy) exceeds rng.random(), and the
//     opponent's own generator is `default_rng(rng.integers(2**63))`.
// A random opponent plays legal[rng.integers(count)] (RandomAgent), a heuristic one the game's heuristic
// (HeuristicAgent: no draw when one action is legal), each from its own generator. A step applies each
// slot's learner action, plays the opponents until the learner is to move again or the match is over,
// rewards the learner, and replaces a finished match at once (again while the opponents end the new
// one before the learner's first decision).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "game.hpp"
#include "json.hpp"
#include "random.hpp"

namespace city_envs::native {

enum class SeatKind : int8_t { kLearner, kHeuristic, kRandom };
enum class BatchReward : int8_t { kWin, kScore, kLead };

inline const char* seat_kind_name(SeatKind kind) {
  return kind == SeatKind::kLearner ? "learner" : kind == SeatKind::kHeuristic ? "heuristic" : "random";
}

inline SeatKind seat_kind(const std::string& name) {
  if (name == "learner") return SeatKind::kLearner;
  if (name == "heuristic") return SeatKind::kHeuristic;
  if (name == "random") return SeatKind::kRandom;
  throw std::invalid_argument("unknown seat kind '" + name + "'; allowed: learner, heuristic, random");
}

template <class G>
struct BatchSlot {
  G game;
  Pcg64 chance;  // the match generator
  std::vector<int32_t> history;
  Pcg64 rng;  // the slot's generator: match seeds and opponents
  int learner = 0;
  int64_t episodes = 0;  // matches started in this slot
  double margin = 0.0;   // the learner's margin at its last step (`score` and `lead` rewards)
  std::array<SeatKind, G::kMaxPlayers> seats{};
  std::array<Pcg64, G::kMaxPlayers> seat_rngs{};
  std::array<uint8_t, G::kNumActions> legal{};  // the learner's legal actions, while `ready`
  bool ready = false;  // waiting on its learner (after `reset` or `set`)
};

// What a step writes, one row or value per slot (the caller's arrays).
struct BatchOut {
  float* observations;  // num_envs x observation size: the learner's next observation
  bool* masks;          // num_envs x num actions: its legal actions
  float* rewards;
  bool* terminated;
  bool* truncated;
  float* final_observations;  // rows of the finished slots only: the learner's last observation
  double* wins;               // the finished slots' share of the win (1 / number of winners), else 0
};

template <class G>
class Batch {
 public:
  using Slot = BatchSlot<G>;

  Batch(int num_players, json::Value options, uint64_t seed, uint64_t first_index, int num_envs,
        std::vector<SeatKind> kinds, std::vector<double> cdf, BatchReward reward, double score_scale)
      : num_players_(num_players),
        options_(std::move(options)),
        first_index_(first_index),
        kinds_(std::move(kinds)),
        cdf_(std::move(cdf)),
        reward_(reward),
        score_scale_(score_scale),
        slots_(static_cast<size_t>(num_envs)) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      uint32_t entropy[4];
      size_t words = Pcg64::append_entropy(entropy, seed);
      words += Pcg64::append_entropy(entropy + words, first_index_ + i);
      slots_[i].rng = Pcg64::from_entropy(entropy, words);
    }
  }

  int num_envs() const { return static_cast<int>(slots_.size()); }
  int num_players() const { return num_players_; }
  bool ready() const {
    for (const Slot& slot : slots_)
      if (!slot.ready) return false;
    return true;
  }
  const Slot& slot(int i) const { return slots_[static_cast<size_t>(i)]; }
  Slot& slot(int i) { return slots_[static_cast<size_t>(i)]; }

  // Set while a thread steps or resets the batch: a second thread is refused, not raced.
  std::atomic<bool>& busy() { return busy_; }

  // Every slot's new match, played up to its learner's first decision.
  void reset(float* observations, bool* masks) {
    for (int i = 0; i < num_envs(); ++i) {
      start(slot(i), i);
      write(i, observations, masks);
    }
  }

  // The first slot whose action is not legal for its learner, or -1.
  int first_illegal(const int64_t* actions) const {
    for (int i = 0; i < num_envs(); ++i) {
      const int64_t action = actions[i];
      if (action < 0 || action >= G::kNumActions || slot(i).legal[static_cast<size_t>(action)] == 0) return i;
    }
    return -1;
  }

  // Make `s` wait on its learner (a restored slot): its legal actions as `first_illegal` reads them.
  static void mark_ready(Slot& s) {
    s.game.legal_actions(s.legal.data());
    s.ready = true;
  }

  // Every slot's learner plays its (legal) action; see the header comment.
  void step(const int64_t* actions, const BatchOut& out) {
    for (int i = 0; i < num_envs(); ++i) {
      Slot& s = slot(i);
      s.ready = false;  // until it waits on its learner again (a fault midway leaves the batch to reset)
      play(s, static_cast<int>(actions[i]));
      play_opponents(s);
      float reward = 0.0F;  // float32 sums, as SelfPlayVecEnv's rewards array adds
      if (reward_ != BatchReward::kWin) {
        const double margin = margin_of(s);
        reward += static_cast<float>(score_scale_ * (margin - s.margin));
        s.margin = margin;
      }
      const bool over = s.game.is_over();
      out.wins[i] = 0.0;
      out.terminated[i] = over && !s.game.is_truncated();
      out.truncated[i] = over && s.game.is_truncated();
      if (over) {
        double share = 0.0;
        reward += static_cast<float>(learner_return(s, share));
        out.wins[i] = share;
        s.game.observation(s.learner, out.final_observations + static_cast<size_t>(i) * G::kObservationSize);
        start(s, i);
      } else {
        mark_ready(s);
      }
      out.rewards[i] = reward;
      write(i, out.observations, out.masks);
    }
  }

 private:
  void play(Slot& s, int action) {
    Random chance(s.chance);
    s.game.apply(action, chance);
    s.history.push_back(static_cast<int32_t>(action));
  }

  // SelfPlayVecEnv._new_match, then the opponents' moves, again while they end the match.
  void start(Slot& s, int i) {
    do {
      new_match(s, i);
      play_opponents(s);
    } while (s.game.is_over());
    mark_ready(s);
  }

  void new_match(Slot& s, int i) {
    const uint64_t index = first_index_ + static_cast<uint64_t>(i);
    s.learner = static_cast<int>((static_cast<uint64_t>(s.episodes) + index) % static_cast<uint64_t>(num_players_));
    ++s.episodes;
    Random draw(s.rng);
    s.chance = Pcg64::from_seed(draw.below(uint64_t{1} << 63));
    s.history.clear();
    s.game = G();
    Random chance(s.chance);
    s.game.setup(num_players_, options_, chance);
    for (int seat = 0; seat < num_players_; ++seat) {
      if (seat == s.learner) {
        s.seats[static_cast<size_t>(seat)] = SeatKind::kLearner;
        continue;
      }
      const double u = draw.random();  // rng.choice(len(kinds), p=...): cdf.searchsorted(u, side="right")
      size_t k = 0;
      while (k + 1 < cdf_.size() && !(cdf_[k] > u)) ++k;
      s.seats[static_cast<size_t>(seat)] = kinds_[k];
      s.seat_rngs[static_cast<size_t>(seat)] = Pcg64::from_seed(draw.below(uint64_t{1} << 63));
    }
    s.margin = 0.0;
  }

  void play_opponents(Slot& s) {
    uint8_t mask[G::kNumActions];
    int legal[G::kNumActions];
    while (!s.game.is_over()) {
      const int seat = s.game.current_player();
      if (seat == s.learner) return;
      s.game.legal_actions(mask);
      int count = 0;
      for (int a = 0; a < G::kNumActions; ++a)
        if (mask[a] != 0) legal[count++] = a;
      if (count == 0) throw std::logic_error(std::string(G::kName) + ": a seat to move has no legal action");
      Random rng(s.seat_rngs[static_cast<size_t>(seat)]);
      int action = legal[0];
      if (s.seats[static_cast<size_t>(seat)] == SeatKind::kRandom) action = legal[rng.integers(count)];
      else if (count > 1) action = s.game.heuristic(seat, legal, count, rng);
      play(s, action);
    }
  }

  // Game.returns()[learner] (winners share +1, the others -1; 0 when every seat won); `share` gets the
  // learner's share of the win (1 / number of winners, or 0).
  double learner_return(const Slot& s, double& share) const {
    winners_.clear();
    s.game.winners(winners_);
    bool won = false;
    for (int seat : winners_) won = won || seat == s.learner;
    const auto count = static_cast<int>(winners_.size());
    share = won ? 1.0 / count : 0.0;
    if (count == num_players_) return 0.0;
    return won ? 1.0 / count : -1.0 / (num_players_ - count);
  }

  // The learner's score minus the mean (`score`) or best (`lead`) opponent score.
  double margin_of(const Slot& s) const {
    double scores[G::kMaxPlayers];
    s.game.scores(scores);
    double rest = 0.0, best = 0.0;
    bool first = true;
    for (int seat = 0; seat < num_players_; ++seat) {
      if (seat == s.learner) continue;
      const double value = scores[seat];
      best = first || value > best ? value : best;
      rest = first ? value : rest + value;
      first = false;
    }
    return scores[s.learner] - (reward_ == BatchReward::kLead ? best : rest / (num_players_ - 1));
  }

  void write(int i, float* observations, bool* masks) const {
    const Slot& s = slot(i);
    s.game.observation(s.learner, observations + static_cast<size_t>(i) * G::kObservationSize);
    bool* row = masks + static_cast<size_t>(i) * G::kNumActions;
    for (int a = 0; a < G::kNumActions; ++a) row[a] = s.legal[static_cast<size_t>(a)] != 0;
  }

  int num_players_;
  json::Value options_;
  uint64_t first_index_;
  std::vector<SeatKind> kinds_;
  std::vector<double> cdf_;
  BatchReward reward_;
  double score_scale_;
  std::vector<Slot> slots_;
  mutable std::vector<int> winners_;
  std::atomic<bool> busy_{false};
};

}  // namespace city_envs::native
