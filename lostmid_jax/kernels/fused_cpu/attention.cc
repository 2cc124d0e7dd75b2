// Fused softmax attention for the CPU in float32, as two XLA FFI custom calls.
//
// Shapes: q, o [..., L, G, R, K]; k, v [..., L, G, K]; lse [..., L, G, R]
// (leading dims flattened to one batch B; N = G R query heads, G key/value
// heads, R query heads per group, K head dim). Masks are contiguous key ranges
// [lo(i), hi(i)] (MaskRule::Range): a copy of the rule whose one source is
// allows(i, j) of the mask classes in lostmid_jax/masks (kind codes:
// ops.py MASK_CODES; no sinks, no documents), tested equal to it in
// tests/kernels/test_fused_cpu_rule.py. 0-based query i, key j:
//   0 causal          (masks.Causal)            j <= i             [0, i]
//   1 bidirectional   (masks.Bidirectional)     every j            [0, L-1]
//   2 sliding window  (masks.SlidingWindow(w))  i - w < j <= i     [max(0, i-w+1), i]
//   3 prefix LM       (masks.PrefixLM(n))       j <= i or j < n    [0, min(L-1, max(i, n-1))]
//
// Forward, per query row with Qs = q / sqrt(K):
//   s_j = Qs . k_j,  m = max s,  e_j = exp(s_j - m),  l = sum e,
//   o = sum_j e_j v_j / l,  lse = m + log l.
// Backward (FlashAttention's identities, Dao et al. 2022), P_j = exp(s_j - lse):
//   dv_j += P_j dO,  dP_j = dO . v_j,  dS_j = P_j (dP_j - dO . o),
//   dq = sum_j dS_j k_j / sqrt(K),  dk_j += dS_j Qs.
// With freeze_probs, only dv (dq = dk = 0). Work is split over the (batch, group)
// pairs on XLA's intra-op thread pool; each pair's K and V are packed once as
// columns [K, L] so every inner loop runs over kTile contiguous keys.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "tiles.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace {

using namespace lostmid;  // NOLINT: the tile building blocks of tiles.h

constexpr int64_t kMaxHeadDim = 512;  // per-row accumulators live on the stack

struct Geometry {
  int64_t batch, length, groups, reps, head_dim, padded;
};

struct MaskRule {
  int64_t kind, window, prefix;
  void Range(int64_t i, int64_t length, int64_t* lo, int64_t* hi) const {
    switch (kind) {
      case 0: *lo = 0; *hi = i; break;
      case 1: *lo = 0; *hi = length - 1; break;
      case 2: *lo = std::max<int64_t>(0, i - window + 1); *hi = i; break;
      default: *lo = 0; *hi = std::min<int64_t>(length - 1, std::max<int64_t>(i, prefix - 1)); break;
    }
  }
};

// Runs fn(0..n-1) on the caller and the pool's threads; returns when all are done.
// Late-starting pool tasks find no work left and touch only the shared counters.
template <typename F>
void ParallelFor(ffi::ThreadPool& pool, int64_t n, const F& fn) {
  int64_t threads = std::min<int64_t>(pool.num_threads(), n);
  if (threads <= 1) {
    for (int64_t t = 0; t < n; ++t) fn(t);
    return;
  }
  struct Counters {
    std::atomic<int64_t> next{0}, done{0};
  };
  auto counters = std::make_shared<Counters>();
  auto work = [counters, n, &fn]() {
    for (int64_t t; (t = counters->next.fetch_add(1)) < n;) {
      fn(t);
      counters->done.fetch_add(1, std::memory_order_release);
    }
  };
  for (int64_t w = 1; w < threads; ++w) pool.Schedule([counters, n, work]() { work(); });
  work();
  while (counters->done.load(std::memory_order_acquire) < n) std::this_thread::yield();
}

// Packs rows [b, :, g, :] of x [B, L, G, K] into columns [K, padded] (zero padding).
inline void PackColumns(const float* x, const Geometry& d, int64_t b, int64_t g, float* cols) {
  const int64_t K = d.head_dim;
  for (int64_t j = 0; j < d.length; ++j) {
    const float* src = x + ((b * d.length + j) * d.groups + g) * K;
    for (int64_t k = 0; k < K; ++k) cols[k * d.padded + j] = src[k];
  }
}

// Writes columns [K, padded] back to rows [b, :, g, :] of y [B, L, G, K].
inline void UnpackColumns(const float* cols, const Geometry& d, int64_t b, int64_t g, float* y) {
  const int64_t K = d.head_dim;
  for (int64_t j = 0; j < d.length; ++j) {
    float* dst = y + ((b * d.length + j) * d.groups + g) * K;
    for (int64_t k = 0; k < K; ++k) dst[k] = cols[k * d.padded + j];
  }
}

// Rows t0 .. t0 + kRows - 1 of pair (b, g), t = i R + r (rows past L R repeat
// the last row with `live` false: they compute but add and write nothing).
struct RowBlock {
  int64_t row[kRows];  // index of the row in q / o / lse, as [B, L, G, R] flattened
  int64_t lo[kRows], hi[kRows];  // allowed keys [lo, hi]
  bool live[kRows];
  int64_t j0, j1;  // the tiles covering every row's keys

  RowBlock(const Geometry& d, const MaskRule& mask, int64_t b, int64_t g, int64_t t0) {
    j0 = d.padded;
    j1 = 0;
    for (int r = 0; r < kRows; ++r) {
      live[r] = t0 + r < d.length * d.reps;
      const int64_t t = live[r] ? t0 + r : d.length * d.reps - 1;
      const int64_t i = t / d.reps;
      row[r] = ((b * d.length + i) * d.groups + g) * d.reps + t % d.reps;
      mask.Range(i, d.length, &lo[r], &hi[r]);
      j0 = std::min(j0, (lo[r] / kTile) * kTile);
      j1 = std::max(j1, std::min(d.padded, ((hi[r] + kTile) / kTile) * kTile));
    }
  }

  // Zeroes w[r] over [j0, j1) outside row r's keys (everywhere for a dead row).
  void ZeroOutside(float* const* w) const {
    for (int r = 0; r < kRows; ++r) {
      if (!live[r]) {
        std::fill(w[r] + j0, w[r] + j1, 0.0f);
        continue;
      }
      std::fill(w[r] + j0, w[r] + lo[r], 0.0f);
      std::fill(w[r] + hi[r] + 1, w[r] + j1, 0.0f);
    }
  }
};

// Per-thread buffers of one (batch, group) pair: kRows rows of scores and of
// their gradients, and kRows query-sized rows.
struct Scratch {
  std::vector<float> s, ds, vecs;
  float* srow[kRows];
  float* dsrow[kRows];
  float* qrow[kRows];
  float* grow[kRows];
  float* orow[kRows];

  Scratch(const Geometry& d) : s(kRows * d.padded), ds(kRows * d.padded), vecs(3 * kRows * d.head_dim) {
    for (int r = 0; r < kRows; ++r) {
      srow[r] = s.data() + r * d.padded;
      dsrow[r] = ds.data() + r * d.padded;
      qrow[r] = vecs.data() + r * d.head_dim;
      grow[r] = vecs.data() + (kRows + r) * d.head_dim;
      orow[r] = vecs.data() + (2 * kRows + r) * d.head_dim;
    }
  }
};

template <int KD>
void ForwardPair(const float* q, const float* k, const float* v, float* o, float* lse,
                 const Geometry& d, const MaskRule& mask, int64_t b, int64_t g) {
  const int64_t K = KD > 0 ? KD : d.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(K));
  std::vector<float> kcols(K * d.padded, 0.0f), vcols(K * d.padded, 0.0f);
  Scratch w(d);
  PackColumns(k, d, b, g, kcols.data());
  PackColumns(v, d, b, g, vcols.data());
  for (int64_t t0 = 0; t0 < d.length * d.reps; t0 += kRows) {
    const RowBlock blk(d, mask, b, g, t0);
    for (int r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < K; ++c) w.qrow[r][c] = q[blk.row[r] * K + c] * scale;
    RowsTimesCols<KD>(w.qrow, kcols.data(), d.padded, K, blk.j0, blk.j1, w.srow);
    float m[kRows], total[kRows];
    for (int r = 0; r < kRows; ++r) {
      m[r] = RowMax(w.srow[r], blk.lo[r], blk.hi[r]);
      ExpTiles(w.srow[r], blk.j0, blk.j1, m[r]);
    }
    blk.ZeroOutside(w.srow);
    for (int r = 0; r < kRows; ++r) total[r] = TileSum(w.srow[r], blk.j0, blk.j1);
    ColsTimesWeights<KD>(w.srow, vcols.data(), d.padded, K, blk.j0, blk.j1, w.orow);
    for (int r = 0; r < kRows; ++r) {
      if (!blk.live[r]) continue;
      const float inv = 1.0f / total[r];
      for (int64_t c = 0; c < K; ++c) o[blk.row[r] * K + c] = w.orow[r][c] * inv;
      lse[blk.row[r]] = m[r] + std::log(total[r]);
    }
  }
}

template <int KD>
void BackwardPair(const float* q, const float* k, const float* v, const float* o, const float* lse,
                  const float* d_o, float* dq, float* dk, float* dv, const Geometry& d,
                  const MaskRule& mask, bool freeze_probs, int64_t b, int64_t g) {
  const int64_t K = KD > 0 ? KD : d.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(K));
  std::vector<float> kcols(K * d.padded, 0.0f), vcols(K * d.padded, 0.0f);
  std::vector<float> dk_cols(K * d.padded, 0.0f), dv_cols(K * d.padded, 0.0f);
  Scratch w(d);
  PackColumns(k, d, b, g, kcols.data());
  PackColumns(v, d, b, g, vcols.data());
  for (int64_t t0 = 0; t0 < d.length * d.reps; t0 += kRows) {
    const RowBlock blk(d, mask, b, g, t0);
    for (int r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < K; ++c) {
        w.qrow[r][c] = q[blk.row[r] * K + c] * scale;
        w.grow[r][c] = d_o[blk.row[r] * K + c];
      }
    RowsTimesCols<KD>(w.qrow, kcols.data(), d.padded, K, blk.j0, blk.j1, w.srow);
    for (int r = 0; r < kRows; ++r) ExpTiles(w.srow[r], blk.j0, blk.j1, lse[blk.row[r]]);
    blk.ZeroOutside(w.srow);  // P
    AddOuter<KD>(w.grow, w.srow, d.padded, K, blk.j0, blk.j1, dv_cols.data());
    if (freeze_probs) continue;
    RowsTimesCols<KD>(w.grow, vcols.data(), d.padded, K, blk.j0, blk.j1, w.dsrow);  // dP
    for (int r = 0; r < kRows; ++r) {
      float delta = 0.0f;
      for (int64_t c = 0; c < K; ++c) delta += w.grow[r][c] * o[blk.row[r] * K + c];
      const float* __restrict prob = w.srow[r];
      float* __restrict ds = w.dsrow[r];
      for (int64_t j = blk.j0; j < blk.j1; ++j) ds[j] = prob[j] * (ds[j] - delta);
    }
    ColsTimesWeights<KD>(w.dsrow, kcols.data(), d.padded, K, blk.j0, blk.j1, w.orow);  // dS K
    AddOuter<KD>(w.qrow, w.dsrow, d.padded, K, blk.j0, blk.j1, dk_cols.data());
    for (int r = 0; r < kRows; ++r) {
      if (!blk.live[r]) continue;
      for (int64_t c = 0; c < K; ++c) dq[blk.row[r] * K + c] = w.orow[r][c] * scale;
    }
  }
  UnpackColumns(dk_cols.data(), d, b, g, dk);
  UnpackColumns(dv_cols.data(), d, b, g, dv);
  if (freeze_probs) {
    for (int64_t i = 0; i < d.length; ++i) {
      const int64_t row0 = ((b * d.length + i) * d.groups + g) * d.reps;
      std::fill(dq + row0 * K, dq + (row0 + d.reps) * K, 0.0f);
    }
  }
}

ffi::Error Describe(ffi::AnyBuffer::Dimensions qdims, ffi::AnyBuffer::Dimensions kdims,
                    int64_t kind, int64_t window, int64_t prefix, Geometry* d, MaskRule* mask) {
  const int64_t rank = qdims.size();
  if (rank < 4 || static_cast<int64_t>(kdims.size()) != rank - 1)
    return ffi::Error::InvalidArgument("fused attention: q must be [..., L, G, R, K] and k, v [..., L, G, K]");
  d->batch = 1;
  for (int64_t a = 0; a < rank - 4; ++a) {
    if (qdims[a] != kdims[a]) return ffi::Error::InvalidArgument("fused attention: batch dims of q and k differ");
    d->batch *= qdims[a];
  }
  d->length = qdims[rank - 4];
  d->groups = qdims[rank - 3];
  d->reps = qdims[rank - 2];
  d->head_dim = qdims[rank - 1];
  if (kdims[rank - 4] != d->length || kdims[rank - 3] != d->groups || kdims[rank - 2] != d->head_dim)
    return ffi::Error::InvalidArgument("fused attention: k's [L, G, K] does not match q's");
  if (d->head_dim > kMaxHeadDim) return ffi::Error::InvalidArgument("fused attention: head dim must be <= 512");
  if (kind < 0 || kind > 3) return ffi::Error::InvalidArgument("fused attention: mask kind must be 0..3");
  d->padded = ((d->length + kTile - 1) / kTile) * kTile;
  *mask = MaskRule{kind, window, prefix};
  return ffi::Error::Success();
}

template <typename F>
void Dispatch(int64_t head_dim, const F& f) {
  switch (head_dim) {
    case 16: f(std::integral_constant<int, 16>()); break;
    case 32: f(std::integral_constant<int, 32>()); break;
    case 64: f(std::integral_constant<int, 64>()); break;
    case 128: f(std::integral_constant<int, 128>()); break;
    default: f(std::integral_constant<int, 0>()); break;
  }
}

// Checks the shapes, then runs body(kd, d, mask, b, g) for every (batch, group)
// pair on the thread pool, kd a std::integral_constant holding the template head dim.
template <typename Body>
ffi::Error ForEachPair(ffi::ThreadPool& pool, ffi::AnyBuffer::Dimensions qdims, ffi::AnyBuffer::Dimensions kdims,
                       int64_t kind, int64_t window, int64_t prefix, const Body& body) {
  Geometry d;
  MaskRule mask;
  ffi::Error err = Describe(qdims, kdims, kind, window, prefix, &d, &mask);
  if (err.failure()) return err;
  Dispatch(d.head_dim, [&](auto kd) {
    ParallelFor(pool, d.batch * d.groups, [&](int64_t t) { body(kd, d, mask, t / d.groups, t % d.groups); });
  });
  return ffi::Error::Success();
}

ffi::Error ForwardImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> q, ffi::Buffer<ffi::F32> k,
                       ffi::Buffer<ffi::F32> v, ffi::ResultBuffer<ffi::F32> o,
                       ffi::ResultBuffer<ffi::F32> lse, int64_t kind, int64_t window, int64_t prefix) {
  return ForEachPair(pool, q.dimensions(), k.dimensions(), kind, window, prefix,
                     [&](auto kd, const Geometry& d, const MaskRule& mask, int64_t b, int64_t g) {
                       ForwardPair<decltype(kd)::value>(q.typed_data(), k.typed_data(), v.typed_data(),
                                                        o->typed_data(), lse->typed_data(), d, mask, b, g);
                     });
}

ffi::Error BackwardImpl(ffi::ThreadPool pool, ffi::Buffer<ffi::F32> q, ffi::Buffer<ffi::F32> k,
                        ffi::Buffer<ffi::F32> v, ffi::Buffer<ffi::F32> o, ffi::Buffer<ffi::F32> lse,
                        ffi::Buffer<ffi::F32> d_o, ffi::ResultBuffer<ffi::F32> dq,
                        ffi::ResultBuffer<ffi::F32> dk, ffi::ResultBuffer<ffi::F32> dv, int64_t kind,
                        int64_t window, int64_t prefix, bool freeze_probs) {
  return ForEachPair(pool, q.dimensions(), k.dimensions(), kind, window, prefix,
                     [&](auto kd, const Geometry& d, const MaskRule& mask, int64_t b, int64_t g) {
                       BackwardPair<decltype(kd)::value>(q.typed_data(), k.typed_data(), v.typed_data(),
                                                         o.typed_data(), lse.typed_data(), d_o.typed_data(),
                                                         dq->typed_data(), dk->typed_data(), dv->typed_data(),
                                                         d, mask, freeze_probs, b, g);
                     });
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(LostmidAttentionForward, ForwardImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int64_t>("kind")
                                  .Attr<int64_t>("window")
                                  .Attr<int64_t>("prefix"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(LostmidAttentionBackward, BackwardImpl,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::ThreadPool>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>()
                                  .Attr<int64_t>("kind")
                                  .Attr<int64_t>("window")
                                  .Attr<int64_t>("prefix")
                                  .Attr<bool>("freeze_probs"));
