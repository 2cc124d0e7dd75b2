"""Issue 37 (item 3): a 4-seed step0 smoke compiles its programs for the first seed only; no shape
recompiles per seed or per chunk of cotangents."""

import pytest

from lostmid_jax.compile_time import CompileLog
from lostmid_jax.experiments.arguments import nest
from lostmid_jax.experiments.step0 import SMOKE, Config, measure
from lostmid_jax.runs.config import from_dict


@pytest.mark.extended  # ~10 s: compiles the toy model's programs afresh (the 2-seed check on the shared run is
# tests/experiments/test_step0.py::test_timings_split_each_unit_and_nothing_recompiles_per_seed)
def test_four_seeds_compile_once(tmp_path):
    # L = 24 and chunk = 1 (4 probes: 4 chunks per backward) are used by no other test: the engine compiles here
    cfg = from_dict(Config, nest({**SMOKE, "influence.seeds": 4, "influence.length": 24, "variants": ("native",),
                                  "influence.chunk": 1, "split": False}))
    with CompileLog() as log:
        units = measure.run_all(cfg, tmp_path, progress=False)[("toy", "native")]
    per_seed = [int(u["compiles"]) for u in units]
    assert per_seed[0] >= 1 and per_seed[1:] == [0, 0, 0], per_seed
    assert log.by_function.get("jit(cotangent_sq_norms)") == 1, log.by_function  # one program for every chunk
    for u in units:
        parts = u["compile_seconds"] + u["device_seconds"] + u["host_seconds"]
        assert abs(parts - u["seconds"]) < 1e-6 and min(u["compile_seconds"], u["device_seconds"]) >= 0
