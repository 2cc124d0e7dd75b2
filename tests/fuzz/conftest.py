"""The fuzz suite: every public entry point and `lostmid` subcommand fed the input classes that broke
them once (wrong types, strings for bools, NumPy scalars, NaN / inf, huge and negative sizes).

Each case must end in one of two ways: a ValueError / TypeError / FileNotFoundError whose message
names the argument (CLI: exit status 2, one line, no traceback), or a finite, checked result. A
case that raises anything else, returns a non-finite number or runs past its time limit fails.
The outcome of every case is counted per entry point and printed at the end of the run.

Examples per entry point: LOSTMID_FUZZ_EXAMPLES (default 12; the slow profile uses 200).
"""

import collections

from fuzz_harness import COUNTS


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    terminalreporter.section("fuzz cases per entry point")
    total = collections.Counter()
    for entry in sorted(COUNTS):
        counts = COUNTS[entry]
        total.update(counts)
        terminalreporter.write_line(f"{entry:<44} {sum(counts.values()):>5}  " +
                                    ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    terminalreporter.write_line(f"{'all':<44} {sum(total.values()):>5}  " +
                                ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
