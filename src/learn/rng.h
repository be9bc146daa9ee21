/* src/learn/rng.h — the learning layer's host random numbers: xoshiro256** (Blackman and
   Vigna, 2018) seeded through splitmix64, so that a seed gives the same numbers on every
   machine and every device (the draws happen on the host, then travel). Not for
   cryptography. */
#ifndef AG_SRC_LEARN_RNG_H
#define AG_SRC_LEARN_RNG_H

#include <stdint.h>

typedef struct ag__rng {
  uint64_t s[4];
} ag__rng;

/* splitmix64's step: a well mixed 64-bit value from a counter, used to spread a seed over
   xoshiro's 256 bits of state (never all zero: splitmix64 is a bijection of distinct
   counters, and four successive outputs cannot all be 0). */
static inline uint64_t ag__splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A generator for @p seed and stream @p stream (the batch stream's epoch): distinct pairs give
   unrelated sequences. */
static inline ag__rng ag__rng_seed(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ ag__splitmix64(&(uint64_t){stream ^ 0x6a09e667f3bcc909ull});
  ag__rng r;
  for (int i = 0; i < 4; i++)
    r.s[i] = ag__splitmix64(&x);
  return r;
}

static inline uint64_t ag__rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* The next 64 random bits. */
static inline uint64_t ag__rng_next(ag__rng *r) {
  uint64_t *s = r->s;
  uint64_t out = ag__rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = ag__rng_rotl(s[3], 45);
  return out;
}

/* A double uniform in [0, 1), on the 2^53 grid. */
static inline double ag__rng_uniform(ag__rng *r) { return (double)(ag__rng_next(r) >> 11) * 0x1.0p-53; }

/* An integer uniform in [0, n), n > 0, without modulo bias (Lemire's multiply and reject). */
static inline uint64_t ag__rng_below(ag__rng *r, uint64_t n) {
  unsigned __int128 m = (unsigned __int128)ag__rng_next(r) * n;
  uint64_t lo = (uint64_t)m;
  if (lo < n) {
    uint64_t floor = -n % n;
    while (lo < floor) {
      m = (unsigned __int128)ag__rng_next(r) * n;
      lo = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

#endif
