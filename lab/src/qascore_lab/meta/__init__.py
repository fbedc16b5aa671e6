"""The papers' human-judgment benchmarks (KPQA, QGEval) over the statistics of `qascore.meta`."""
