// Vector building blocks of the fused attention kernel (attention.cc): tiles of
// kTile contiguous keys, processed for kRows query rows at a time.
//
// Layouts: a row vector has K floats; "cols" is a [K, padded] matrix (one
// column per key, zero-padded to a multiple of kTile keys); "w"/"s" rows hold
// one value per key. [j0, j1) are always whole tiles.

#ifndef LOSTMID_FUSED_CPU_TILES_H_
#define LOSTMID_FUSED_CPU_TILES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace lostmid {

// The tile widths are chosen at build time from the processor's flags
// (build.py, ISA_FLAGS): 16 keys (one AVX-512 register) and 4 accumulated
// columns where the CPU has AVX-512's 32 vector registers; 8 keys (one AVX2
// register) and 2 columns on AVX2, whose 16 registers would otherwise spill
// the accumulators of ColsTimesWeights.
#ifndef LOSTMID_TILE
#define LOSTMID_TILE 16
#endif
#ifndef LOSTMID_COLS
#define LOSTMID_COLS 4
#endif
#ifndef LOSTMID_SPAN
#define LOSTMID_SPAN 2
#endif
constexpr int64_t kTile = LOSTMID_TILE;  // keys per score tile (one vector register)
constexpr int kSpan = LOSTMID_SPAN;      // tiles per step of RowsTimesCols and AddOuter

// Vectors of kTile floats (GCC/Clang vector extension: one vector register,
// or split into narrower ones by the compiler); unaligned loads and stores.
typedef float Vf __attribute__((vector_size(kTile * sizeof(float))));

inline Vf Load(const float* p) {
  Vf v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void Store(float* p, Vf v) { __builtin_memcpy(p, &v, sizeof v); }
inline float Sum(Vf v) {
  float total = 0.0f;
  for (int64_t t = 0; t < kTile; ++t) total += v[t];
  return total;
}

// max of s[lo..hi] (local accumulators, so the compiler vectorizes).
inline float RowMax(const float* __restrict s, int64_t lo, int64_t hi) {
  float m = s[lo];
  for (int64_t j = lo + 1; j <= hi; ++j) m = std::max(m, s[j]);
  return m;
}

// Lanes of 32-bit integers as wide as Vf (for the exponent bits of ExpNonPositive).
typedef int32_t Vi __attribute__((vector_size(kTile * sizeof(int32_t))));

// exp(x) for x <= 0, arguments clamped to [-87, 0] (so no infinity and no
// subnormal is ever formed): exp(x) = 2^n e^t with n = round(x / ln 2) and
// |t| <= ln(2) / 2, e^t by its Taylor polynomial of degree 6 (relative
// truncation error < 2e-7), 2^n built in the exponent bits. Inline, so the
// tiles need no call to the vector math library.
inline Vf ExpNonPositive(Vf x) {
  const Vf lowest = Vf{} - 87.0f, zero = Vf{};
  x = x < lowest ? lowest : x;
  x = x > zero ? zero : x;
  const Vi n = __builtin_convertvector(x * 1.44269504f - 0.5f, Vi);  // truncation toward 0: round(x / ln 2)
  const Vf nf = __builtin_convertvector(n, Vf);
  const Vf t = x - nf * 0.693145752f - nf * 1.42860677e-6f;  // ln 2 split in two for an exact product
  Vf p = t * (1.0f / 720.0f) + 1.0f / 120.0f;
  p = p * t + 1.0f / 24.0f;
  p = p * t + 1.0f / 6.0f;
  p = p * t + 0.5f;
  p = p * t + 1.0f;
  p = p * t + 1.0f;
  return p * (Vf)((n + 127) << 23);
}

// s[j] = exp(s[j] - shift) over the tiles of [j0, j1) (ExpNonPositive: only
// entries with s[j] <= shift are meaningful; the caller zeroes the others).
inline void ExpTiles(float* s, int64_t j0, int64_t j1, float shift) {
  for (int64_t jt = j0; jt < j1; jt += kTile) Store(s + jt, ExpNonPositive(Load(s + jt) - shift));
}

// sum of s[j] over the tiles of [j0, j1).
inline float TileSum(const float* s, int64_t j0, int64_t j1) {
  Vf acc = {};
  for (int64_t jt = j0; jt < j1; jt += kTile) acc += Load(s + jt);
  return Sum(acc);
}

// A block of kRows query rows (consecutive (i, r) of one (batch, group) pair)
// is processed together: each load of a key/value tile, and each update of the
// dk/dv accumulators, serves all of them.
constexpr int kRows = 4;

// s[r][j] = a[r] . cols[:, j] for the tiles of [j0, j1); cols is [K, padded].
// kSpan tiles at a time: kRows x kSpan independent accumulators, enough to
// keep both FMA pipes busy (kRows alone would wait on each FMA's latency).
template <int KD>
inline void RowsTimesCols(const float* const* a, const float* cols, int64_t padded, int64_t kd,
                          int64_t j0, int64_t j1, float* const* s) {
  const int64_t K = KD > 0 ? KD : kd;
  int64_t jt = j0;
  for (; jt + kSpan * kTile <= j1; jt += kSpan * kTile) {
    Vf acc[kRows][kSpan] = {};
    for (int64_t k = 0; k < K; ++k) {
      Vf col[kSpan];
      for (int u = 0; u < kSpan; ++u) col[u] = Load(cols + k * padded + jt + u * kTile);
      for (int r = 0; r < kRows; ++r) {
        const float ark = a[r][k];
        for (int u = 0; u < kSpan; ++u) acc[r][u] += ark * col[u];
      }
    }
    for (int r = 0; r < kRows; ++r)
      for (int u = 0; u < kSpan; ++u) Store(s[r] + jt + u * kTile, acc[r][u]);
  }
  for (; jt < j1; jt += kTile) {
    Vf acc[kRows] = {};
    for (int64_t k = 0; k < K; ++k) {
      const Vf col = Load(cols + k * padded + jt);
      for (int r = 0; r < kRows; ++r) acc[r] += a[r][k] * col;
    }
    for (int r = 0; r < kRows; ++r) Store(s[r] + jt, acc[r]);
  }
}

// out[r][c] = sum_j w[r][j] cols[c, j] over the tiles of [j0, j1) (w zero
// outside each row's allowed keys), kCols columns at a time.
template <int KD>
inline void ColsTimesWeights(const float* const* w, const float* cols, int64_t padded, int64_t kd,
                             int64_t j0, int64_t j1, float* const* out) {
  const int64_t K = KD > 0 ? KD : kd;
  constexpr int kCols = LOSTMID_COLS;
  int64_t c0 = 0;
  for (; c0 + kCols <= K; c0 += kCols) {
    Vf acc[kRows][kCols] = {};
    for (int64_t jt = j0; jt < j1; jt += kTile) {
      Vf wt[kRows];
      for (int r = 0; r < kRows; ++r) wt[r] = Load(w[r] + jt);
      for (int c = 0; c < kCols; ++c) {
        const Vf col = Load(cols + (c0 + c) * padded + jt);
        for (int r = 0; r < kRows; ++r) acc[r][c] += wt[r] * col;
      }
    }
    for (int r = 0; r < kRows; ++r)
      for (int c = 0; c < kCols; ++c) out[r][c0 + c] = Sum(acc[r][c]);
  }
  for (; c0 < K; ++c0) {
    Vf acc[kRows] = {};
    for (int64_t jt = j0; jt < j1; jt += kTile) {
      const Vf col = Load(cols + c0 * padded + jt);
      for (int r = 0; r < kRows; ++r) acc[r] += Load(w[r] + jt) * col;
    }
    for (int r = 0; r < kRows; ++r) out[r][c0] = Sum(acc[r]);
  }
}

// cols[c, j] += sum_r a[r][c] w[r][j] over the tiles of [j0, j1), kSpan tiles at a time.
template <int KD>
inline void AddOuter(const float* const* a, const float* const* w, int64_t padded, int64_t kd, int64_t j0,
                     int64_t j1, float* cols) {
  const int64_t K = KD > 0 ? KD : kd;
  int64_t jt = j0;
  for (; jt + kSpan * kTile <= j1; jt += kSpan * kTile) {
    Vf wt[kRows][kSpan];
    for (int r = 0; r < kRows; ++r)
      for (int u = 0; u < kSpan; ++u) wt[r][u] = Load(w[r] + jt + u * kTile);
    for (int64_t c = 0; c < K; ++c) {
      float* dst = cols + c * padded + jt;
      Vf sum[kSpan];
      for (int u = 0; u < kSpan; ++u) sum[u] = Load(dst + u * kTile);
      for (int r = 0; r < kRows; ++r) {
        const float arc = a[r][c];
        for (int u = 0; u < kSpan; ++u) sum[u] += arc * wt[r][u];
      }
      for (int u = 0; u < kSpan; ++u) Store(dst + u * kTile, sum[u]);
    }
  }
  for (; jt < j1; jt += kTile) {
    Vf wt[kRows];
    for (int r = 0; r < kRows; ++r) wt[r] = Load(w[r] + jt);
    for (int64_t c = 0; c < K; ++c) {
      float* dst = cols + c * padded + jt;
      Vf sum = Load(dst);
      for (int r = 0; r < kRows; ++r) sum += a[r][c] * wt[r];
      Store(dst, sum);
    }
  }
}

}  // namespace lostmid

#endif  // LOSTMID_FUSED_CPU_TILES_H_
