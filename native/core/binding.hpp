// `bind_game<G>`: one Python class per native game, the same members for every game.
//
// A `Match<G>` is a game state, its match generator and its history. Observations and masks are
// written into caller-owned numpy buffers; every argument is checked here (sizes, ranges,
// legality) so nothing unchecked reaches the game's code, and faults surface as ValueError.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

template <class G>
struct Match {
  G game;
  Pcg64 rng;
  int num_players = 0;
  std::vector<int32_t> history;
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

template <class G>
bool is_legal(const Match<G>& match, int64_t action) {
  if (action < 0 || action >= G::kNumActions || match.game.is_over()) return false;
  uint8_t mask[G::kNumActions];
  match.game.legal_actions(mask);
  return mask[action] != 0;
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
  using Mask = nb::ndarray<bool, nb::numpy, nb::shape<G::kNumActions>, nb::c_contig, nb::device::cpu>;
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
            self->game.setup(num_players, json::Reader::parse(options), chance);
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
            match.game.read_json(num_players, json::Reader::parse(options), json::Reader::parse(state));
            return match;
          },
          nb::arg("num_players"), nb::arg("options"), nb::arg("state"), nb::arg("rng"), nb::arg("history"),
          "The match `to_dict` described: options and state as JSON text.")
      .def("state_json", [](const M& self) {
        json::Writer out;
        self.game.write_json(out);
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
      .def("current_player", [](const M& self) { return self.game.current_player(); })
      .def("is_over", [](const M& self) { return self.game.is_over(); })
      .def("is_truncated", [](const M& self) { return self.game.is_truncated(); })
      .def("decision_name", [](const M& self) { return std::string(self.game.decision_name()); })
      .def(
          "legal_actions",
          [](const M& self, Mask out) {
            uint8_t mask[G::kNumActions];
            if (self.game.is_over()) std::memset(mask, 0, sizeof mask);
            else self.game.legal_actions(mask);
            bool* data = out.data();
            for (int i = 0; i < G::kNumActions; ++i) data[i] = mask[i] != 0;
          },
          nb::arg("out"), "Write the pending decision's legal actions into `out` (bool, num_actions).")
      .def("is_legal", [](const M& self, int64_t action) { return is_legal(self, action); })
      .def(
          "apply",
          [](M& self, int64_t action) {
            if (!is_legal(self, action)) return false;
            Random chance(self.rng);
            self.game.apply(static_cast<int>(action), chance);
            self.history.push_back(static_cast<int32_t>(action));
            return true;
          },
          nb::arg("action"), "Play `action` and return True, or change nothing and return False if it is illegal.")
      .def("scores",
           [](const M& self) {
             std::vector<double> out(static_cast<size_t>(self.num_players));
             self.game.scores(out.data());
             return out;
           })
      .def("winners",
           [](const M& self) {
             std::vector<int> out;
             self.game.winners(out);
             return out;
           })
      .def("standings",
           [](const M& self) {
             std::vector<double> flat;
             int width = 1;
             self.game.standings(flat, width);
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
            self.game.observation(checked_seat(self, player), out.data());
          },
          nb::arg("player"), nb::arg("out"), "Write `player`'s observation into `out` (float32, observation_size).")
      .def(
          "playout",
          [](M& self, const nb::capsule& capsule, int64_t max_decisions) {
            Random rng(numpy_bitgen(capsule));
            uint8_t mask[G::kNumActions];
            int legal[G::kNumActions];
            int64_t played = 0;
            while (played < max_decisions && !self.game.is_over()) {
              self.game.legal_actions(mask);
              int count = 0;
              for (int i = 0; i < G::kNumActions; ++i)
                if (mask[i] != 0) legal[count++] = i;
              if (count == 0) break;
              const int action = legal[rng.integers(count)];
              Random chance(self.rng);
              self.game.apply(action, chance);
              self.history.push_back(static_cast<int32_t>(action));
              ++played;
            }
            return played;
          },
          nb::arg("rng"), nb::arg("max_decisions"),
          "Play uniformly random legal actions (the k-th legal id, k = rng.integers(count), drawn from the "
          "numpy generator whose `bit_generator.capsule` is `rng`) until the end or `max_decisions`; "
          "return how many were played.")
      .def("clone", [](const M& self) { return M(self); })
      .def(
          "determinize",
          [](const M& self, int player, const nb::capsule& capsule) {
            checked_seat(self, player);
            Random rng(numpy_bitgen(capsule));
            M twin(self);
            twin.history.clear();
            twin.rng = Pcg64::from_seed(rng.below(uint64_t{1} << 63));  // default_rng(rng.integers(2**63))
            twin.game.resample_hidden(player, rng);
            return twin;
          },
          nb::arg("player"), nb::arg("rng"),
          "A copy whose hidden information from `player` is resampled (Game.determinize), drawing from the "
          "numpy generator whose `bit_generator.capsule` is `rng`; no history, a match generator seeded from rng.");
  if constexpr (has_heuristic<G>::value) {
    cls.def(
        "heuristic_action",
        [](const M& self, const nb::capsule& capsule) {
          if (self.game.is_over()) throw std::invalid_argument("the match is over: no seat has a decision to make");
          uint8_t mask[G::kNumActions];
          int legal[G::kNumActions];
          self.game.legal_actions(mask);
          int count = 0;
          for (int i = 0; i < G::kNumActions; ++i)
            if (mask[i] != 0) legal[count++] = i;
          if (count == 1) return legal[0];  // HeuristicAgent.act: no thinking and no draw
          Random rng(numpy_bitgen(capsule));
          return self.game.heuristic(self.game.current_player(), legal, count, rng);
        },
        nb::arg("rng"),
        "The game's heuristic agent's pick for the seat to move (agents/<game>_heuristic.py, decision for "
        "decision), breaking ties with the numpy generator whose `bit_generator.capsule` is `rng`.");
  }

  // ----- the ISMCTS search (ismcts.hpp) ---------------------------------------------------------------
  cls.def(
      "ismcts_action",
      [](const M& self, int player, const nb::capsule& capsule, std::optional<int64_t> iters,
         std::optional<double> seconds, std::optional<double> time_limit, double exploration,
         std::optional<int64_t> max_rollout, const std::string& rollout, double bias, const std::string& opponents) {
        checked_seat(self, player);
        if (self.game.is_over() || self.game.current_player() != player)
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
        self.game.legal_actions(mask);
        int count = 0, only = -1;
        for (int i = 0; i < G::kNumActions; ++i)
          if (mask[i] != 0) {
            ++count;
            only = i;
          }
        Ismcts<G, has_heuristic<G>::value> search(self.game, self.num_players, player, options);
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
