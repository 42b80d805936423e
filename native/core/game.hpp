// What a native game provides: the contract `bind_game` (binding.hpp) builds the Python class from.
//
// A native game is one plain-data struct G (copyable with its default copy: no pointers into
// itself), the C++ twin of the Python engine's `State` with the functions of its rules.py and
// view.py as members. Every member must do exactly what the Python engine does, drawing chance in
// the same order with the same `Random` methods, so that a seed plays the same match.
//
//   struct G {
//     static constexpr const char* kName;          // the registry name, "citadels"
//     static constexpr int kNumActions;            // rules.NUM_ACTIONS
//     static constexpr int kObservationSize;       // view.LAYOUT.size
//     static constexpr int kMinPlayers, kMaxPlayers;
//
//     // A new match set up as `rules.new_state` / the game's `_setup` does, drawing from `chance`.
//     // `options` is the checked options dict of the Python engine (Game.check_options) as JSON.
//     void setup(int num_players, const json::Value& options, Random& chance);
//     // The state `to_dict()["state"]` describes; the options as in `setup`. Anything out of range
//     // or of the wrong shape throws std::invalid_argument naming the field (never undefined
//     // behaviour: the Python engine validates first, but this door checks what it indexes by).
//     void read_json(int num_players, const json::Value& options, const json::Value& state);
//     // `_state_to_dict()`: the same keys in the same order, the same values.
//     void write_json(json::Writer& out) const;
//
//     int current_player() const;                  // -1 once the match is over
//     bool is_over() const;
//     bool is_truncated() const;
//     const char* decision_name() const;           // Decision.name_of(state.decision), "GAME_OVER" at the end
//     void legal_actions(uint8_t* mask) const;     // writes all kNumActions entries, 1 = legal
//     void apply(int action, Random& chance);      // a legal action (the binding checks legality)
//     void scores(double* out) const;              // num_players values
//     void winners(std::vector<int>& out) const;   // the seats that won (after the tie-breaks)
//     void standings(std::vector<double>& out, int& width) const;  // num_players rows of `width` keys
//     void observation(int player, float* out) const;  // writes all kObservationSize values
//     void resample_hidden(int player, Random& rng);   // view.determinize on this copy, drawing from rng
//
//     // Optional: the game's heuristic agent (agents/<game>_heuristic.py), its pick among `count` >= 2
//     // legal ids, reading only what `player` may know, ties drawn from rng as the Python agent draws.
//     int heuristic(int player, const int* legal, int count, Random& rng) const;
//   };
//
// Hot paths (legal_actions, apply, observation, copies) allocate as little as they can: fixed-size
// arrays over the largest player count rather than vectors where the size is bounded.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "json.hpp"
#include "random.hpp"

namespace city_envs::native {

// An index read from a state, checked against the table it will index (the door's bound check).
inline int checked_index(const json::Value& value, const char* what, int size) {
  return static_cast<int>(value.as_int(what, 0, static_cast<int64_t>(size) - 1));
}

// The ids of a legal mask's nonzero entries, ascending, into `out`; returns their count. Eight entries are
// read at a time, so the mostly empty masks of large action spaces cost a word per eight ids.
inline int legal_ids(const uint8_t* mask, int size, int* out) {
  int count = 0;
  int i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, mask + i, sizeof word);
    if (word == 0) continue;
    for (int k = 0; k < 8; ++k)
      if (mask[i + k] != 0) out[count++] = i + k;
  }
  for (; i < size; ++i)
    if (mask[i] != 0) out[count++] = i;
  return count;
}

}  // namespace city_envs::native
