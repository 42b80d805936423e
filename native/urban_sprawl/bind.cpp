// The Python class UrbanSprawl over the native engine.
#include "../core/binding.hpp"
#include "heuristic.hpp"

void bind_urban_sprawl(nanobind::module_& m) {
  city_envs::native::bind_game<city_envs::native::urban_sprawl::Game>(m, "UrbanSprawl");
}
