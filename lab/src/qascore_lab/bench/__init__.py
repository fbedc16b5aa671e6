"""Speed benchmarks run by `qascore-lab bench TARGET`: each times qascore against a reference
implementation on the same rows in one run and prints seconds, rows/s and the ratio."""
