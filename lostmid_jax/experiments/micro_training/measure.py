"""The training runs: every (intervention, seed) trained into <run_dir>/<intervention>/seed<k>/ (resuming),
their snapshots collected (Result)."""

from __future__ import annotations

import dataclasses
import logging
import pathlib

from ...train.config import intervention_dirs
from .config import Config

_LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Result:
    """What :func:`run` returns.

    Attributes:
      config: the run's Config.
      records: flat snapshot records (one per intervention, seed and snapshot step).
      runs: {(intervention, seed): train.RunResult}.
      attn_impl: the attention implementation the runs used ("auto" resolved).
    """

    config: Config
    records: list[dict]
    runs: dict
    attn_impl: str


def run(cfg: Config, run_dir, *, progress: bool = True, mesh=None) -> Result:
    """Train every (intervention, seed) into ``run_dir`` (resuming), data-parallel over ``mesh``."""
    from ...parallel import is_process0, using_mesh
    from ...train import resolve_attn_impl, train

    out_dir = pathlib.Path(run_dir)
    attn_impl = resolve_attn_impl(cfg.base)
    base = cfg.base.replace(attn_impl=attn_impl)
    records, runs = [], {}
    _LOG.info(f"micro_training: {len(cfg.variants)} variants x {len(cfg.seeds)} seeds, attention {attn_impl}")
    with using_mesh(mesh):
        for variant in cfg.variants:
            for seed in cfg.seeds:
                first = not runs  # its set-up phases compile; the later runs reuse those programs
                res = train(base.replace(intervention=variant, seed=seed), _variant_dir(out_dir, variant) / f"seed{seed}",
                            progress=progress and is_process0(), log=_LOG.info if first else None)
                runs[(variant, seed)] = res
                for snap in res.snapshots:
                    records.append({"intervention": variant, "seed": seed,
                                    **{k: v for k, v in snap.items() if k != "profiles"}})
    return Result(cfg, records, runs, attn_impl)


def _variant_dir(out_dir: pathlib.Path, variant: str) -> pathlib.Path:
    """<out_dir>/<variant>, or the directory of its old name where a run written before the rename has one."""
    return next((out_dir / d for d in intervention_dirs(variant) if (out_dir / d).is_dir()), out_dir / variant)
