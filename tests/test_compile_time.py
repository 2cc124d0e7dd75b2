"""lostmid_jax.compile_time: compilation counted from JAX's monitoring events, and a wall time split."""

import time

import jax
import jax.numpy as jnp
import pytest

from lostmid_jax.compile_time import CompileLog, TimeSplit, union_length


def test_union_length_counts_overlaps_once():
    assert union_length([]) == 0.0
    assert union_length([(0.0, 1.0), (0.5, 2.0), (3.0, 4.0)]) == pytest.approx(3.0)
    assert union_length([(0.0, 4.0), (1.0, 2.0)]) == pytest.approx(4.0)  # nested: the outer one only


def test_log_counts_one_compile_per_new_shape():
    f = jax.jit(lambda x: jnp.sin(x) * 3.0 + 1.25)  # a fresh function: nothing of it is cached
    a, b, c, d = (jnp.arange(n, dtype=jnp.float32) for n in (3, 3, 5, 7))  # made (and compiled) before the log
    with CompileLog() as log:
        f(a).block_until_ready()
        with log.window() as w:
            f(b).block_until_ready()  # the same shape: no compile
        with log.window() as w5:
            f(c).block_until_ready()  # a new shape: one compile
    assert log.compiles == 2 and w.compiles == 0 and w5.compiles == 1
    assert log.by_function == {"jit(<lambda>)": 2} and w5.seconds > 0 and log.seconds >= w5.seconds
    f(d).block_until_ready()  # outside the block: not heard
    assert log.compiles == 2


def test_time_split_adds_up_to_the_wall_time():
    g = jax.jit(lambda x: jnp.cos(x) @ x.T)
    x = jnp.ones((4, 4), jnp.float32)
    with CompileLog() as log:
        split = TimeSplit(log)
        time.sleep(0.02)  # host
        with split.device():
            g(x).block_until_ready()
        split.add(1.0, 0.25)  # a share of work measured elsewhere
        parts = split.seconds()
    assert parts["compiles"] == 1 and parts["compile_seconds"] > 0.25
    assert parts["host_seconds"] >= 0.02 and parts["device_seconds"] >= 0.75
    assert parts["seconds"] == pytest.approx(parts["compile_seconds"] + parts["device_seconds"]
                                             + parts["host_seconds"])
