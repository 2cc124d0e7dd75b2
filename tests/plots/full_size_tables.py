"""Tables at the size of the default (full) runs, synthesized in milliseconds instead of run for minutes.

The shapes are those of the default configs (depth sweep: H = 1..64, 128, 256, the five constant a, L = 2048
plus the continuum; diagnose: 5 passages at T = 1024, 24 layers, a 64 x 64 heat map; remedies: the eight
default remedies and the unmodified model at T = 1024). The values are realistic, not measured: the depth
sweep's peak-to-trough decades follow the main job's table (log10(L (1 - a) / a) at H = 1, falling by
0.3 per doubling of H, then growing linearly in H at the rates the main job shows, 847.7 decades at a = 1,
H = 256); its middle density is the factorial law at a = 1 and the geometric law below; attention ratios sit
within a few per cent of uniform, as random-init models and most trained heads do.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

DEPTHS = tuple(range(1, 65)) + (128, 256)
ALPHAS = (0.1, 0.25, 0.5, 0.75, 1.0)
LENGTH = 2048
GROWTH = {0.1: 0.053, 0.25: 0.13, 0.5: 0.30, 0.75: 0.60, 1.0: 3.31}
"""Decades of peak-to-trough per layer at large H (the main job's table at H = 256, divided by 256)."""
REMEDIES = ("rope_base:4", "rope_scaling:linear:2", "rope_scaling:dynamic:2", "rope_scaling:yarn:2",
            "markers:0.25/0.5/0.75", "reorder:first", "reorder:last", "sinks:4:256")


def _decades(a: float, h: int) -> float:
    if a == 1.0:
        return 0.0 if h == 1 else GROWTH[a] * h
    return max(math.log10(LENGTH * (1 - a) / a) - 0.3 * math.log2(h), GROWTH[a] * h)


def _log10_factorial(h: int) -> float:
    return ((h - 1) * math.log(math.log(2)) - math.lgamma(h)) / math.log(10)


def _log10_geometric(a: float, h: int) -> float:
    if a >= 1 or h < 2:
        return math.nan
    return (h * math.log(1 - a) + 2 * math.sqrt(h * a * math.log(2) / (1 - a))) / math.log(10)


def depth_sweep_tables() -> dict:
    """{"results", "profiles"} of the main job's shape (module docstring)."""
    rows = []
    for continuum in (False, True):
        for a in ALPHAS:
            for h in DEPTHS:
                recency = a ** h if a < 1 else 0.5 ** h
                primacy = (1 - recency) * min(0.9, 0.1 + 0.02 * h * a)
                middle = (1 - recency - primacy) * 0.3
                factorial = _log10_factorial(h)
                geometric = _log10_geometric(a, h)
                rows.append(dict(schedule="constant", alpha=a, depth=h, length=math.nan if continuum else LENGTH,
                                 continuum=continuum, recency_weight=recency, primacy_mass=primacy, middle_mass=middle,
                                 late_mass=1 - recency - primacy - middle,
                                 log10_middle_density=factorial if a == 1 else geometric if h > 1 else math.log10(1 - a),
                                 log10_peak_to_trough=_decades(a, h), log10_factorial_law=factorial,
                                 log10_geometric_law=geometric))
    j = np.arange(1, LENGTH + 1)
    x = j / LENGTH
    profiles = [pd.DataFrame(dict(alpha=0.5, depth=h, length=LENGTH, j=j, x=x,
                                  log10_density=-0.3 * h * np.sin(np.pi * x) + 0.5 * (j == LENGTH) * h))
                for h in (1, 2, 5, 12, 28, 64)]
    return {"results": pd.DataFrame(rows), "profiles": pd.concat(profiles, ignore_index=True)}


def _wilson_like(rate: np.ndarray, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    half = 1.96 * np.sqrt(rate * (1 - rate) / n + 1 / n ** 2)
    return np.clip(rate - half, 0, 1), np.clip(rate + half, 0, 1)


def diagnose_tables(layers: int = 24, length: int = 1024, passages: int = 5, bins: int = 64, seed: int = 0) -> dict:
    """{"accuracy", "baselines", "attention", "heatmap", "profiles"} of a default diagnose run on a 24-layer
    model (closed-book near chance, oracle near the top, as a trained model gives them)."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, passages + 1)
    acc = 0.9 - 0.4 * np.sin(np.pi * (p - 0.5) / passages)
    exact = acc - 0.1
    accuracy = pd.DataFrame(dict(length=length, passage=p, accuracy=acc, exact=exact, chance=0.2))
    for name, rate in (("accuracy", acc), ("exact", exact)):
        accuracy[f"{name}_lo"], accuracy[f"{name}_hi"] = _wilson_like(rate)
    j = np.arange(1, length + 1)
    uniform = np.cumsum((1.0 / j)[::-1])[::-1] / length
    attention = pd.concat([pd.DataFrame(dict(layer=layer, j=j, x=j / length,
                                             raw=uniform * (ratio := 1 + 0.03 * rng.standard_normal(length)),
                                             vs_uniform=ratio)) for layer in range(1, layers + 1)], ignore_index=True)
    q, k = np.meshgrid(np.arange(bins), np.arange(bins), indexing="ij")
    ratio = np.where(k <= q, np.exp(0.03 * rng.standard_normal((bins, bins))), np.nan)
    heatmap = pd.DataFrame(dict(query_bin=q.ravel(), key_bin=k.ravel(), ratio=ratio.ravel()))
    x = j / length
    shape = np.exp(-3 * np.sin(np.pi * x))
    profiles = pd.DataFrame(dict(j=j, x=x, trained=shape / shape.sum(), trained_sem=0.1 * shape / shape.sum(),
                                 step0=shape ** 0.5 / (shape ** 0.5).sum(), step0_sem=0.05 * shape ** 0.5 / shape.sum(),
                                 prior=shape ** 0.7 / (shape ** 0.7).sum()))
    base = np.array([0.25, 0.95])
    baselines = pd.DataFrame(dict(condition=["closed-book", "oracle"], accuracy=base))
    baselines["accuracy_lo"], baselines["accuracy_hi"] = _wilson_like(base)
    return {"accuracy": accuracy, "baselines": baselines, "attention": attention, "heatmap": heatmap,
            "profiles": profiles}


def remedies_tables(length: int = 1024, passages: int = 5, seed: int = 0) -> dict:
    """{"accuracy", "effects", "received"} of a default remedies run (eight remedies and the unmodified model)."""
    rng = np.random.default_rng(seed)
    names = ("none", *REMEDIES)
    p = np.arange(1, passages + 1)
    frames, received, effects = [], [], []
    j = np.arange(1, length + 1)
    for n, name in enumerate(names):
        acc = np.clip(0.85 - 0.35 * np.sin(np.pi * (p - 0.5) / passages) + 0.02 * n, 0, 1)
        lo, hi = _wilson_like(acc)
        frames.append(pd.DataFrame(dict(remedy=name, passage=p, accuracy=acc, accuracy_lo=lo, accuracy_hi=hi,
                                        chance=0.2)))
        received.append(pd.DataFrame(dict(remedy=name, j=j, x=j / length,
                                          vs_uniform=np.exp(0.004 * rng.standard_normal(length) * (1 + 0.2 * n)))))
        if name == "rope_scaling:dynamic:2":  # below the original context: a no-op, not measured (no numbers)
            effects.append(dict(remedy=name, verdict="no-op at this length", middle=np.nan, middle_lo=np.nan,
                                middle_hi=np.nan, ends=np.nan, ends_lo=np.nan, ends_hi=np.nan))
        elif name != "none":
            zero = name == "sinks:4:256"  # measured, an effect of exactly 0 with a zero-width interval
            middle, ends = (0.0, 0.0) if zero else (0.02 * n, -0.01 * n)
            effects.append(dict(remedy=name, verdict="no difference beyond noise" if zero else "helps the middle",
                                middle=middle, middle_lo=middle - (0 if zero else 0.05),
                                middle_hi=middle + (0 if zero else 0.05), ends=ends,
                                ends_lo=ends - (0 if zero else 0.04), ends_hi=ends + (0 if zero else 0.04)))
    return {"accuracy": pd.concat(frames, ignore_index=True), "effects": pd.DataFrame(effects),
            "received": pd.concat(received, ignore_index=True)}


# --- the Step-0 experiments (toy: L = 1024, 5 variants, 8 seeds, split; qwen2-0.5b: L = 2048, 24 layers, 14
# heads, 2 seeds; heat maps of the first 64 positions of layers 1, H/2 + 1 and H) -----------------------------

STEP0_PLANS = {"toy": dict(length=1024, depth=2, heads=4, seeds=8, split=True,
                           variants=("native", "nopos", "rope:1e5", "rope:5e5", "rope:1e6")),
               "qwen2-0.5b": dict(length=2048, depth=24, heads=14, seeds=2, split=False, variants=("native", "nopos"))}
HEAT_LENGTH = 64


def _measured(theory: np.ndarray, rng, noise: float) -> tuple[np.ndarray, np.ndarray]:
    """A noisy mean profile around ``theory`` (renormalized) and its standard error."""
    p = theory * np.exp(noise * rng.standard_normal(theory.size))
    p /= p.sum()
    return p, noise * p / 2


def _causal_attention(length: int, heads: int, rng) -> np.ndarray:
    """[heads, L, L] causal rows within a few per cent of uniform (1/i), as at initialization."""
    logits = np.where(np.tri(length, dtype=bool), 0.05 * rng.standard_normal((heads, length, length)), -np.inf)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    return probs / probs.sum(-1, keepdims=True)


def step0_tables(presets=tuple(STEP0_PLANS), seed: int = 0) -> dict:
    """{"profiles", "metrics", "alphas", "attention"} of a default step0 run of ``presets`` (STEP0_PLANS):
    theory rows from lostmid_jax.theory.influence_row with per-layer a_l near 0.3, measured profiles a few per
    cent of log-noise around them."""
    from lostmid_jax.theory import influence_row

    rng = np.random.default_rng(seed)
    profiles, metrics, alphas, attention = [], [], [], []
    for preset in presets:
        plan = STEP0_PLANS[preset]
        length, depth = plan["length"], plan["depth"]
        j = np.arange(1, length + 1)
        for variant in plan["variants"]:
            a_l = np.clip(0.3 + 0.05 * rng.standard_normal(depth), 0.05, 0.95)
            a_fit = float(a_l.mean())
            measured_row, fitted_row = influence_row(length, depth, a_l), influence_row(length, depth, a_fit)
            p, sem = _measured(measured_row, rng, 0.1)
            norms = 20 * p * length
            pathways = {"total": (p, sem, norms)}
            if plan["split"]:
                score = 0.02 * norms * np.exp(0.3 * rng.standard_normal(length))
                pathways["value"] = (p, sem, norms - score)
                pathways["score"] = (score / score.sum(), 0.1 * score / score.sum(), score)
            for pathway, (pp, ss, nn) in pathways.items():
                profiles.append(pd.DataFrame(dict(preset=preset, variant=variant, pathway=pathway, j=j, x=j / length,
                                                  p_mean=pp, p_sem=ss, norm_mean=nn, norm_sem=0.05 * nn,
                                                  theory_measured=measured_row, theory_fitted=fitted_row,
                                                  theory_w1fit=fitted_row)))
            sem_a = 0.01 * np.ones(depth)
            alphas.append(pd.DataFrame(dict(preset=preset, variant=variant, layer=np.arange(1, depth + 1), a_mean=a_l,
                                            a_sem=sem_a, a_lo=a_l - 2 * sem_a, a_hi=a_l + 2 * sem_a)))
            row = dict(preset=preset, variant=variant, length=length, depth=depth, seeds=plan["seeds"], a_fit=a_fit,
                       a_w1=a_fit + 0.01, score_fraction_median=0.02 if plan["split"] else math.nan)
            for name, value, half in (("a_fit", a_fit, 0.02), ("spearman_measured", 0.987, 0.004),
                                      ("spearman_fitted", 0.981, 0.006), ("wasserstein_measured", 0.0123, 0.004),
                                      ("wasserstein_fitted", 0.0188, 0.005), ("spearman_rc_measured", 0.991, 0.004),
                                      ("spearman_rc_fitted", 0.985, 0.006), ("wasserstein_w1fit", 0.0101, 0.003)):
                row.update({name: value, f"{name}_lo": value - half, f"{name}_hi": value + half})
            row.update(wasserstein_bc_measured=0.0119, wasserstein_bc_fitted=0.0181, wasserstein_bc_w1fit=0.0097)
            metrics.append(row)
            if variant == "native":
                for layer in sorted({1, depth // 2 + 1, depth}):
                    probs = _causal_attention(HEAT_LENGTH, plan["heads"], rng)
                    h, i, k = np.nonzero(np.tri(HEAT_LENGTH, dtype=bool)[None].repeat(plan["heads"], 0))
                    attention.append(pd.DataFrame(dict(preset=preset, variant=variant, layer=layer, head=h + 1,
                                                       i=i + 1, j=k + 1, prob=probs[h, i, k])))
    return {"profiles": pd.concat(profiles, ignore_index=True), "metrics": pd.DataFrame(metrics),
            "alphas": pd.concat(alphas, ignore_index=True), "attention": pd.concat(attention, ignore_index=True)}


STUDY_PLANS = {"toy-deep": (512, 12, 128), "gpt2-small": (1024, 12, 768)}
"""The step0-study's default presets: (L, depth, width)."""
STUDY_SEEDS, STUDY_BINS, NOISE_WIDTHS = (1, 2, 4, 8, 16), (256, 64, 16), (32, 64, 128, 256)


def _interval(row: dict, name: str, value: float, half: float) -> None:
    row.update({name: value, f"{name}_lo": value - half, f"{name}_hi": value + half})


def step0_study_tables(seed: int = 0) -> dict:
    """{"variants", "convergence", "profiles", "layers", "noise"} of a default step0-study run: two presets,
    seven theory variants, raw positions and 256 / 64 / 16 bins, 1..16 held-out seeds, a noise grid of four
    widths; agreement that tightens as 1/sqrt(n) and a per-position noise of 0.3/sqrt(n D/32)."""
    from lostmid_jax.analysis.theory_variants import VARIANTS
    from lostmid_jax.theory import influence_row

    rng = np.random.default_rng(seed)
    variants, convergence, profiles, layers, noise = [], [], [], [], []
    for preset, (length, depth, width) in STUDY_PLANS.items():
        j = np.arange(1, length + 1)
        binnings = [(length, True)] + [(b, False) for b in STUDY_BINS if b < length]
        theory = {}
        for k, v in enumerate(VARIANTS):
            theory[f"theory_{v}"] = influence_row(length, depth, 0.25 + 0.03 * k)
            for bins, raw in binnings:
                base = dict(preset=preset, variant=v, bins=bins, raw=raw)
                row = dict(base, fit_seeds=16, score_seeds=16, a_fit=0.25 + 0.03 * k, within_ceiling=k < 2)
                _interval(row, "spearman", 0.99 - 0.01 * k, 0.005)
                _interval(row, "wasserstein", 0.01 + 0.004 * k, 0.003)
                variants.append(row)
                for n in STUDY_SEEDS:
                    row = dict(base, seeds=n)
                    _interval(row, "spearman", 0.99 - 0.01 * k - 0.1 / n, 0.05 / math.sqrt(n))
                    _interval(row, "wasserstein", 0.01 + 0.004 * k + 0.02 / math.sqrt(n), 0.01 / math.sqrt(n))
                    _interval(row, "ceiling", 1 - 0.05 / n, 0.02 / math.sqrt(n))
                    convergence.append(row)
        p, sem = _measured(theory["theory_fitted_a"], rng, 0.05)
        profiles.append(pd.DataFrame(dict(preset=preset, j=j, x=j / length, p_mean=p, p_sem=sem, **theory)))
    for name, width in [(p, w) for p, (_, _, w) in STUDY_PLANS.items()] + [(f"toy@{w}", w) for w in NOISE_WIDTHS]:
        depth = STUDY_PLANS.get(name, (0, 2))[1]
        a = np.clip(0.3 + 0.04 * rng.standard_normal(depth), 0.05, 0.95)
        layers.append(pd.DataFrame(dict(preset=name, width=width, layer=np.arange(1, depth + 1), a_measured=a,
                                        a_measured_sem=0.01, a_jacobian=a + 0.05, kl=2e-3 / width * (1 + 0.1 * a),
                                        kl_sem=1e-4 / width)))
        if name.startswith("toy@"):
            for n in (1, 2, 4, 8, 16):
                rel = 0.3 / math.sqrt(n * width / 32)
                noise.append(dict(preset="toy", width=width, length=64, seeds=n, rel_noise=rel,
                                  rel_noise_lo=0.8 * rel, rel_noise_hi=1.3 * rel))
    return {"variants": pd.DataFrame(variants), "convergence": pd.DataFrame(convergence),
            "profiles": pd.concat(profiles, ignore_index=True), "layers": pd.concat(layers, ignore_index=True),
            "noise": pd.DataFrame(noise)}


# --- the counterfactual sweep, pretrained-vs-init and micro-training ------------------------------------------

def counterfactuals_tables() -> tuple[dict, object]:
    """({"results", "profiles"}, cfg) of the default counterfactual sweep (L = 2048, H = 1..24, 13 priors):
    computed, not synthesized, since the sweep is the theory itself (about 4 CPU-seconds)."""
    from lostmid_jax.experiments import counterfactuals as cf

    cfg = cf.Config()
    frames = {stem.removesuffix(".csv"): pd.DataFrame(rows) for stem, rows in cf.records(cf.run(cfg, progress=False)).items()}
    return frames, cfg


def pretrained_vs_init_tables(length: int = 256, depth: int = 24, seed: int = 0) -> dict:
    """{"profiles", "alphas", "metrics"} of a default compare run (L = 256, 4 seeds) on a 24-layer checkpoint:
    the random init follows its theory row; the pretrained model's profile is peaked at the ends."""
    from lostmid_jax.theory import influence_row

    rng = np.random.default_rng(seed)
    j = np.arange(1, length + 1)
    x = j / length
    profiles, alphas, metrics = [], [], []
    for model, a in (("pretrained", 0.08), ("init", 0.3)):
        a_l = np.clip(a + 0.03 * rng.standard_normal(depth), 0.01, 0.95)
        measured_row, fitted_row = influence_row(length, depth, a_l), influence_row(length, depth, float(a_l.mean()))
        shape = measured_row * (np.exp(-6 * np.sin(np.pi * x)) + 0.01 if model == "pretrained" else 1.0)
        p, sem = _measured(shape / shape.sum(), rng, 0.1)
        profiles.append(pd.DataFrame(dict(model=model, j=j, x=x, p_mean=p, p_sem=sem, norm_mean=10 * p,
                                          theory_measured=measured_row, theory_fitted=fitted_row)))
        alphas.append(pd.DataFrame(dict(model=model, layer=np.arange(1, depth + 1), a_mean=a_l, a_sem=0.005)))
        metrics.append(dict(model=model, method="randomized", seeds=4, length=length, depth=depth,
                            a_mean=float(a_l.mean()), a_fit=float(a_l.mean())))
    return {"profiles": pd.concat(profiles, ignore_index=True), "alphas": pd.concat(alphas, ignore_index=True),
            "metrics": pd.DataFrame(metrics)}


def micro_training_tables(seed: int = 0) -> tuple[dict, object]:
    """({"snapshots", "profiles", "accuracy"}, cfg) of a default train run: four interventions x 3 seeds, the
    mixed task (L = 600, two documents, 5 needle bins), snapshots at steps 0, 1, 2, 5, ..., 100; a valley that
    deepens with training, accuracy rising from chance."""
    from lostmid_jax.experiments.micro_training import Config

    cfg = Config()
    base = cfg.base
    rng = np.random.default_rng(seed)
    steps, length, bins = np.asarray(base.snapshot_steps), base.lm_length, base.needle_bins
    j = np.arange(1, length + 1)
    x = j / length
    snapshots, profiles, accuracy = [], [], []
    for k, variant in enumerate(cfg.variants):
        for s in cfg.seeds:
            for t in steps:
                growth = math.log1p(t) / math.log1p(steps.max())
                noise = 0.05 * rng.standard_normal(4)
                row = dict(intervention=variant, seed=s, step=t, acc_mean=0.07 + 0.6 * growth,
                           acc_middle=0.07 + (0.4 + 0.05 * k) * growth)
                for n, path in enumerate(("total", "value", "score")):
                    row.update({f"{path}_norm": (260 if path != "score" else 0.13) * (1 + growth) * (1 + noise[n]),
                                f"{path}_valley": 2.3 + (1 - 0.1 * k) * growth + noise[3],
                                f"{path}_spike": -0.04 + 0.2 * growth, f"{path}_doc_u": 0.02 + 0.3 * growth + noise[n]})
                snapshots.append(row)
                shape = np.exp(-(2 + 2 * growth) * np.sin(np.pi * x)) + 0.01 * rng.random(length)
                profiles.append(pd.DataFrame(dict(intervention=variant, seed=s, step=t, j=j, x=x, total=shape,
                                                  value=0.99 * shape, score=0.01 * shape)))
                centres = (np.arange(bins) + 0.5) / bins
                rate = np.clip(0.07 + growth * (0.8 - (0.4 - 0.05 * k) * np.sin(np.pi * centres))
                               + 0.03 * rng.standard_normal(bins), 0, 1)
                accuracy.append(pd.DataFrame(dict(intervention=variant, seed=s, step=t, bin=np.arange(1, bins + 1),
                                                  x=centres, accuracy=rate)))
    return ({"snapshots": pd.DataFrame(snapshots), "profiles": pd.concat(profiles, ignore_index=True),
             "accuracy": pd.concat(accuracy, ignore_index=True)}, cfg)
