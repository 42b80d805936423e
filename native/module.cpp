// city_envs._native: one Python class per native game, and the numpy-compatible generator.
#include <nanobind/nanobind.h>

namespace nb = nanobind;

void bind_random(nb::module_& m);
void bind_citadels(nb::module_& m);
void bind_metropolys(nb::module_& m);
void bind_blue_moon_city(nb::module_& m);
void bind_big_city(nb::module_& m);
void bind_urban_sprawl(nb::module_& m);

NB_MODULE(_native, m) {
  m.doc() = "The native engine of city-envs: the games in C++, the same match for the same seed.";
  bind_random(m);
  bind_citadels(m);
  bind_metropolys(m);
  bind_blue_moon_city(m);
  bind_big_city(m);
  bind_urban_sprawl(m);
}
