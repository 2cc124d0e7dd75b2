"""Matplotlib figures (Agg backend; files, never windows)."""

import matplotlib

matplotlib.use("Agg")

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
