"""Metric families, one module each; see `registry` for the names."""
