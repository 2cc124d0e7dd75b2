"""What every CSV column of micro-training means (:data:`COLUMNS`)."""

from __future__ import annotations

_KEYS = {"intervention": ("training variant: none (baseline), middle_weighted_loss, oversample_middle or curriculum; "
                         "middle_loss in runs written before the rename", ""),
         "seed": ("seed of the model init and the data stream", ""),
         "step": ("optimizer steps taken when the snapshot was measured (0: the initialization)", "steps")}
_PATHWAYS = {"total": "the full Jacobian", "value": "the value pathway (attention probabilities frozen)",
             "score": "the score pathway (total minus value)"}
COLUMNS = {
    "snapshots.csv": {
        **_KEYS,
        **{k: v for path, what in _PATHWAYS.items() for k, v in {
            f"{path}_norm": (f"pathway norm sqrt(sum_j n_j^2) of {what}", ""),
            f"{path}_valley": (f"valley depth log10(n_L / mean middle n_j) of {what} (train/metrics.py)", "log10"),
            f"{path}_spike": (f"mean log10(n_b / median of the neighbours) at interior document starts b, {what}; "
                              "empty without interior boundaries", "log10"),
            f"{path}_doc_u": (f"document-local U log10(sqrt(start * end edge) / middle), mean over documents, "
                              f"{what}; empty when no document is long enough", "log10"),
        }.items()},
        "acc_mean": ("retrieval accuracy, mean over needle bins; empty for task lm", ""),
        "acc_middle": ("retrieval accuracy of the central needle bin(s); empty for task lm", ""),
    },
    "profiles.csv": {
        **_KEYS,
        "j": ("input position, 1-based (1..L; L is the output token's own position)", ""),
        "x": ("normalized position j/L", ""),
        **{path: (f"influence n_j = ||d y_L / d x_j||_F through {what}", "") for path, what in _PATHWAYS.items()},
    },
    "strength.csv": {**_KEYS, "layer": ("layer l, 1-based", ""),
                     "a": ("measured attention strength a_l on the profile input", "")},
    "accuracy.csv": {**_KEYS, "bin": ("needle bin b, 1-based (by the needle's pair index in the context)", ""),
                     "x": ("bin centre (b - 1/2) / bins, as a fraction of the context's pairs", ""),
                     "accuracy": ("fraction of exact argmax answers in the bin", "")},
    "documents.csv": {**_KEYS, "document": ("document c, 1-based, in the profile input", ""),
                      "doc_u": ("document-local U log10(sqrt(start * end edge) / middle) of the total "
                                "profile; empty when the document is too short", "log10")},
}
