// The Python class BigCity over the native Big City engine.
#include "../core/binding.hpp"
#include "game.hpp"

void bind_big_city(nanobind::module_& m) {
  city_envs::native::bind_game<city_envs::native::big_city::Game>(m, "BigCity");
}
