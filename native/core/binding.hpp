// `bind_game<G>`: one Python class per native game, the same members for every game.
//
// A `Match<G>` is a game state, its match generator, its history and its legal set (computed once per
// state, forgotten by every change). Observations and masks are written into caller-owned numpy
// buffers; every argument is checked here (sizes, ranges, legality) so nothing unchecked reaches the
// game's code, and faults surface as ValueError.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "game.hpp"
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
      int count = 0;
      for (int i = 0; i < G::kNumActions; ++i) {
        uint8_t& legal = legal_.mask[static_cast<size_t>(i)];
        legal = legal != 0;
        if (legal) legal_.ids[static_cast<size_t>(count++)] = i;
      }
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
}

}  // namespace city_envs::native
