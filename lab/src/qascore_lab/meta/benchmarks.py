"""Public meta-evaluation benchmarks: which records, which statistic, which paper numbers.

A benchmark is data, not code: `BENCHMARKS` maps a name to "module:function",
and the function returns a `Benchmark` (records per data set, the human field,
the kind of statistic, the paper table to print next to ours). Another family
adds its benchmark with one entry here and one builder function in its own
module. Running a benchmark needs a `scorer(metric_spec, records) -> scores`,
given by the caller (the CLI passes one that loads qascore metrics), so this
module never imports a model. Each metric is scored once per data set and the
scores are reused by every statistic.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from qascore.meta.correlation import DEFAULT_RESAMPLES, DEFAULT_SEED, Correlation, correlate_all
from qascore.meta.fields import human_scores, number_field  # noqa: F401  (re-exported)
from qascore.meta.pairs import PairAgreement, rank_pair_agreement
from qascore.records import Record

# name -> "module:function returning a Benchmark"
BENCHMARKS: dict[str, str] = {
    "kpqa": "qascore_lab.meta.kpqa_benchmarks:table3",
    "kpqa-multi": "qascore_lab.meta.kpqa_benchmarks:table6",
    "kpqa-pairs": "qascore_lab.meta.kpqa_benchmarks:table7",
    "kpqa-ablation": "qascore_lab.meta.kpqa_benchmarks:table4",
    "qgeval": "qascore_lab.meta.qgeval_benchmarks:benchmark",
}

Scorer = Callable[[str, Sequence[Record]], Sequence[float]]


@dataclass
class Benchmark:
    """What to compute. kind="correlation": every data set's records against `human`.
    kind="pairs": records of two systems per data set, paired by `pair_key`."""

    name: str
    title: str
    kind: str
    datasets: dict[str, list[Record]]
    labels: dict[str, str] = field(default_factory=dict)          # data set -> display name
    human: str = "human"                                          # key in Record.extra
    methods: tuple[str, ...] = ("pearson", "spearman")
    paper: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)  # metric -> set -> stat
    paper_label: str = ""                                          # e.g. "KPQA Table 3"
    systems: dict[str, tuple[str, str]] = field(default_factory=dict)  # pairs: set -> (system A, B)
    pair_key: Callable[[Record], Hashable] | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class Row:
    """One (metric, data set) result."""

    metric: str
    dataset: str
    n: int
    correlations: dict[str, Correlation] = field(default_factory=dict)
    pairs: PairAgreement | None = None
    paper: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"metric": self.metric, "dataset": self.dataset, "n": self.n}
        if self.correlations:
            out["correlations"] = {k: c.as_dict() for k, c in self.correlations.items()}
        if self.pairs is not None:
            out["pairs"] = self.pairs.as_dict()
        if self.paper:
            out["paper"] = self.paper
        return out


def get(name: str, **kwargs: Any) -> Benchmark:
    """Build the named benchmark (reads its data now)."""
    if name not in BENCHMARKS:
        raise KeyError(f"unknown benchmark '{name}'; known: {', '.join(BENCHMARKS)}")
    module, func = BENCHMARKS[name].split(":")
    return getattr(importlib.import_module(module), func)(**kwargs)


def paper_numbers(resource: str, table: str) -> dict[str, dict[str, dict[str, float]]]:
    """A paper table from qascore_lab/resources/<resource>, keyed by the qascore metric spec that computes
    the paper's metric (its "metrics" map, e.g. "BLEU-1" -> "bleu1"), else by the paper's label."""
    data = json.loads(resources.files("qascore_lab").joinpath("resources", resource).read_text(encoding="utf-8"))
    names = data.get("metrics", {})
    return {(names.get(label) or label): v for label, v in data["tables"][table]["values"].items()}


def score_all(bench: Benchmark, metrics: Sequence[str], scorer: Scorer,
              progress: Callable[[str], None] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """data set -> metric spec -> scores; each metric runs once per data set."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for ds, records in bench.datasets.items():
        out[ds] = {}
        for spec in metrics:
            if progress:
                progress(f"{bench.name}: {spec} on {ds} ({len(records)} records)")
            scores = np.asarray(scorer(spec, records), dtype=float)
            if scores.shape != (len(records),):
                raise RuntimeError(f"scorer returned {scores.shape} scores for {len(records)} records")
            out[ds][spec] = scores
    return out


def evaluate(bench: Benchmark, scores: dict[str, dict[str, np.ndarray]], *, ci: bool = False,
             n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95,
             pair_options: dict[str, Any] | None = None) -> list[Row]:
    """The benchmark's statistic for every (data set, metric) of precomputed scores."""
    rows: list[Row] = []
    for ds, by_metric in scores.items():
        records = bench.datasets[ds]
        human = human_scores(records, bench.human)
        for spec, vals in by_metric.items():
            # exact spec only: `bleu1:weights=x` is not the paper's BLEU-1
            paper = bench.paper.get(spec, {}).get(ds, {})
            if bench.kind == "correlation":
                cors = correlate_all(human, vals, bench.methods, ci=ci, n_resamples=n_resamples,
                                     seed=seed, level=level)
                rows.append(Row(spec, ds, len(records), correlations=cors, paper=paper))
            elif bench.kind == "pairs":
                agreement = _pairs(bench, ds, records, human, vals, pair_options or {})
                rows.append(Row(spec, ds, agreement.n_pairs, pairs=agreement, paper=paper))
            else:
                raise ValueError(f"benchmark {bench.name}: unknown kind '{bench.kind}'")
    return rows


def run(bench: Benchmark, metrics: Sequence[str], scorer: Scorer, *,
        progress: Callable[[str], None] | None = None, **options: Any) -> list[Row]:
    """score_all then evaluate (options as for evaluate)."""
    return evaluate(bench, score_all(bench, metrics, scorer, progress), **options)


def _pairs(bench: Benchmark, ds: str, records: Sequence[Record], human: np.ndarray, scores: np.ndarray,
           options: dict[str, Any]) -> PairAgreement:
    """Pair system A's and system B's answers to the same question, then count matches.

    options: pair_by ("key" = the benchmark's pair_key, or "position" = i-th row of A with
    i-th row of B), min_gap, inclusive, ties.
    """
    sys_a, sys_b = bench.systems[ds]
    ia = [i for i, r in enumerate(records) if r.extra.get("system") == sys_a]
    ib = [i for i, r in enumerate(records) if r.extra.get("system") == sys_b]
    opts = dict(options)
    pair_by = opts.pop("pair_by", "key")
    if pair_by == "position":
        if len(ia) != len(ib):
            raise ValueError(f"{ds}: systems have {len(ia)} and {len(ib)} answers; cannot pair by position")
        pa, pb = ia, ib
    elif pair_by == "key":
        if bench.pair_key is None:
            raise ValueError(f"benchmark {bench.name} has no pair key")
        by_key: dict[Hashable, int] = {}
        for i in ib:
            k = bench.pair_key(records[i])
            if k in by_key:
                raise ValueError(f"{ds}: system {sys_b} answers the same question twice ({k!r:.80})")
            by_key[k] = i
        pa, pb = [], []
        for i in ia:
            j = by_key.get(bench.pair_key(records[i]))
            if j is not None:
                pa.append(i)
                pb.append(j)
    else:
        raise ValueError(f"unknown pairing '{pair_by}' (choose key or position)")
    return rank_pair_agreement(human[pa], human[pb], scores[pa], scores[pb], **opts)
