// What the native heuristics (native/<game>/heuristic.hpp) share with agents/base.py's HeuristicAgent:
// the tie tolerance and `_best`'s draw among the tied options.
#pragma once

#include "random.hpp"

namespace city_envs::native {

inline constexpr double kTieTolerance = 1e-9;  // agents/base.py TIE_TOLERANCE

// HeuristicAgent._best over scores[0, count) (count >= 1): the index of the highest score; when two or
// more lie within the tolerance of it, the rng.integers(number tied)-th of them (no draw otherwise).
inline int best_index(const double* scores, int count, Random& rng) {
  double top = scores[0];
  for (int k = 1; k < count; ++k) top = scores[k] > top ? scores[k] : top;
  int tied = 0;
  for (int k = 0; k < count; ++k) tied += scores[k] >= top - kTieTolerance ? 1 : 0;
  int pick = tied > 1 ? static_cast<int>(rng.integers(tied)) : 0;
  for (int k = 0; k < count; ++k)
    if (scores[k] >= top - kTieTolerance && pick-- == 0) return k;
  return 0;
}

}  // namespace city_envs::native
