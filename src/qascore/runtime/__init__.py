"""Loading models once per process: defaults, shared cache, trained deltas."""
