// The float64 influence row of a segmented suffix-sum prior (Causal, Chunks) in one pass over positions,
// bit-identical to the numpy layer-by-layer passes of theory/prior_ops.py (see native_row.py).
//
// numpy, per layer k = 1..K (0 < a_k <= 1 after dropping a_k = 0):
//   u_j = r_j * inv_j;  s_j = (keep_j ? s_{j+1} : 0) + u_j (np.cumsum over the reversed segment);
//   r_j <- (1 - a_k) * r_j + a_k * s_j.
// Here all K layers run in one sweep j = L-1 .. 0: layer k needs layer k-1 at j and its own s at j+1.
// Skewed by one position per layer (at step t, layer k is at reverse position t - k), the K layers of a
// step are independent, so the inner loop over k vectorizes and the row is written once. Each element
// gets the same operations on the same operands in the same order as in numpy, so the bits agree when
// the compiler neither contracts a*b+c into an FMA nor reassociates: build with -ffp-contract=off and
// never -ffast-math (native_row.py's FLAGS). Where keep_j = 0 (a segment's last position) the carried
// sum is +0.0, and +0.0 + u_j = u_j is numpy's first cumsum term; s, r >= 0 are finite, so layers with
// a_k = 1 give 0.0 * r + 1.0 * s = s, numpy's replacement of r by s, to the bit.
// With AVX2 (and so with AVX-512) the layers sit in vectors of 4 lanes (GCC/Clang vector extensions) and
// layer k's input, layer k - 1's output one step ago, is moved in by a lane shift across two vectors rather
// than by a store and an unaligned reload: 25-26 against 35-37 ms at L = 1e6, H = 64 on Zen 4, the same bits
// (8 lanes measured 30-33 ms; without AVX2 the shuffles are slow, so other processors run the plain loop).

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

#if defined(__AVX2__)
constexpr int kLanes = 4;  // layers per vector: one ymm register
typedef double Vec __attribute__((vector_size(kLanes * sizeof(double))));
typedef int64_t Idx __attribute__((vector_size(kLanes * sizeof(int64_t))));

// Lane kLanes - 1 of `lo`, then lanes 0..kLanes - 2 of `hi`: the previous step's outputs shifted by one layer.
inline Vec ShiftIn(Vec lo, Vec hi) {
#if defined(__clang__)
  return __builtin_shufflevector(lo, hi, 3, 4, 5, 6);
#else
  return __builtin_shuffle(lo, hi, Idx{3, 4, 5, 6});
#endif
}

inline Vec LoadU(const double* p) {
  Vec v;
  std::memcpy(&v, p, sizeof(Vec));
  return v;
}

// y[m], s[m]: layers kLanes m .. kLanes m + kLanes - 1, updated in place from the last vector down, so that
// y[m - 1] still holds the previous step's outputs when y[m] reads its lane 7.
template <bool kSegmented>
void Sweep(int64_t L, int64_t K, int64_t M, const double* __restrict inv, const double* __restrict keep,
           const Vec* __restrict a, const Vec* __restrict b, Vec* __restrict s, Vec* __restrict y,
           double* __restrict out) {
  const int64_t steps = L + K - 1;
  const int64_t last = K - 1;
  const Vec zero = {};
  for (int64_t t = 0; t < steps; ++t) {
    const double* __restrict iv = inv + (L - 1 - t);  // iv[k]: 1 / c at layer k's position (padded)
    const double* __restrict kp = keep + (L - 1 - t);
    for (int64_t m = M - 1; m >= 0; --m) {
      Vec entering = zero;
      if (m == 0) entering[kLanes - 1] = t == 0 ? 1.0 : 0.0;  // the row e_L enters layer 0 at step 0
      const Vec xin = ShiftIn(m == 0 ? entering : y[m - 1], y[m]);
      Vec carried = s[m];
      if (kSegmented) carried = LoadU(kp + m * kLanes) == zero ? zero : carried;
      const Vec sum = carried + xin * LoadU(iv + m * kLanes);
      s[m] = sum;
      y[m] = b[m] * xin + a[m] * sum;
    }
    const int64_t done = t - last;  // the reverse position the last layer finished
    if (done >= 0) out[L - 1 - done] = y[last / kLanes][last % kLanes];
  }
}

#else  // the plain loop: y[k + 1] written, x[k] read at the next step

template <bool kSegmented>
void Sweep(int64_t L, int64_t K, const double* __restrict inv, const double* __restrict keep,
           const double* __restrict a, const double* __restrict b, double* __restrict s, double* buf_x,
           double* buf_y, double* __restrict out) {
  const int64_t steps = L + K - 1;
  for (int64_t t = 0; t < steps; ++t) {
    double* __restrict x = buf_x;  // x[k]: layer k's input now (layer k-1's output one step ago)
    double* __restrict y = buf_y;  // y[k + 1]: layer k's output now
    x[0] = t == 0 ? 1.0 : 0.0;     // the row e_L enters at reverse position 0
    const double* __restrict iv = inv + (L - 1 - t);  // iv[k]: 1 / c at layer k's position (padded)
    const double* __restrict kp = keep + (L - 1 - t);
    double* __restrict sk = s;
    for (int64_t k = 0; k < K; ++k) {
      const double xin = x[k];
      const double carried = kSegmented && kp[k] == 0.0 ? 0.0 : sk[k];
      const double sum = carried + xin * iv[k];
      sk[k] = sum;
      y[k + 1] = b[k] * xin + a[k] * sum;
    }
    const int64_t done = t - (K - 1);  // the reverse position the last layer finished
    if (done >= 0) out[L - 1 - done] = y[K];
    buf_x = y;
    buf_y = x;
  }
}

#endif

}  // namespace

extern "C" int lostmid_segmented_row(int64_t L, int64_t K, const double* alphas, const double* inv,
                                     const double* keep, double* out) {
  if (L < 1 || K < 0) return 1;
  if (K == 0) {
    for (int64_t j = 0; j < L; ++j) out[j] = 0.0;
    out[L - 1] = 1.0;
    return 0;
  }
  // inv and keep padded with zeros on each side: lanes not yet started (or done) read finite values.
#if defined(__AVX2__)
  const int64_t M = (K + kLanes - 1) / kLanes, pad = M * kLanes + kLanes, padded = L + 2 * pad;
  double* mem = static_cast<double*>(std::calloc(2 * padded, sizeof(double)));
  Vec* vec = static_cast<Vec*>(std::aligned_alloc(sizeof(Vec), 4 * M * sizeof(Vec)));
  if (mem == nullptr || vec == nullptr) {
    std::free(mem);
    std::free(vec);
    return 2;
  }
  double* inv_p = mem;
  double* keep_p = inv_p + padded;
  Vec* s = vec;
  Vec* y = s + M;
  Vec* a = y + M;
  Vec* b = a + M;
  std::memset(vec, 0, 4 * M * sizeof(Vec));
  std::memcpy(inv_p + pad, inv, L * sizeof(double));
  if (keep != nullptr) std::memcpy(keep_p + pad, keep, L * sizeof(double));
  for (int64_t k = 0; k < M * kLanes; ++k) {  // lanes past K: never read into the output
    a[k / kLanes][k % kLanes] = k < K ? alphas[k] : 0.0;
    b[k / kLanes][k % kLanes] = k < K ? 1.0 - alphas[k] : 1.0;
  }
  if (keep == nullptr) {
    Sweep<false>(L, K, M, inv_p + pad, keep_p + pad, a, b, s, y, out);
  } else {
    Sweep<true>(L, K, M, inv_p + pad, keep_p + pad, a, b, s, y, out);
  }
  std::free(vec);
  std::free(mem);
  return 0;
#else
  const int64_t padded = L + 2 * K, small = K + 1;
  double* mem = static_cast<double*>(std::calloc(2 * padded + 5 * small, sizeof(double)));
  if (mem == nullptr) return 2;
  double* inv_p = mem;
  double* keep_p = inv_p + padded;
  double* s = keep_p + padded;
  double* a = s + small;
  double* b = a + small;
  double* buf_x = b + small;
  double* buf_y = buf_x + small;
  std::memcpy(inv_p + K, inv, L * sizeof(double));
  if (keep != nullptr) std::memcpy(keep_p + K, keep, L * sizeof(double));
  for (int64_t k = 0; k < K; ++k) {
    a[k] = alphas[k];
    b[k] = 1.0 - alphas[k];
  }
  if (keep == nullptr) {
    Sweep<false>(L, K, inv_p + K, keep_p + K, a, b, s, buf_x, buf_y, out);
  } else {
    Sweep<true>(L, K, inv_p + K, keep_p + K, a, b, s, buf_x, buf_y, out);
  }
  std::free(mem);
  return 0;
#endif
}
