// The Python class `Citadels` of city_envs._native, over the native engine in game.hpp.
#include <nanobind/nanobind.h>

#include "../core/binding.hpp"
#include "game.hpp"

void bind_citadels(nanobind::module_& m) {
  city_envs::native::bind_game<city_envs::native::citadels::Game>(m, "Citadels");
}
