"""Time JAX spends compiling, read from its own monitoring events: how much of a wall time is compilation.

    with CompileLog() as log:
        f(x).block_until_ready()
    log.seconds        # wall seconds inside tracing, lowering or XLA compilation (overlaps counted once)
    log.compiles       # XLA programs compiled (or loaded from the persistent cache)
    log.by_function    # {function name: programs compiled}
    with log.window() as w:   # the same, for one part of the block
        ...
    w.seconds, w.compiles

    split = TimeSplit(log)                   # one unit of work: wall = compile + device + host
    with split.device():                     # a jitted computation run to completion (results on the host)
        ...
    split.seconds()  # {"seconds", "compile_seconds", "device_seconds", "host_seconds", "compiles"}

JAX records a time span for each jaxpr trace (``/jax/core/compile/jaxpr_trace_duration``), each lowering
to MLIR (``.../jaxpr_to_mlir_module_duration``) and each XLA compilation or persistent-cache load
(``.../backend_compile_duration``); a span nested in another (a jit traced inside a jit) is counted once:
``seconds`` is the length of the union of the spans. Only the calling process's spans are seen; the log
listens while its ``with`` block runs and nowhere else.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading

COMPILE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/jaxpr_to_mlir_module_duration",
                  "/jax/core/compile/backend_compile_duration")
"""The JAX monitoring events counted as compilation (tracing, lowering, XLA compilation)."""

BACKEND_COMPILE = COMPILE_EVENTS[2]


def union_length(spans) -> float:
    """Total length of the union of closed intervals [(start, end), ...] (seconds)."""
    total, end = 0.0, -float("inf")
    for a, b in sorted(spans):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


@dataclasses.dataclass
class Window:
    """Compilation inside one stretch of wall time (:meth:`CompileLog.window`)."""

    spans: list = dataclasses.field(default_factory=list)
    functions: list = dataclasses.field(default_factory=list)

    @property
    def seconds(self) -> float:
        """Wall seconds spent tracing, lowering or compiling (the union of the spans)."""
        return union_length(self.spans)

    @property
    def compiles(self) -> int:
        """XLA programs compiled or loaded from the persistent cache."""
        return len(self.functions)

    @property
    def by_function(self) -> dict[str, int]:
        """{function name: programs compiled}."""
        return dict(collections.Counter(self.functions))


class CompileLog(Window):
    """Listens to JAX's compilation events while its ``with`` block runs (re-entrant windows inside)."""

    def __init__(self):
        super().__init__()
        self._open: list[Window] = []
        self._lock = threading.Lock()

    def _record(self, event: str, start: float, end: float, **kwargs) -> None:
        if event not in COMPILE_EVENTS:
            return
        with self._lock:
            for target in (self, *self._open):
                target.spans.append((start, end))
                if event == BACKEND_COMPILE:
                    target.functions.append(str(kwargs.get("fun_name", "?")))

    def __enter__(self) -> "CompileLog":
        from jax import monitoring

        monitoring.register_event_time_span_listener(self._record)
        return self

    def __exit__(self, *exc) -> None:
        from jax import monitoring

        monitoring.unregister_event_time_span_listener(self._record)

    def open(self) -> Window:
        """A :class:`Window` collecting compilation from now until :meth:`close`."""
        w = Window()
        with self._lock:
            self._open.append(w)
        return w

    def close(self, w: Window) -> None:
        with self._lock:
            self._open.remove(w)

    @contextlib.contextmanager
    def window(self):
        """A :class:`Window` collecting the compilation inside the ``with`` block (as well as the whole log)."""
        w = self.open()
        try:
            yield w
        finally:
            self.close(w)


class TimeSplit:
    """The wall time of one unit of work split three ways (seconds, from its creation to :meth:`seconds`):

        compile = tracing, lowering, XLA compilation (:class:`CompileLog`)
        device  = time inside :meth:`device` blocks (jitted computations run until their results are on the
                  host) less the compilation in them
        host    = wall - compile - device (building inputs, host statistics, conversions, dispatch)
    """

    def __init__(self, log: CompileLog):
        import time

        self._clock = time.perf_counter
        self._log = log
        self._start = self._clock()
        self._window = log.open()
        self._device = self._extra_compile = 0.0

    @contextlib.contextmanager
    def device(self):
        """Count the block as device time (less the compilation inside it)."""
        start = self._clock()
        with self._log.window() as w:
            yield
        self._device += self._clock() - start - w.seconds

    def add(self, seconds: float, compile_seconds: float = 0.0) -> None:
        """Add work measured elsewhere (a share of a batched computation): ``seconds`` of wall time, of which
        ``compile_seconds`` compilation, the rest device time."""
        self._start -= seconds
        self._extra_compile += compile_seconds
        self._device += seconds - compile_seconds

    def seconds(self) -> dict[str, float]:
        """{"seconds": wall, "compile_seconds", "device_seconds", "host_seconds", "compiles"} (stops the unit)."""
        wall = self._clock() - self._start
        self._log.close(self._window)
        compile_s = self._window.seconds + self._extra_compile
        device = min(self._device, wall - compile_s)
        return {"seconds": wall, "compile_seconds": compile_s, "device_seconds": device,
                "host_seconds": wall - compile_s - device, "compiles": float(self._window.compiles)}


__all__ = ["BACKEND_COMPILE", "COMPILE_EVENTS", "CompileLog", "TimeSplit", "Window", "union_length"]
