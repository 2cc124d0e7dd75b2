#!/usr/bin/env python
"""Run every proof check: ``python proofs/check.py``.

Prints one line per lemma (name, grid, case counts, worst relative / absolute
deviation, digits agreed, time) followed by indented notes (convergence rates
and the like), and exits with status 1 if any lemma fails.

Options
  --only NAME[,NAME]   run a subset
  --quiet              lines only, no notes
  --negative-control   perturb every closed form by 1e-39 (relative) and
                       require every lemma to FAIL (exit 1 otherwise)

As a module (e.g. from tests): ``check.LEMMAS`` maps lemma name -> a function
``f(perturb=0.0, fail_fast=False) -> proofkit.Result``; one function per
lemma is also exposed under the lemma's name.

Nothing here imports lostmid_jax: the checks are an independent route.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import check_chain_sum  # noqa: E402
import check_continuum_kernel  # noqa: E402
import check_factorial_middle  # noqa: E402
import check_gamma_mixture  # noqa: E402
import check_hausdorff_bernstein  # noqa: E402
import check_hop_decomposition  # noqa: E402
import check_laguerre_form  # noqa: E402
import check_moments  # noqa: E402
import proofkit  # noqa: E402

_MODULES = (
    check_chain_sum,
    check_hausdorff_bernstein,
    check_hop_decomposition,
    check_continuum_kernel,
    check_gamma_mixture,
    check_laguerre_form,
    check_moments,
    check_factorial_middle,
)

LEMMAS = {m.NAME: m.run for m in _MODULES}
DOCS = {
    m.NAME: f"{i:02d}_{m.NAME}.md" for i, m in enumerate(_MODULES, start=1)
}

chain_sum = check_chain_sum.run
hausdorff_bernstein = check_hausdorff_bernstein.run
hop_decomposition = check_hop_decomposition.run
continuum_kernel = check_continuum_kernel.run
gamma_mixture = check_gamma_mixture.run
laguerre_form = check_laguerre_form.run
moments = check_moments.run
factorial_middle = check_factorial_middle.run

NEGATIVE_PERTURBATION = 1e-39
Result = proofkit.Result
CheckFailed = proofkit.CheckFailed


def run_all(names=None, perturb: float = 0.0, fail_fast: bool = False):
    """Run the selected lemmas; returns a list of Results (in lemma order)."""
    out = []
    for name, fn in LEMMAS.items():
        if names and name not in names:
            continue
        out.append(fn(perturb=perturb, fail_fast=fail_fast))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated lemma names")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--negative-control", action="store_true")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or None
    unknown = set(names or ()) - set(LEMMAS)
    if unknown:
        ap.error(f"unknown lemma(s): {sorted(unknown)}; known: {list(LEMMAS)}")

    t0 = time.perf_counter()
    if args.negative_control:
        ok = True
        for name, fn in LEMMAS.items():
            if names and name not in names:
                continue
            try:
                r = fn(perturb=NEGATIVE_PERTURBATION, fail_fast=True)
                detected = not r.passed
                first = r.failures[0] if r.failures else ""
            except proofkit.CheckFailed as exc:
                detected, first = True, str(exc)
            ok &= detected
            print(f"[{'DETECTED' if detected else 'MISSED  '}] {name:<20s} perturb {NEGATIVE_PERTURBATION:g}: "
                  f"{first[:110]}")
        print(f"negative control: {'all perturbations detected' if ok else 'SOME MISSED'} "
              f"({time.perf_counter() - t0:.1f}s)")
        return 0 if ok else 1

    results = []
    for name, fn in LEMMAS.items():
        if names and name not in names:
            continue
        r = fn()
        results.append(r)
        print(r.line(), flush=True)
        if not args.quiet:
            for n in r.notes:
                print(f"      - {n}")
        for f in r.failures[:5]:
            print(f"      ! {f}")
        if len(r.failures) > 5:
            print(f"      ! ... {len(r.failures) - 5} more failures")
    n_fail = sum(not r.passed for r in results)
    print(f"{len(results) - n_fail}/{len(results)} lemmas pass "
          f"(required: {proofkit.TOL_DIGITS} digits; working precision {proofkit.DPS}) "
          f"in {time.perf_counter() - t0:.1f}s")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
