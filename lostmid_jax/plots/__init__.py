"""Matplotlib figures of the experiments.

Every plot function returns its ``matplotlib.figure.Figure`` and accepts
``ax=``: None draws a new Figure (built without pyplot, so no window backend
is needed and nothing is left open), or the caller's Axes (a sequence of
Axes for multi-panel figures) to draw into. Each module's ``all_figures``
writes the experiment's PNG files and returns their paths. No module here
selects a matplotlib backend and none imports experiment or training code:
the figures take records, arrays and duck-typed configs.

Positions follow the package convention: 1-based j, x = j/L; layers are
numbered from 1.
"""

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
