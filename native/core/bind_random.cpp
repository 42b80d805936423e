// city_envs._native.Random: numpy's Generator methods over a PCG64 state, exposed so tests can
// check them against numpy draw by draw.
#include <nanobind/nanobind.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "core/binding.hpp"
#include "core/random.hpp"

namespace nb = nanobind;
using city_envs::native::Pcg64;
using city_envs::native::Random;
using city_envs::native::RngWords;

namespace {

struct PyRandom {
  Pcg64 bits;
};

}  // namespace

void bind_random(nb::module_& m) {
  nb::class_<PyRandom>(m, "Random",
                       "numpy.random.Generator(PCG64)'s integers, permutation and choice(replace=False), bit for bit.")
      .def(
          "__init__",
          [](PyRandom* self, const RngWords& words) {
            new (self) PyRandom{city_envs::native::pcg64_from_words(words)};
          },
          nb::arg("rng"))
      .def_static(
          "from_seed", [](uint64_t seed) { return PyRandom{Pcg64::from_seed(seed)}; }, nb::arg("seed"),
          "The generator `np.random.default_rng(seed)` starts with.")
      .def("words", [](const PyRandom& self) { return city_envs::native::pcg64_words(self.bits); })
      .def(
          "integers",
          [](PyRandom& self, int64_t low, int64_t high) {
            Random chance(self.bits);
            return chance.integers(low, high);
          },
          nb::arg("low"), nb::arg("high"))
      .def(
          "below",
          [](PyRandom& self, uint64_t high) {
            Random chance(self.bits);
            return chance.below(high);
          },
          nb::arg("high"))
      .def(
          "permutation",
          [](PyRandom& self, int64_t n) {
            if (n < 0 || n > 1000000) throw std::invalid_argument("permutation: n must be in 0..1000000");
            Random chance(self.bits);
            return chance.permutation(n);
          },
          nb::arg("n"))
      .def(
          "choice",
          [](PyRandom& self, int64_t n, int64_t size) {
            Random chance(self.bits);
            return chance.choice_without_replacement(n, size);
          },
          nb::arg("n"), nb::arg("size"))
      .def_static(
          "numpy_integers",
          [](const nb::capsule& capsule, int64_t low, int64_t high) {
            Random chance(city_envs::native::numpy_bitgen(capsule));
            return chance.integers(low, high);
          },
          nb::arg("capsule"), nb::arg("low"), nb::arg("high"),
          "`integers` drawn from a numpy bit generator (its `capsule`), advancing it.");
}
