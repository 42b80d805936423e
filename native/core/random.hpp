// numpy's PCG64 and the numpy.random.Generator methods the rules use, bit for bit.
//
// A match's chance comes from `np.random.default_rng(seed)`, a Generator over PCG64. The native
// engine keeps that bit generator's state in plain data (`Pcg64`), and `Random` draws from it, or
// from a caller's numpy bit generator (a search agent's), with the same algorithms numpy uses:
// Lemire's bounded integers for `integers`, the masked interval for `shuffle`/`permutation`, and
// Floyd's sampling then a bounded shuffle for `choice(n, k, replace=False)`. SeedSequence is here too,
// so `default_rng(seed)` is reproduced without Python.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace city_envs::native {

using uint128 = unsigned __int128;

// numpy's bitgen_t: what a numpy BitGenerator's "BitGenerator" capsule points at.
struct NumpyBitGen {
  void* state;
  uint64_t (*next_uint64)(void* state);
  uint32_t (*next_uint32)(void* state);
  double (*next_double)(void* state);
  uint64_t (*next_raw)(void* state);
};

// PCG64 (XSL-RR 128/64) with numpy's 32-bit buffering: the fields of `bit_generator.state`.
struct Pcg64 {
  uint128 state = 0;
  uint128 inc = 1;
  bool has_uint32 = false;
  uint32_t uinteger = 0;

  static constexpr uint128 kMultiplier =
      (static_cast<uint128>(0x2360ED051FC65DA4ULL) << 64) | static_cast<uint128>(0x4385DF649FCCF645ULL);

  uint64_t next64() {
    state = state * kMultiplier + inc;
    const uint64_t folded = static_cast<uint64_t>(state >> 64) ^ static_cast<uint64_t>(state);
    const unsigned rotation = static_cast<unsigned>(state >> 122);
    return (folded >> rotation) | (folded << ((64U - rotation) & 63U));
  }

  uint32_t next32() {
    if (has_uint32) {
      has_uint32 = false;
      return uinteger;
    }
    const uint64_t next = next64();
    has_uint32 = true;
    uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next & 0xFFFFFFFFULL);
  }

  // PCG64 seeded as numpy seeds it: initstate and initseq from four 64-bit words.
  static Pcg64 from_words(const uint64_t words[4]) {
    Pcg64 bits;
    const uint128 initstate = (static_cast<uint128>(words[0]) << 64) | words[1];
    const uint128 initseq = (static_cast<uint128>(words[2]) << 64) | words[3];
    bits.state = 0;
    bits.inc = (initseq << 1U) | 1U;
    bits.state = bits.state * kMultiplier + bits.inc;
    bits.state += initstate;
    bits.state = bits.state * kMultiplier + bits.inc;
    return bits;
  }

  // `np.random.default_rng(seed).bit_generator` for a seed in 0..2**64-1 (SeedSequence(seed), pool 4).
  static Pcg64 from_seed(uint64_t seed) {
    uint32_t entropy[2];
    return from_entropy(entropy, append_entropy(entropy, seed));
  }

  // SeedSequence's words of one non-negative integer written at `out`: its 32-bit words, lowest first
  // ([0] for 0); returns how many (1 or 2).
  static size_t append_entropy(uint32_t* out, uint64_t value) {
    out[0] = static_cast<uint32_t>(value);
    if ((value >> 32) == 0) return 1;
    out[1] = static_cast<uint32_t>(value >> 32);
    return 2;
  }

  // `np.random.default_rng(SeedSequence(entropy)).bit_generator` for entropy given as `words` <= 4
  // 32-bit words, the size of its pool (a list of integers `[a, b]` is the words of a, then the words of
  // b: `append_entropy`).
  static Pcg64 from_entropy(const uint32_t* entropy, size_t words) {
    if (words > 4) throw std::invalid_argument("SeedSequence: at most 4 words of entropy here");
    constexpr uint32_t kInitA = 0x43b0d7e5U, kMultA = 0x931e8875U, kInitB = 0x8b51f9ddU, kMultB = 0x58f38dedU;
    constexpr uint32_t kMixL = 0xca01f9ddU, kMixR = 0x4973f715U;
    uint32_t hash_const = kInitA;
    auto hashmix = [&hash_const](uint32_t value) {
      value ^= hash_const;
      hash_const *= kMultA;
      value *= hash_const;
      value ^= value >> 16;
      return value;
    };
    auto mix = [](uint32_t x, uint32_t y) {
      uint32_t result = kMixL * x - kMixR * y;
      result ^= result >> 16;
      return result;
    };
    uint32_t pool[4];
    for (size_t i = 0; i < 4; ++i) pool[i] = hashmix(i < words ? entropy[i] : 0U);
    for (int src = 0; src < 4; ++src)
      for (int dst = 0; dst < 4; ++dst)
        if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src]));
    uint32_t state32[8];
    uint32_t out_const = kInitB;
    for (int i = 0; i < 8; ++i) {
      uint32_t value = pool[i % 4];
      value ^= out_const;
      out_const *= kMultB;
      value *= out_const;
      value ^= value >> 16;
      state32[i] = value;
    }
    uint64_t state64[4];
    for (int i = 0; i < 4; ++i)
      state64[i] = static_cast<uint64_t>(state32[2 * i]) | (static_cast<uint64_t>(state32[2 * i + 1]) << 32);
    return from_words(state64);
  }
};

// The Generator methods, drawing from a match's own Pcg64 or from a numpy bit generator.
class Random {
 public:
  explicit Random(Pcg64& own) : own_(&own), numpy_(nullptr) {}
  explicit Random(NumpyBitGen* numpy) : own_(nullptr), numpy_(numpy) {}

  uint64_t next64() { return own_ != nullptr ? own_->next64() : numpy_->next_uint64(numpy_->state); }
  uint32_t next32() { return own_ != nullptr ? own_->next32() : numpy_->next_uint32(numpy_->state); }

  // rng.random(): a double in [0, 1) from the top 53 bits of one 64-bit draw.
  double random() {
    if (own_ == nullptr) return numpy_->next_double(numpy_->state);
    return static_cast<double>(own_->next64() >> 11) * (1.0 / 9007199254740992.0);
  }

  // rng.integers(low, high): one int64 in [low, high); high > low.
  int64_t integers(int64_t low, int64_t high) {
    if (high <= low) throw std::invalid_argument("integers: high must be greater than low");
    const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) - 1U;
    return static_cast<int64_t>(static_cast<uint64_t>(low) + bounded(range));
  }
  int64_t integers(int64_t high) { return integers(0, high); }
  // rng.integers(high) for a high beyond int64's (2**63): a value in [0, high); high >= 1.
  uint64_t below(uint64_t high) {
    if (high == 0) throw std::invalid_argument("integers: high must be at least 1");
    return bounded(high - 1);
  }

  // rng.permutation(n): arange(n) shuffled by Fisher-Yates over the masked interval.
  std::vector<int64_t> permutation(int64_t n) {
    std::vector<int64_t> values(static_cast<size_t>(n < 0 ? 0 : n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = i;
    for (int64_t i = n - 1; i >= 1; --i) {
      const uint64_t j = interval(static_cast<uint64_t>(i));
      std::swap(values[static_cast<size_t>(i)], values[j]);
    }
    return values;
  }

  // rng.choice(n, size=k, replace=False) for n <= 10000: Floyd's sample, then a bounded shuffle.
  std::vector<int64_t> choice_without_replacement(int64_t n, int64_t k) {
    if (k < 0 || k > n || n > 10000) throw std::invalid_argument("choice: needs 0 <= size <= n <= 10000");
    std::vector<int64_t> chosen;
    chosen.reserve(static_cast<size_t>(k));
    std::vector<bool> taken(static_cast<size_t>(n), false);
    for (int64_t j = n - k; j < n; ++j) {
      const auto value = static_cast<int64_t>(bounded(static_cast<uint64_t>(j)));
      const int64_t pick = taken[static_cast<size_t>(value)] ? j : value;
      taken[static_cast<size_t>(pick)] = true;
      chosen.push_back(pick);
    }
    for (int64_t i = k - 1; i >= 1; --i) {
      const uint64_t j = bounded(static_cast<uint64_t>(i));
      std::swap(chosen[static_cast<size_t>(i)], chosen[j]);
    }
    return chosen;
  }

 private:
  // numpy's random_bounded_uint64 (Lemire, unmasked): a value in [0, range].
  uint64_t bounded(uint64_t range) {
    if (range == 0) return 0;
    if (range <= 0xFFFFFFFFULL) {
      if (range == 0xFFFFFFFFULL) return next32();
      const auto range_excl = static_cast<uint32_t>(range + 1);
      uint64_t product = static_cast<uint64_t>(next32()) * range_excl;
      auto leftover = static_cast<uint32_t>(product);
      if (leftover < range_excl) {
        const uint32_t threshold = static_cast<uint32_t>(0xFFFFFFFFU - static_cast<uint32_t>(range)) % range_excl;
        while (leftover < threshold) {
          product = static_cast<uint64_t>(next32()) * range_excl;
          leftover = static_cast<uint32_t>(product);
        }
      }
      return product >> 32;
    }
    if (range == 0xFFFFFFFFFFFFFFFFULL) return next64();
    const uint64_t range_excl = range + 1;
    uint128 product = static_cast<uint128>(next64()) * range_excl;
    auto leftover = static_cast<uint64_t>(product);
    if (leftover < range_excl) {
      const uint64_t threshold = (0xFFFFFFFFFFFFFFFFULL - range) % range_excl;
      while (leftover < threshold) {
        product = static_cast<uint128>(next64()) * range_excl;
        leftover = static_cast<uint64_t>(product);
      }
    }
    return static_cast<uint64_t>(product >> 64);
  }

  // numpy's random_interval: a value in [0, max] by masked rejection.
  uint64_t interval(uint64_t max) {
    if (max == 0) return 0;
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xFFFFFFFFULL) {
      while ((value = (next32() & mask)) > max) {
      }
    } else {
      while ((value = (next64() & mask)) > max) {
      }
    }
    return value;
  }

  Pcg64* own_;
  NumpyBitGen* numpy_;
};

}  // namespace city_envs::native
