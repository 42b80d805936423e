// `bind_game<G>`: one Python class per native game, the same members for every game.
//
// A `Match<G>` is a game state, its match generator, its history and its legal set (computed once per
// state, forgotten by every change). Observations and masks are written into caller-owned numpy
// buffers; every argument is checked here (sizes, ranges, legality) so nothing unchecked reaches the
// game's code, and faults surface as ValueError.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "batch.hpp"
#include "game.hpp"
#include "ismcts.hpp"
#include "json.hpp"
#include "random.hpp"

namespace city_envs::native {

namespace nb = nanobind;

// A match generator's state as six integers: state (high, low), inc (high, low), has_uint32, uinteger.
using RngWords = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, bool, uint32_t>;

inline Pcg64 pcg64_from_words(const RngWords& words) {
  Pcg64 bits;
  bits.state = (static_cast<uint128>(std::get<0>(words)) << 64) | std::get<1>(words);
  bits.inc = (static_cast<uint128>(std::get<2>(words)) << 64) | std::get<3>(words);
  bits.has_uint32 = std::get<4>(words);
  bits.uinteger = std::get<5>(words);
  if ((bits.inc & 1U) == 0U) throw std::invalid_argument("rng: a PCG64 increment is odd");
  return bits;
}

inline RngWords pcg64_words(const Pcg64& bits) {
  return {static_cast<uint64_t>(bits.state >> 64), static_cast<uint64_t>(bits.state),
          static_cast<uint64_t>(bits.inc >> 64),   static_cast<uint64_t>(bits.inc),
          bits.has_uint32,                          bits.uinteger};
}

// A numpy bit generator's C interface, from `bit_generator.capsule`.
inline NumpyBitGen* numpy_bitgen(const nb::capsule& capsule) {
  const char* name = capsule.name();
  if (name == nullptr || std::strcmp(name, "BitGenerator") != 0)
    throw std::invalid_argument("rng: expected a numpy bit generator's capsule");
  return static_cast<NumpyBitGen*>(capsule.data());
}

// The pending decision's legal actions: a mask and the legal ids ascending, or unknown (count < 0).
// A copy copies only what is known.
template <int N>
struct LegalSet {
  int count = -1;
  std::array<uint8_t, N> mask;
  std::array<int, N> ids;

  LegalSet() = default;
  LegalSet(const LegalSet& other) { *this = other; }
  LegalSet& operator=(const LegalSet& other) {
    count = other.count;
    if (count >= 0) {
      mask = other.mask;
      std::copy_n(other.ids.data(), count, ids.data());
    }
    return *this;
  }
};

// A match: the game state, its match generator, its history, and the pending decision's legal set,
// computed once per state (a clone carries it). The state changes only through `edit()` and `play()`,
// which forget the legal set, so a stale one is never read. The first read after a change fills it:
// one thread at a time per match.
template <class G>
class Match {
 public:
  Pcg64 rng;
  int num_players = 0;
  std::vector<int32_t> history;

  const G& game() const { return game_; }
  // The state, to change: its legal set is forgotten.
  G& edit() {
    legal_.count = -1;
    return game_;
  }
  // Play `action`, legal here, drawing chance from the match generator; record it in the history.
  void play(int action) {
    Random chance(rng);
    edit().apply(action, chance);
    history.push_back(static_cast<int32_t>(action));
  }

  // 1 where an action is legal, else 0 (all 0 once the match is over): kNumActions entries.
  const uint8_t* legal_mask() const { return known().mask.data(); }
  // The legal ids ascending, `legal_count()` of them.
  const int* legal_ids() const { return known().ids.data(); }
  int legal_count() const { return known().count; }
  bool is_legal(int64_t action) const { return action >= 0 && action < G::kNumActions && legal_mask()[action] != 0; }

 private:
  const LegalSet<G::kNumActions>& known() const {
    if (legal_.count < 0) {
      if (game_.is_over()) legal_.mask.fill(0);
      else game_.legal_actions(legal_.mask.data());
      // the ids a word of the mask at a time (most of it is zeros), then each legal entry made 1
      const int count = native::legal_ids(legal_.mask.data(), G::kNumActions, legal_.ids.data());
      for (int k = 0; k < count; ++k) legal_.mask[static_cast<size_t>(legal_.ids[static_cast<size_t>(k)])] = 1;
      legal_.count = count;
    }
    return legal_;
  }

  G game_;
  mutable LegalSet<G::kNumActions> legal_;
};

template <class G>
int checked_players(int num_players) {
  if (num_players < G::kMinPlayers || num_players > G::kMaxPlayers)
    throw std::invalid_argument(std::string(G::kName) + " supports " + std::to_string(G::kMinPlayers) + "-" +
                                std::to_string(G::kMaxPlayers) + " players, not " + std::to_string(num_players));
  return num_players;
}

template <class G>
int checked_seat(const Match<G>& match, int player) {
  if (player < 0 || player >= match.num_players)
    throw std::invalid_argument("player " + std::to_string(player) + " is not a seat of this match");
  return player;
}

// Whether G has the game's heuristic agent in C++: `int heuristic(int player, const int* legal, int count,
// Random& rng) const`, the pick of `agents/<game>_heuristic.py` among `count` >= 2 legal ids (ascending),
// reading only what `player` may know and drawing ties from rng as the Python agent draws from its own.
template <class G, class = void>
struct has_heuristic : std::false_type {};
template <class G>
struct has_heuristic<G, std::void_t<decltype(std::declval<const G&>().heuristic(
                            0, static_cast<const int*>(nullptr), 0, std::declval<Random&>()))>> : std::true_type {};

// ----- the batched vector env: `<Game>Batch` over `Batch<G>` (batch.hpp) ---------------------------------
//
// Observations, masks, rewards, flags and snapshot requests are written into the caller's arrays (checked
// here: dtype, shape, contiguity, and never converted: a converted copy would take the writes); an illegal
// action is a ValueError naming its slot, bad snapshot probabilities one naming the request, and nothing
// is played then. `reset`, `step` and `answer` run with the GIL released; a second thread stepping the
// same batch is refused.
template <class G>
void bind_batch(nb::module_& m, const std::string& class_name) {
  using B = Batch<G>;
  using M = Match<G>;
  using Rows = nb::ndarray<float, nb::numpy, nb::shape<-1, G::kObservationSize>, nb::c_contig, nb::device::cpu>;
  using Masks = nb::ndarray<bool, nb::numpy, nb::shape<-1, G::kNumActions>, nb::c_contig, nb::device::cpu>;
  using Probabilities =
      nb::ndarray<const float, nb::numpy, nb::shape<-1, G::kNumActions>, nb::c_contig, nb::device::cpu>;
  using Actions = nb::ndarray<const int64_t, nb::numpy, nb::shape<-1>, nb::c_contig, nb::device::cpu>;
  using Ids = nb::ndarray<int64_t, nb::numpy, nb::shape<-1>, nb::c_contig, nb::device::cpu>;
  using Floats = nb::ndarray<float, nb::numpy, nb::shape<-1>, nb::c_contig, nb::device::cpu>;
  using Doubles = nb::ndarray<double, nb::numpy, nb::shape<-1>, nb::c_contig, nb::device::cpu>;
  using Flags = nb::ndarray<bool, nb::numpy, nb::shape<-1>, nb::c_contig, nb::device::cpu>;

  struct Busy {  // marks the batch as in use for one call, or refuses the call
    std::atomic<bool>& flag;
    explicit Busy(B& batch) : flag(batch.busy()) {
      if (flag.exchange(true)) throw std::invalid_argument("the batch is in use by another thread");
    }
    ~Busy() { flag.store(false); }
  };
  auto rows = [](const B& self, size_t count, const char* what) {
    if (count != static_cast<size_t>(self.num_envs()))
      throw std::invalid_argument(std::string(what) + " has " + std::to_string(count) + " rows, not num_envs (" +
                                  std::to_string(self.num_envs()) + ")");
  };
  auto slot_of = [](const B& self, int i) {
    if (i < 0 || i >= self.num_envs())
      throw std::invalid_argument("slot " + std::to_string(i) + " is not in 0.." + std::to_string(self.num_envs() - 1));
    return i;
  };
  // The arrays a reset, step or answer writes, each checked to have num_envs rows.
  struct Arrays {
    BatchOut out;
    BatchRequests requests;
  };
  auto arrays = [rows](const B& self, Rows observations, Masks masks, Floats rewards, Flags terminated,
                       Flags truncated, Rows final_observations, Doubles wins, Ids request_slots, Ids request_seats,
                       Ids request_snapshots, Rows request_observations, Masks request_masks) {
    rows(self, observations.shape(0), "observations");
    rows(self, masks.shape(0), "masks");
    rows(self, rewards.shape(0), "rewards");
    rows(self, terminated.shape(0), "terminated");
    rows(self, truncated.shape(0), "truncated");
    rows(self, final_observations.shape(0), "final_observations");
    rows(self, wins.shape(0), "wins");
    rows(self, request_slots.shape(0), "request_slots");
    rows(self, request_seats.shape(0), "request_seats");
    rows(self, request_snapshots.shape(0), "request_snapshots");
    rows(self, request_observations.shape(0), "request_observations");
    rows(self, request_masks.shape(0), "request_masks");
    return Arrays{BatchOut{observations.data(), masks.data(), rewards.data(), terminated.data(), truncated.data(),
                           final_observations.data(), wins.data()},
                  BatchRequests{request_slots.data(), request_seats.data(), request_snapshots.data(),
                                request_observations.data(), request_masks.data()}};
  };
  // The opponent kinds with their cumulative weights, checked; a snapshot kind of positive weight needs
  // at least one snapshot id (>= 0).
  auto pool = [](const std::vector<std::string>& kinds, const std::vector<double>& cdf,
                 const std::vector<int64_t>& snapshots) {
    if (kinds.empty() || kinds.size() != cdf.size())
      throw std::invalid_argument("kinds and cdf: one cumulative weight per opponent kind, at least one");
    std::vector<SeatKind> seats;
    double previous = 0.0;
    for (size_t k = 0; k < kinds.size(); ++k) {
      const SeatKind kind = seat_kind(kinds[k]);
      if (kind == SeatKind::kLearner) throw std::invalid_argument("kinds: 'learner' is not an opponent kind");
      if (!(cdf[k] >= previous && cdf[k] <= 1.0)) throw std::invalid_argument("cdf: cumulative weights rise from 0 to 1");
      if (kind == SeatKind::kSnapshot && cdf[k] > previous && snapshots.empty())
        throw std::invalid_argument("kinds: 'self' has a weight but there is no snapshot to draw");
      previous = cdf[k];
      seats.push_back(kind);
    }
    if (cdf.back() != 1.0) throw std::invalid_argument("cdf: the last cumulative weight is 1");
    for (int64_t id : snapshots)
      if (id < 0) throw std::invalid_argument("snapshots: ids are >= 0");
    return seats;
  };
  const char* arrays_doc =
      "; the arrays: observations, masks, rewards, terminated, truncated, final_observations, wins (num_envs "
      "rows each) and the requests' slots, seats, snapshots, observations and masks. Returns the number of "
      "snapshot requests written (their first rows), which `answer` must answer: 0 when the call is done.";

  nb::class_<B>(m, class_name.c_str())
      .def(
          "__init__",
          [pool](B* self, int num_players, const std::string& options, uint64_t seed, uint64_t first_index,
                 int num_envs, const std::vector<std::string>& kinds, const std::vector<double>& cdf,
                 const std::string& reward, double score_scale) {
            checked_players<G>(num_players);
            if (num_envs < 1 || num_envs > (1 << 20))
              throw std::invalid_argument("num_envs must be in 1..1048576, not " + std::to_string(num_envs));
            if (first_index > 0xFFFFFFFFULL) throw std::invalid_argument("first_index must be below 2**32");
            std::vector<SeatKind> seats = pool(kinds, cdf, {});
            BatchReward kind = BatchReward::kWin;
            if (reward == "score") kind = BatchReward::kScore;
            else if (reward == "lead") kind = BatchReward::kLead;
            else if (reward != "win") throw std::invalid_argument("invalid reward '" + reward + "'; allowed: win, score, lead");
            if (!(score_scale > -1e300 && score_scale < 1e300)) throw std::invalid_argument("score_scale must be finite");
            new (self) B(num_players, json::Reader::parse(options), seed, first_index, num_envs, std::move(seats), cdf,
                         kind, score_scale);
          },
          nb::arg("num_players"), nb::arg("options"), nb::arg("seed"), nb::arg("first_index"), nb::arg("num_envs"),
          nb::arg("kinds"), nb::arg("cdf"), nb::arg("reward"), nb::arg("score_scale"),
          "num_envs slots (see batch.hpp): options as JSON, opponents of `kinds` ('self', 'heuristic', 'random') "
          "drawn by their cumulative weights `cdf` ('self' at weight 0 until `set_pool` gives snapshots), rewards "
          "'win', 'score' or 'lead'.")
      .def_prop_ro("num_envs", &B::num_envs)
      .def_prop_ro("num_players", &B::num_players)
      .def(
          "set_pool",
          [pool](B& self, const std::vector<std::string>& kinds, const std::vector<double>& cdf,
                 const std::vector<int64_t>& snapshots) {
            std::vector<SeatKind> seats = pool(kinds, cdf, snapshots);
            Busy busy(self);
            self.set_pool(std::move(seats), cdf, snapshots);
          },
          nb::arg("kinds"), nb::arg("cdf"), nb::arg("snapshots"),
          "The kinds and cumulative weights the next matches draw their opponents from, and the snapshot ids a "
          "'self' seat draws uniformly.")
      .def(
          "reset",
          [arrays](B& self, Rows observations, Masks masks, Floats rewards, Flags terminated, Flags truncated,
                   Rows final_observations, Doubles wins, Ids request_slots, Ids request_seats, Ids request_snapshots,
                   Rows request_observations, Masks request_masks) {
            const Arrays to = arrays(self, observations, masks, rewards, terminated, truncated, final_observations,
                                     wins, request_slots, request_seats, request_snapshots, request_observations,
                                     request_masks);
            Busy busy(self);
            nb::gil_scoped_release release;
            return self.reset(to.out, to.requests);
          },
          nb::arg("observations").noconvert(), nb::arg("masks").noconvert(), nb::arg("rewards").noconvert(),
          nb::arg("terminated").noconvert(), nb::arg("truncated").noconvert(),
          nb::arg("final_observations").noconvert(), nb::arg("wins").noconvert(), nb::arg("request_slots").noconvert(),
          nb::arg("request_seats").noconvert(), nb::arg("request_snapshots").noconvert(),
          nb::arg("request_observations").noconvert(), nb::arg("request_masks").noconvert(),
          (std::string("Start every slot's next match (a reset or step left midway is dropped) and play it up to "
                       "its learner's first decision, writing the learners' observations and legal masks") +
           arrays_doc)
              .c_str())
      .def(
          "step",
          [rows, arrays](B& self, Actions actions, Rows observations, Masks masks, Floats rewards, Flags terminated,
                         Flags truncated, Rows final_observations, Doubles wins, Ids request_slots, Ids request_seats,
                         Ids request_snapshots, Rows request_observations, Masks request_masks) {
            rows(self, actions.shape(0), "actions");
            const Arrays to = arrays(self, observations, masks, rewards, terminated, truncated, final_observations,
                                     wins, request_slots, request_seats, request_snapshots, request_observations,
                                     request_masks);
            if (self.asking()) throw std::invalid_argument("answer the snapshot requests before the next step");
            if (!self.ready()) throw std::invalid_argument("reset the batch before stepping it");
            Busy busy(self);
            int illegal = -1;
            int asked = 0;
            {
              nb::gil_scoped_release release;
              illegal = self.first_illegal(actions.data());
              if (illegal < 0) asked = self.step(actions.data(), to.out, to.requests);
            }
            if (illegal >= 0)
              throw std::invalid_argument("slot " + std::to_string(illegal) + ": action " +
                                          std::to_string(actions.data()[illegal]) +
                                          " is not legal for its learner (nothing was played)");
            return asked;
          },
          nb::arg("actions").noconvert(), nb::arg("observations").noconvert(), nb::arg("masks").noconvert(),
          nb::arg("rewards").noconvert(), nb::arg("terminated").noconvert(), nb::arg("truncated").noconvert(),
          nb::arg("final_observations").noconvert(), nb::arg("wins").noconvert(), nb::arg("request_slots").noconvert(),
          nb::arg("request_seats").noconvert(), nb::arg("request_snapshots").noconvert(),
          nb::arg("request_observations").noconvert(), nb::arg("request_masks").noconvert(),
          (std::string("Play each slot's learner action (int64, one per slot) and its opponents' replies; write the "
                       "results (final_observations and wins: the rows of the finished slots, whose next match has "
                       "started)") +
           arrays_doc)
              .c_str())
      .def(
          "answer",
          [arrays](B& self, Probabilities probabilities, Rows observations, Masks masks, Floats rewards,
                   Flags terminated, Flags truncated, Rows final_observations, Doubles wins, Ids request_slots,
                   Ids request_seats, Ids request_snapshots, Rows request_observations, Masks request_masks) {
            const Arrays to = arrays(self, observations, masks, rewards, terminated, truncated, final_observations,
                                     wins, request_slots, request_seats, request_snapshots, request_observations,
                                     request_masks);
            if (!self.asking()) throw std::invalid_argument("the batch asks for no snapshot moves");
            if (probabilities.shape(0) < static_cast<size_t>(self.requests()))
              throw std::invalid_argument("probabilities has " + std::to_string(probabilities.shape(0)) +
                                          " rows, fewer than the " + std::to_string(self.requests()) + " requests");
            Busy busy(self);
            int bad = -1;
            int asked = 0;
            {
              nb::gil_scoped_release release;
              bad = self.first_bad_answer(probabilities.data());
              if (bad < 0) asked = self.answer(probabilities.data(), to.out, to.requests);
            }
            if (bad >= 0)
              throw std::invalid_argument("request " + std::to_string(bad) +
                                          ": the probabilities are not a distribution over its seat's legal actions "
                                          "(nothing was played)");
            return asked;
          },
          nb::arg("probabilities").noconvert(), nb::arg("observations").noconvert(), nb::arg("masks").noconvert(),
          nb::arg("rewards").noconvert(), nb::arg("terminated").noconvert(), nb::arg("truncated").noconvert(),
          nb::arg("final_observations").noconvert(), nb::arg("wins").noconvert(), nb::arg("request_slots").noconvert(),
          nb::arg("request_seats").noconvert(), nb::arg("request_snapshots").noconvert(),
          nb::arg("request_observations").noconvert(), nb::arg("request_masks").noconvert(),
          (std::string("Each request's seat samples its action from its row of `probabilities` (float32, one row "
                       "per request), then the reset or step goes on") +
           arrays_doc)
              .c_str())
      .def(
          "match",
          [slot_of](B& self, int i) {
            Busy busy(self);
            const auto& s = self.slot(slot_of(self, i));
            M match;
            match.edit() = s.game;
            match.rng = s.chance;
            match.num_players = self.num_players();
            match.history = s.history;
            return match;
          },
          nb::arg("slot"), "A copy of the slot's match.")
      .def(
          "slot_state",
          [slot_of](B& self, int i) {
            Busy busy(self);
            const auto& s = self.slot(slot_of(self, i));
            std::vector<std::string> kinds;
            std::vector<RngWords> rngs;
            std::vector<int64_t> snapshots;
            for (int seat = 0; seat < self.num_players(); ++seat) {
              kinds.emplace_back(seat_kind_name(s.seats[static_cast<size_t>(seat)]));
              rngs.push_back(pcg64_words(s.seat_rngs[static_cast<size_t>(seat)]));
              snapshots.push_back(s.snapshots[static_cast<size_t>(seat)]);
            }
            return std::make_tuple(pcg64_words(s.rng), s.learner, s.episodes, s.margin, kinds, rngs, snapshots);
          },
          nb::arg("slot"),
          "The slot's generator, learner seat, matches started, margin, seat kinds, seat generators and seat "
          "snapshot ids (-1: not a snapshot).")
      .def(
          "set_slot",
          [slot_of](B& self, int i, const M& match, const RngWords& rng, int learner, int64_t episodes, double margin,
                    const std::vector<std::string>& kinds, const std::vector<RngWords>& rngs,
                    const std::vector<int64_t>& snapshots) {
            Busy busy(self);
            auto& s = self.slot(slot_of(self, i));
            const int players = self.num_players();
            if (self.asking()) throw std::invalid_argument("answer the snapshot requests before restoring a slot");
            if (match.num_players != players)
              throw std::invalid_argument("the match has " + std::to_string(match.num_players) + " players, not " +
                                          std::to_string(players));
            if (learner < 0 || learner >= players) throw std::invalid_argument("learner is not a seat of this match");
            if (match.game().is_over() || match.game().current_player() != learner)
              throw std::invalid_argument("the match must wait on its learner's decision");
            if (episodes < 1) throw std::invalid_argument("episodes must be at least 1");
            if (!(margin > -1e300 && margin < 1e300)) throw std::invalid_argument("margin must be finite");
            if (kinds.size() != static_cast<size_t>(players) || rngs.size() != static_cast<size_t>(players) ||
                snapshots.size() != static_cast<size_t>(players))
              throw std::invalid_argument("kinds, rngs and snapshots: one per seat");
            BatchSlot<G> next;
            for (int seat = 0; seat < players; ++seat) {
              const auto at = static_cast<size_t>(seat);
              const SeatKind kind = seat_kind(kinds[at]);
              if ((kind == SeatKind::kLearner) != (seat == learner))
                throw std::invalid_argument("kinds: the learner's seat and only it is 'learner'");
              if ((kind == SeatKind::kSnapshot) != (snapshots[at] >= 0))
                throw std::invalid_argument("snapshots: an id >= 0 for each 'self' seat and -1 for the others");
              next.seats[at] = kind;
              next.seat_rngs[at] = pcg64_from_words(rngs[at]);
              next.snapshots[at] = snapshots[at];
              next.asks = next.asks || kind == SeatKind::kSnapshot;
            }
            next.game = match.game();
            next.chance = match.rng;
            next.history = match.history;
            next.rng = pcg64_from_words(rng);
            next.learner = learner;
            next.episodes = episodes;
            next.margin = margin;
            B::mark_ready(next);
            s = std::move(next);
          },
          nb::arg("slot"), nb::arg("match"), nb::arg("rng"), nb::arg("learner"), nb::arg("episodes"),
          nb::arg("margin"), nb::arg("kinds"), nb::arg("rngs"), nb::arg("snapshots"),
          "Restore a slot as `match` and `slot_state` describe it.");
}

template <class G>
void bind_game(nb::module_& m, const char* class_name) {
  using M = Match<G>;
  using Obs = nb::ndarray<float, nb::numpy, nb::shape<G::kObservationSize>, nb::c_contig, nb::device::cpu>;

  nb::class_<M> cls(m, class_name);
  cls.def_ro_static("name", &G::kName)
      .def_ro_static("num_actions", &G::kNumActions)
      .def_ro_static("observation_size", &G::kObservationSize)
      .def(
          "__init__",
          [](M* self, int num_players, const std::string& options, const RngWords& rng) {
            new (self) M();
            self->num_players = checked_players<G>(num_players);
            self->rng = pcg64_from_words(rng);
            Random chance(self->rng);
            self->edit().setup(num_players, json::Reader::parse(options), chance);
          },
          nb::arg("num_players"), nb::arg("options"), nb::arg("rng"),
          "A new match: the options as JSON, the match generator's PCG64 state as six words.")
      .def_static(
          "from_json",
          [](int num_players, const std::string& options, const std::string& state, const RngWords& rng,
             const std::vector<int32_t>& history) {
            M match;
            match.num_players = checked_players<G>(num_players);
            match.rng = pcg64_from_words(rng);
            for (int32_t action : history)
              if (action < 0 || action >= G::kNumActions)
                throw std::invalid_argument("history: an action out of range");
            match.history = history;
            match.edit().read_json(num_players, json::Reader::parse(options), json::Reader::parse(state));
            return match;
          },
          nb::arg("num_players"), nb::arg("options"), nb::arg("state"), nb::arg("rng"), nb::arg("history"),
          "The match `to_dict` described: options and state as JSON text.")
      .def("state_json", [](const M& self) {
        json::Writer out;
        self.game().write_json(out);
        return out.text();
      })
      .def("rng_words", [](const M& self) { return pcg64_words(self.rng); })
      .def("history", [](const M& self) { return self.history; })
      .def(
          "set_history",
          [](M& self, const std::vector<int32_t>& history) {
            for (int32_t action : history)
              if (action < 0 || action >= G::kNumActions)
                throw std::invalid_argument("history: an action out of range");
            self.history = history;
          },
          nb::arg("history"), "Replace the record of played actions (the state is unchanged).")
      .def("current_player", [](const M& self) { return self.game().current_player(); })
      .def("is_over", [](const M& self) { return self.game().is_over(); })
      .def("is_truncated", [](const M& self) { return self.game().is_truncated(); })
      .def("decision_name", [](const M& self) { return std::string(self.game().decision_name()); })
      .def(
          "legal_actions",
          [](const M& self) { return nb::bytes(self.legal_mask(), G::kNumActions); },
          "The pending decision's legal actions: num_actions bytes, 1 where legal, 0 elsewhere (a bool mask "
          "through numpy.frombuffer).")
      .def("is_legal", [](const M& self, int64_t action) { return self.is_legal(action); })
      .def(
          "apply",
          [](M& self, int64_t action) {
            if (!self.is_legal(action)) return false;
            self.play(static_cast<int>(action));
            return true;
          },
          nb::arg("action"), "Play `action` and return True, or change nothing and return False if it is illegal.")
      .def("scores",
           [](const M& self) {
             std::vector<double> out(static_cast<size_t>(self.num_players));
             self.game().scores(out.data());
             return out;
           })
      .def("winners",
           [](const M& self) {
             std::vector<int> out;
             self.game().winners(out);
             return out;
           })
      .def("standings",
           [](const M& self) {
             std::vector<double> flat;
             int width = 1;
             self.game().standings(flat, width);
             nb::list rows;
             for (int seat = 0; seat < self.num_players; ++seat) {
               nb::list row;
               for (int k = 0; k < width; ++k) row.append(flat[static_cast<size_t>(seat * width + k)]);
               rows.append(nb::tuple(row));
             }
             return rows;
           })
      .def(
          "observation",
          [](const M& self, int player, Obs out) {
            self.game().observation(checked_seat(self, player), out.data());
          },
          nb::arg("player"), nb::arg("out"), "Write `player`'s observation into `out` (float32, observation_size).")
      .def(
          "playout",
          [](M& self, const nb::capsule& capsule, int64_t max_decisions) {
            Random rng(numpy_bitgen(capsule));
            int64_t played = 0;
            while (played < max_decisions && !self.game().is_over()) {
              const int count = self.legal_count();
              if (count == 0) break;
              self.play(self.legal_ids()[rng.integers(count)]);
              ++played;
            }
            return played;
          },
          nb::arg("rng"), nb::arg("max_decisions"),
          "Play uniformly random legal actions (the k-th legal id, k = rng.integers(count), drawn from the "
          "numpy generator whose `bit_generator.capsule` is `rng`) until the end or `max_decisions`; "
          "return how many were played.")
      .def(
          "clone", [](const M& self) -> const M& { return self; }, nb::rv_policy::copy,
          "A copy of the match (copied once, straight into the new object).")
      .def(
          "determinize",
          [](const M& self, int player, const nb::capsule& capsule) {
            checked_seat(self, player);
            Random rng(numpy_bitgen(capsule));
            M twin(self);
            twin.history.clear();
            twin.rng = Pcg64::from_seed(rng.below(uint64_t{1} << 63));  // default_rng(rng.integers(2**63))
            twin.edit().resample_hidden(player, rng);
            return twin;
          },
          nb::arg("player"), nb::arg("rng"),
          "A copy whose hidden information from `player` is resampled (Game.determinize), drawing from the "
          "numpy generator whose `bit_generator.capsule` is `rng`; no history, a match generator seeded from rng.");
  if constexpr (has_heuristic<G>::value) {
    cls.def(
        "heuristic_action",
        [](const M& self, const nb::capsule& capsule) {
          if (self.game().is_over()) throw std::invalid_argument("the match is over: no seat has a decision to make");
          const int* legal = self.legal_ids();
          const int count = self.legal_count();
          if (count == 1) return legal[0];  // HeuristicAgent.act: no thinking and no draw
          Random rng(numpy_bitgen(capsule));
          return self.game().heuristic(self.game().current_player(), legal, count, rng);
        },
        nb::arg("rng"),
        "The game's heuristic agent's pick for the seat to move (agents/<game>_heuristic.py, decision for "
        "decision), breaking ties with the numpy generator whose `bit_generator.capsule` is `rng`.");
  }
  // ----- the batched vector env (batch.hpp), for the games with a native heuristic -----
  if constexpr (has_heuristic<G>::value) bind_batch<G>(m, std::string(class_name) + "Batch");

  // ----- the ISMCTS search (ismcts.hpp) ---------------------------------------------------------------
  cls.def(
      "ismcts_action",
      [](const M& self, int player, const nb::capsule& capsule, std::optional<int64_t> iters,
         std::optional<double> seconds, std::optional<double> time_limit, double exploration,
         std::optional<int64_t> max_rollout, const std::string& rollout, double bias, const std::string& opponents) {
        checked_seat(self, player);
        if (self.game().is_over() || self.game().current_player() != player)
          throw std::invalid_argument("seat " + std::to_string(player) + " has no decision to make now");
        if (iters.has_value() == seconds.has_value())
          throw std::invalid_argument("give exactly one budget: iters or seconds");
        if ((iters && *iters < 1) || (seconds && !(*seconds > 0)))
          throw std::invalid_argument("the budget must be positive");
        if (time_limit && !(*time_limit > 0))
          throw std::invalid_argument("time_limit must be > 0 seconds (None: no limit beyond the budget)");
        if (max_rollout && *max_rollout < 0)
          throw std::invalid_argument("max_rollout must be >= 0 (or None: play rollouts to the end)");
        if (rollout != "random" && rollout != "heuristic")
          throw std::invalid_argument("unknown rollout '" + rollout + "'; allowed: random, heuristic");
        if (opponents != "search" && opponents != "heuristic")
          throw std::invalid_argument("unknown opponents '" + opponents + "'; allowed: search, heuristic");
        IsmctsOptions options;
        options.iters = iters.value_or(0);
        options.seconds = seconds.value_or(0.0);
        options.time_limit = time_limit.value_or(0.0);
        options.exploration = exploration;
        options.max_rollout = max_rollout.value_or(-1);
        options.heuristic_rollout = rollout == "heuristic";
        options.bias = bias;
        options.heuristic_opponents = opponents == "heuristic";
        uint8_t mask[G::kNumActions];
        self.game().legal_actions(mask);
        int count = 0, only = -1;
        for (int i = 0; i < G::kNumActions; ++i)
          if (mask[i] != 0) {
            ++count;
            only = i;
          }
        Ismcts<G, has_heuristic<G>::value> search(self.game(), self.num_players, player, options);
        Random rng(numpy_bitgen(capsule));
        if (count == 1) return std::make_tuple(only, int64_t{0}, std::vector<std::pair<int, double>>());
        IsmctsResult result;
        {
          nb::gil_scoped_release release;
          result = search.run(rng);
        }
        return std::make_tuple(result.action, result.iterations, std::move(result.values));
      },
      nb::arg("player"), nb::arg("rng"), nb::kw_only(), nb::arg("iters").none() = nb::none(),
      nb::arg("seconds").none() = nb::none(), nb::arg("time_limit").none() = nb::none(),
      nb::arg("exploration") = 0.7, nb::arg("max_rollout").none() = 40, nb::arg("rollout") = "heuristic",
      nb::arg("bias") = 1.0, nb::arg("opponents") = "heuristic",
      "agents/ismcts.py's search for `player` (to move), decision for decision the Python agent's, drawing from "
      "the numpy generator whose `bit_generator.capsule` is `rng` (the caller holds its lock: the search runs "
      "without the GIL). Returns (action, iterations, [(root action, mean value) in the order tried]); a "
      "forced move is returned without a search or a draw.");
}

}  // namespace city_envs::native
