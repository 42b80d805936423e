// The Python class `Metropolys` of city_envs._native over the native engine.
#include "../core/binding.hpp"
#include "game.hpp"

void bind_metropolys(nanobind::module_& m) {
  city_envs::native::bind_game<city_envs::native::metropolys::Game>(m, "Metropolys");
}
