"""Text tools only the studies use (perturbations for the QRelScore robustness study, WordNet)."""
