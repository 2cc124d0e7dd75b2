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

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

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

}  // namespace

// out [L] = the row after layers with weights alphas [K] (each in (0, 1]), of the prior with inv [L] = 1 / c
// and keep [L] (0.0 at each segment's last position, else 1.0; nullptr: one segment). Returns 0, or 1 for
// bad sizes, 2 when memory runs out.
extern "C" int lostmid_segmented_row(int64_t L, int64_t K, const double* alphas, const double* inv,
                                     const double* keep, double* out) {
  if (L < 1 || K < 0) return 1;
  if (K == 0) {
    for (int64_t j = 0; j < L; ++j) out[j] = 0.0;
    out[L - 1] = 1.0;
    return 0;
  }
  // inv and keep padded with K zeros on each side: lanes not yet started (or done) read finite values.
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
}
