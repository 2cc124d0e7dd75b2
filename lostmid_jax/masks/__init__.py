"""Attention masks and Step-0 priors: one class per kind, owning its rule (placeholder, filled below)."""
