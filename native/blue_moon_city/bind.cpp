// The Python class BlueMoonCity of city_envs._native, over the native Blue Moon City engine.
#include <nanobind/nanobind.h>

#include "../core/binding.hpp"
#include "game.hpp"

void bind_blue_moon_city(nanobind::module_& m) {
  city_envs::native::bind_game<city_envs::native::blue_moon_city::Game>(m, "BlueMoonCity");
}
