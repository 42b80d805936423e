// city_envs._native: one Python class per native game, and the numpy-compatible generator.
#include <nanobind/nanobind.h>

namespace nb = nanobind;

void bind_random(nb::module_& m);
void bind_big_city(nb::module_& m);

NB_MODULE(_native, m) {
  m.doc() = "The native engine of city-envs: the games in C++, the same match for the same seed.";
  bind_random(m);
  bind_big_city(m);
}
