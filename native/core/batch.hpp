// `Batch<G>`: N training matches of one game and player count, the learner's seat against native random
// or heuristic opponents and snapshot (network) opponents, stepped together (bound as `<Game>Batch` by
// binding.hpp, wrapped by city_envs/core/vector.py).
//
// A batch plays what training/vec_env.py's SelfPlayVecEnv plays with the same opponent pool, decision
// for decision. Slot i's identity is index = first_index + i; its generator is
// `default_rng([seed, index])`. Its k-th match (k = 0, 1, ...):
//   - seats the learner at (k + index) % players;
//   - is dealt from `default_rng(rng.integers(2**63))`;
//   - gives each other seat, in seat order, an opponent as OpponentPool.draw does: the kind is the first
//     whose cumulative weight (`cdf`, computed by the caller with numpy) exceeds rng.random(), the
//     opponent's own generator is `default_rng(rng.integers(2**63))`, and a snapshot opponent's
//     snapshot is `snapshots[rng.integers(len(snapshots))]` (the pool's current ones, `set_pool`).
// A random opponent plays legal[rng.integers(count)] (RandomAgent), a heuristic one the game's heuristic
// (HeuristicAgent: no draw when one action is legal), a snapshot one samples the caller's probabilities
// as pick_action's rng.choice(len(p), p=p) does, each from its own generator.
//
// A step applies each slot's learner action, plays the opponents until the learner is to move again or
// the match is over, rewards the learner, and replaces a finished match at once (again while the
// opponents end the new one before the learner's first decision). The opponents play in SelfPlayVecEnv's
// rounds (its `_opponent_moves`): each round moves every pending match once, and the matches whose seat
// to move is a snapshot are handed to the caller as requests (slot, seat, snapshot, observation, mask);
// the caller answers with each request's probabilities (one forward pass per snapshot over its rows, on
// the same rows SelfPlayVecEnv evaluates together) and the step goes on. A match without snapshot seats
// asks nothing, so it plays all its opponents' moves in the round it is pending.
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

enum class SeatKind : int8_t { kLearner, kHeuristic, kRandom, kSnapshot };
enum class BatchReward : int8_t { kWin, kScore, kLead };

inline const char* seat_kind_name(SeatKind kind) {
  switch (kind) {
    case SeatKind::kLearner: return "learner";
    case SeatKind::kHeuristic: return "heuristic";
    case SeatKind::kRandom: return "random";
    default: return "self";
  }
}

inline SeatKind seat_kind(const std::string& name) {
  if (name == "learner") return SeatKind::kLearner;
  if (name == "heuristic") return SeatKind::kHeuristic;
  if (name == "random") return SeatKind::kRandom;
  if (name == "self") return SeatKind::kSnapshot;
  throw std::invalid_argument("unknown seat kind '" + name + "'; allowed: learner, heuristic, random, self");
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
  std::array<int64_t, G::kMaxPlayers> snapshots{};  // a snapshot seat's snapshot id (the caller's), else -1
  bool asks = false;                                 // some seat is a snapshot
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

// Where a round's snapshot requests go, one row per request (the caller's arrays of num_envs rows).
struct BatchRequests {
  int64_t* slots;
  int64_t* seats;
  int64_t* snapshots;
  float* observations;  // the seat's observation
  bool* masks;          // its legal actions
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
  // Whether a step or reset waits on the answers to its snapshot requests.
  bool asking() const { return !requests_.empty(); }
  int requests() const { return static_cast<int>(requests_.size()); }
  const Slot& slot(int i) const { return slots_[static_cast<size_t>(i)]; }
  Slot& slot(int i) { return slots_[static_cast<size_t>(i)]; }

  // Set while a thread steps or resets the batch: a second thread is refused, not raced.
  std::atomic<bool>& busy() { return busy_; }

  // The opponent kinds and cumulative weights new matches draw from, and the pool's snapshot ids (drawn
  // uniformly for a snapshot seat); checked by the binding.
  void set_pool(std::vector<SeatKind> kinds, std::vector<double> cdf, std::vector<int64_t> snapshots) {
    kinds_ = std::move(kinds);
    cdf_ = std::move(cdf);
    snapshots_ = std::move(snapshots);
  }
  bool draws_snapshots() const {
    for (size_t k = 0; k < kinds_.size(); ++k)
      if (kinds_[k] == SeatKind::kSnapshot && cdf_[k] > (k == 0 ? 0.0 : cdf_[k - 1])) return true;
    return false;
  }

  // Every slot's new match, played up to its learner's first decision; returns the first round's
  // snapshot requests (0: done).
  int reset(const BatchOut& out, const BatchRequests& requests) {
    abandon();
    group_.clear();
    for (int i = 0; i < num_envs(); ++i) {
      new_match(slot(i), i);
      group_.push_back(i);
    }
    stage_ = Stage::kRestart;
    begin_rounds();
    return advance(out, requests);
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

  // Every slot's learner plays its (legal) action; see the header comment. Returns the first round's
  // snapshot requests (0: the step is done).
  int step(const int64_t* actions, const BatchOut& out, const BatchRequests& requests) {
    group_.clear();
    for (int i = 0; i < num_envs(); ++i) {
      Slot& s = slot(i);
      s.ready = false;  // until it waits on its learner again (a fault midway leaves the batch to reset)
      play(s, static_cast<int>(actions[i]));
      group_.push_back(i);
    }
    stage_ = Stage::kReply;
    begin_rounds();
    return advance(out, requests);
  }

  // The first request whose probabilities are not a distribution over its seat's legal actions (as
  // rng.choice checks them: finite, >= 0, summing to 1 within float32's tolerance), or -1.
  int first_bad_answer(const float* probabilities) const {
    uint8_t mask[G::kNumActions];
    for (size_t r = 0; r < requests_.size(); ++r) {
      const float* row = probabilities + r * G::kNumActions;
      slot(requests_[r].first).game.legal_actions(mask);
      double total = 0.0;
      for (int a = 0; a < G::kNumActions; ++a) {
        const double p = row[a];
        if (!(p >= 0.0 && p <= 1.0) || (p > 0.0 && mask[a] == 0)) return static_cast<int>(r);
        total += p;
      }
      if (!(total > 1.0 - kSumTolerance && total < 1.0 + kSumTolerance)) return static_cast<int>(r);
    }
    return -1;
  }

  // Each request's seat plays an action sampled from its row of `probabilities` (checked by
  // `first_bad_answer`), then the step goes on; returns the next round's requests (0: done).
  int answer(const float* probabilities, const BatchOut& out, const BatchRequests& requests) {
    for (size_t r = 0; r < requests_.size(); ++r) {
      Slot& s = slot(requests_[r].first);
      Random rng(s.seat_rngs[static_cast<size_t>(requests_[r].second)]);
      play(s, sample(probabilities + r * G::kNumActions, rng));
    }
    requests_.clear();
    end_round();
    return advance(out, requests);
  }

 private:
  enum class Stage : int8_t { kReply, kRestart };
  // numpy's tolerance on a float32 distribution's sum: sqrt(float32 epsilon)
  static constexpr double kSumTolerance = 3.4526698300124393e-04;

  // rng.choice(len(p), p=p) for float32 probabilities: their float64 cumulative sums over the last,
  // then the first index whose sum exceeds rng.random() (searchsorted, side "right").
  static int sample(const float* p, Random& rng) {
    double cdf[G::kNumActions];
    double total = 0.0;
    for (int a = 0; a < G::kNumActions; ++a) cdf[a] = total += static_cast<double>(p[a]);
    const double last = cdf[G::kNumActions - 1];
    for (double& value : cdf) value /= last;
    const double u = rng.random();
    int a = 0;
    while (a + 1 < G::kNumActions && !(cdf[a] > u)) ++a;
    return a;
  }

  void play(Slot& s, int action) {
    Random chance(s.chance);
    s.game.apply(action, chance);
    s.history.push_back(static_cast<int32_t>(action));
  }

  // A reset or step left midway (a fault, or requests never answered) is dropped.
  void abandon() {
    requests_.clear();
    pending_.clear();
  }

  // SelfPlayVecEnv._opponent_moves over `group_`: its matches with an opponent to move.
  void begin_rounds() {
    pending_.clear();
    for (int i : group_)
      if (opponent_to_move(slot(i))) pending_.push_back(i);
  }
  void end_round() {
    size_t kept = 0;
    for (int i : pending_)
      if (opponent_to_move(slot(i))) pending_[kept++] = i;
    pending_.resize(kept);
  }
  bool opponent_to_move(const Slot& s) const { return !s.game.is_over() && s.game.current_player() != s.learner; }

  // Rounds until one asks for snapshot moves (returns their count) or the reset or step is done (0).
  int advance(const BatchOut& out, const BatchRequests& requests) {
    for (;;) {
      while (!pending_.empty()) {
        for (int i : pending_) {
          Slot& s = slot(i);
          if (!s.asks) {
            play_opponents(s);
            continue;
          }
          const int seat = s.game.current_player();
          if (s.seats[static_cast<size_t>(seat)] == SeatKind::kSnapshot) ask(i, seat, requests);
          else play_native(s, seat);
        }
        if (!requests_.empty()) return static_cast<int>(requests_.size());
        end_round();
      }
      if (!next_stage(out)) return 0;
    }
  }

  void ask(int i, int seat, const BatchRequests& requests) {
    const Slot& s = slot(i);
    const size_t r = requests_.size();
    requests_.emplace_back(i, seat);
    requests.slots[r] = i;
    requests.seats[r] = seat;
    requests.snapshots[r] = s.snapshots[static_cast<size_t>(seat)];
    s.game.observation(seat, requests.observations + r * G::kObservationSize);
    uint8_t mask[G::kNumActions];
    s.game.legal_actions(mask);
    bool* row = requests.masks + r * G::kNumActions;
    for (int a = 0; a < G::kNumActions; ++a) row[a] = mask[a] != 0;
  }

  // What SelfPlayVecEnv does once a `_opponent_moves` call is over: after the learners' moves, the
  // rewards, then new matches for the finished slots; after new matches, new ones again for those
  // already over; else the step is done (false), with every learner's observation and mask written.
  bool next_stage(const BatchOut& out) {
    if (stage_ == Stage::kReply) {
      settle(out);
      stage_ = Stage::kRestart;
    } else {
      size_t kept = 0;
      for (int i : group_)
        if (slot(i).game.is_over()) group_[kept++] = i;
      group_.resize(kept);
    }
    if (group_.empty()) {
      for (int i = 0; i < num_envs(); ++i) {
        mark_ready(slot(i));
        write(i, out.observations, out.masks);
      }
      return false;
    }
    for (int i : group_) new_match(slot(i), i);
    begin_rounds();
    return true;
  }

  // The learners' rewards and the finished matches' results; `group_` becomes the finished slots.
  void settle(const BatchOut& out) {
    group_.clear();
    for (int i = 0; i < num_envs(); ++i) {
      Slot& s = slot(i);
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
        group_.push_back(i);
      }
      out.rewards[i] = reward;
    }
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
    s.asks = false;
    for (int seat = 0; seat < num_players_; ++seat) {
      const auto at = static_cast<size_t>(seat);
      s.snapshots[at] = -1;
      if (seat == s.learner) {
        s.seats[at] = SeatKind::kLearner;
        continue;
      }
      const double u = draw.random();  // rng.choice(len(kinds), p=...): cdf.searchsorted(u, side="right")
      size_t k = 0;
      while (k + 1 < cdf_.size() && !(cdf_[k] > u)) ++k;
      s.seats[at] = kinds_[k];
      s.seat_rngs[at] = Pcg64::from_seed(draw.below(uint64_t{1} << 63));
      if (kinds_[k] == SeatKind::kSnapshot) {
        s.snapshots[at] = snapshots_[static_cast<size_t>(draw.integers(static_cast<int64_t>(snapshots_.size())))];
        s.asks = true;
      }
    }
    s.margin = 0.0;
    s.ready = false;
  }

  // One move of the native opponent at `seat`.
  void play_native(Slot& s, int seat) {
    uint8_t mask[G::kNumActions];
    int legal[G::kNumActions];
    s.game.legal_actions(mask);
    const int count = legal_ids(mask, G::kNumActions, legal);
    if (count == 0) throw std::logic_error(std::string(G::kName) + ": a seat to move has no legal action");
    Random rng(s.seat_rngs[static_cast<size_t>(seat)]);
    int action = legal[0];
    if (s.seats[static_cast<size_t>(seat)] == SeatKind::kRandom) action = legal[rng.integers(count)];
    else if (count > 1) action = s.game.heuristic(seat, legal, count, rng);
    play(s, action);
  }

  // Every opponent move of a match without snapshot seats, until its learner is to move or it is over.
  void play_opponents(Slot& s) {
    while (opponent_to_move(s)) play_native(s, s.game.current_player());
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
  std::vector<int64_t> snapshots_;
  BatchReward reward_;
  double score_scale_;
  std::vector<Slot> slots_;
  Stage stage_ = Stage::kRestart;
  std::vector<int> group_;    // the slots of the current `_opponent_moves` call
  std::vector<int> pending_;  // those of its matches with an opponent to move
  std::vector<std::pair<int, int>> requests_;  // the current round's snapshot requests: (slot, seat)
  mutable std::vector<int> winners_;
  std::atomic<bool> busy_{false};
};

}  // namespace city_envs::native
