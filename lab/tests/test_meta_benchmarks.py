"""The benchmark registry and runner, on a tiny in-test benchmark (fast) and on KPQA data (slow)."""

from __future__ import annotations

from typing import Sequence

import pytest
from scipy import stats

from qascore_lab.meta import benchmarks as bm
from qascore.records import Record


def _rec(i: int, q: str, system: str, human: float, m: float) -> Record:
    return Record(id=str(i), question=q, candidate="c", references=["r"],
                  extra={"human": human, "system": system, "m": m}, line=i + 1, source="<tiny>")


def tiny(root=None) -> bm.Benchmark:
    """Two systems answering three questions, listed in different orders."""
    recs = [_rec(0, "q1", "A", 5.0, 0.9), _rec(1, "q2", "A", 1.0, 0.4), _rec(2, "q3", "A", 4.0, 0.2),
            _rec(3, "q3", "B", 1.5, 0.1), _rec(4, "q1", "B", 2.0, 0.3), _rec(5, "q2", "B", 4.5, 0.8)]
    return bm.Benchmark(name="tiny", title="tiny", kind="pairs", datasets={"d": recs},
                        systems={"d": ("A", "B")}, pair_key=lambda r: r.question,
                        paper={"m": {"d": {"match_percent": 50.0}}})


def field_scorer(spec: str, records: Sequence[Record]) -> list[float]:
    return [r.extra[spec] for r in records]


def test_pairs_by_key_and_by_position():
    bench = tiny()
    # by question: q1 (5 vs 2, metric .9>.3 match), q2 (1 vs 4.5, .4<.8 match), q3 (4 vs 1.5, .2>.1 match)
    (row,) = bm.run(bench, ["m"], field_scorer)
    assert row.pairs.n_pairs == 3 and row.pairs.percent == 100.0 and row.paper == {"match_percent": 50.0}
    # by position: (q1,q3) 5 vs 1.5 .9>.1 match; (q2,q1) 1 vs 2 gap<2 dropped; (q3,q2) 4 vs 4.5 dropped
    (row,) = bm.run(bench, ["m"], field_scorer, pair_options={"pair_by": "position"})
    assert row.pairs.n_pairs == 1


def test_correlation_benchmark_scores_once_per_dataset():
    calls = []

    def counting(spec, records):
        calls.append(spec)
        return field_scorer(spec, records)

    bench = tiny()
    bench.kind = "correlation"
    rows = bm.run(bench, ["m"], counting, ci=True, n_resamples=50)
    assert calls == ["m"]
    human = [r.extra["human"] for r in bench.datasets["d"]]
    metric = [r.extra["m"] for r in bench.datasets["d"]]
    assert rows[0].correlations["pearson"].value == pytest.approx(stats.pearsonr(human, metric)[0])
    assert rows[0].correlations["spearman"].ci_low is not None


def test_registry_is_one_entry(monkeypatch, capsys):
    monkeypatch.setitem(bm.BENCHMARKS, "tiny", f"{__name__}:tiny")
    assert bm.get("tiny").name == "tiny"
    with pytest.raises(KeyError, match="unknown benchmark"):
        bm.get("nope")


def test_paper_numbers_are_keyed_by_qascore_names():
    t3 = bm.paper_numbers("kpqa_paper.json", "table3")
    assert t3["bleu1"]["marco"]["pearson"] == 0.349  # KPQA Table 3, BLEU-1, MS-MARCO
    t7 = bm.paper_numbers("kpqa_paper.json", "table7")
    assert set(t7["rougeL"]) == {"marco", "avsd"}


# -- KPQA data (../shared/data) --------------------------------------------------------------
def _kpqa(name: str, **kw) -> bm.Benchmark:
    from qascore_lab.datasets import DataNotFound
    try:
        return bm.get(name, **kw)
    except DataNotFound as err:
        pytest.skip(f"KPQA human-eval data not available: {err}")


@pytest.mark.slow
def test_kpqa_pair_counts():
    """Our question-matched pairs vs the paper's counts (93 MS-MARCO, 193 AVSD)."""
    bench = _kpqa("kpqa-pairs")
    zero = lambda spec, recs: [0.0] * len(recs)  # noqa: E731  (counts do not depend on the metric)
    by_key = {r.dataset: r.pairs.n_pairs for r in bm.run(bench, ["zero"], zero)}
    by_pos = {r.dataset: r.pairs.n_pairs for r in bm.run(bench, ["zero"], zero, pair_options={"pair_by": "position"})}
    assert by_key["marco"] == 93 and by_pos["marco"] == 93
    assert by_pos["avsd"] == 193          # the paper's count: rows paired by position
    assert by_key["avsd"] < 193           # pairing the same question gives fewer pairs


@pytest.mark.slow
def test_kpqa_table3_bleu1_end_to_end(capsys):
    """`qascore-lab meta --benchmark kpqa --metric bleu1` against the paper's Table 3 BLEU-1 row."""
    pytest.importorskip("qascore.metrics.lexical")
    import json

    from qascore_lab.cli import main
    _kpqa("kpqa")
    assert main(["meta", "--benchmark", "kpqa", "--metric", "bleu1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [r["dataset"] for r in rows] == ["marco", "avsd", "narrativeqa", "semeval"]
    for row in rows:
        for method in ("pearson", "spearman"):
            assert row["correlations"][method]["value"] == pytest.approx(row["paper"][method], abs=0.0015)


def test_paper_number_only_for_the_exact_spec():
    bench = tiny()
    bench.kind = "correlation"
    bench.paper = {"m": {"d": {"pearson": 0.5}}}

    def scorer(spec, records):
        return field_scorer("m", records)

    rows = bm.run(bench, ["m", "m:weights=other"], scorer)
    assert rows[0].paper == {"pearson": 0.5} and rows[1].paper == {}


@pytest.mark.slow
@pytest.mark.parametrize("name,sets,metric", [
    ("kpqa", ["marco", "avsd", "narrativeqa", "semeval"], "kpqa-bertscore"),
    ("kpqa-multi", ["marco-multi"], "kpqa-rougeL"),
    ("kpqa-ablation", ["marco"], "kp-bleu1"),
    ("kpqa-pairs", ["marco", "avsd"], "kpqa-bleu1"),
])
def test_kpqa_benchmarks_load_with_paper_numbers(name, sets, metric):
    bench = _kpqa(name)
    assert list(bench.datasets) == sets
    assert set(bench.paper[metric]) == set(sets)
    assert all("human" in r.extra for recs in bench.datasets.values() for r in recs)
