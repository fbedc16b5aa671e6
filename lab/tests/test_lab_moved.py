"""Lab halves of core test files: the judge's out-of-fold fit, the SQuArE builder, the stream benchmark."""

from __future__ import annotations

import csv
from collections import defaultdict

import numpy as np
import pytest


def test_out_of_fold_scores():
    """Out-of-fold (folds by question) raw scores of an informative feature rank the classes."""
    from qascore.meta.classification import auroc
    from qascore_lab.train.judge import fit_logistic, out_of_fold

    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    informative = y + rng.normal(0, 0.3, n)           # separates the classes in every fold
    x = np.column_stack([informative, rng.normal(size=n)])
    groups = [f"q{i // 4}" for i in range(n)]
    raw, _ = out_of_fold(fit_logistic, x, y, groups)
    assert auroc(raw, list(y)) > 0.95 and np.isfinite(raw).all()


def test_out_of_fold_views_stay_in_their_questions_fold():
    """A view of a row (a copy with fewer references) trains only the models that do not score its question,
    and a matrix in `also` is scored by the model that held its question out."""
    from qascore_lab.train.judge import fit_logistic, out_of_fold

    rng = np.random.default_rng(1)
    n, per_q = 200, 4
    q = np.arange(n) // per_q
    x = np.column_stack([q, rng.normal(size=n)])
    y = rng.integers(0, 2, n)
    seen: list[set[int]] = []

    def spy(xx: np.ndarray, yy: np.ndarray) -> dict:
        seen.append(set(xx[:, 0].astype(int)))
        return fit_logistic(xx, yy)

    groups = [str(v) for v in q]
    views = (x.copy(), y.copy(), np.asarray(groups))
    _, (also,) = out_of_fold(spy, x, y, groups, views=views, also=[(x, np.asarray(groups))])
    assert [len(s) for s in seen] == [n // per_q * 4 // 5] * 5     # each fit sees its 40 training questions only
    assert np.allclose(also, out_of_fold(fit_logistic, x, y, groups, views=views)[0])


def test_sparse_views_draw_per_question():
    from qascore.records import Record
    from qascore_lab.train.judge import first_reference, sparse_views

    refs = ["Wilhelm Röntgen", "Röntgen", "W. C. Röntgen", "Wilhelm Conrad Röntgen"]
    rows = [{"source": "evouna", "qid": "q1"}, {"source": "squad", "qid": "q2"}, {"source": "evouna", "qid": "q1"},
            {"source": "evouna", "qid": "q3"}]
    recs = [Record(id=str(i), question="Who?", candidate=f"answer {i}", references=refs if i != 3 else ["one"])
            for i in range(4)]
    views = sparse_views(rows, recs, seed=13)
    assert [idx for idx, _ in views] == [[0, 2, 3]] * 3
    for (_, vr), k in zip(views, (1, 1, 2)):
        assert vr[0].references == vr[1].references                   # one draw per question
        assert len(vr[0].references) == k and set(vr[0].references) <= set(refs)
        assert vr[2].references == ["one"]
        assert [r.candidate for r in vr] == ["answer 0", "answer 2", "answer 3"]
    assert sparse_views(rows, recs, seed=13)[2][1][0].references == views[2][1][0].references
    assert [r.references for r in first_reference(recs[:1])] == [["Wilhelm Röntgen"]]


def _toy(n: int = 300, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(0, 0.5, n) > 0).astype(int)
    return x, y


def test_exported_trees_predict_as_sklearn():
    """A gradient-boosted ensemble exported to plain arrays gives scikit-learn's own probabilities."""
    from sklearn.ensemble import GradientBoostingClassifier

    from qascore.metrics.judge import predict
    from qascore_lab.train.judge import fit_trees

    x, y = _toy()
    card = {"model": fit_trees(x, y, n=20, depth=3, rate=0.1, seed=5), "platt": [1.0, 0.0]}
    ref = GradientBoostingClassifier(n_estimators=20, max_depth=3, learning_rate=0.1, subsample=0.8,
                                     random_state=5).fit(x, y)
    assert predict(card, x) == pytest.approx(ref.predict_proba(x)[:, 1], abs=1e-9)


def test_exported_monotone_trees_predict_as_sklearn():
    """The histogram ensemble with monotone constraints, exported, gives scikit-learn's probabilities."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from qascore.metrics.judge import predict
    from qascore_lab.train.judge import MONOTONE, fit_monotone_trees

    x, y = _toy()
    names = ("verifier", "log_len", "hedge")
    card = {"model": fit_monotone_trees(x, y, names, n=20, depth=3, rate=0.1, seed=5), "platt": [1.0, 0.0]}
    ref = HistGradientBoostingClassifier(max_iter=20, max_depth=3, learning_rate=0.1, random_state=5,
                                         monotonic_cst=[MONOTONE.get(f, 0) for f in names]).fit(x, y)
    assert predict(card, x) == pytest.approx(ref.predict_proba(x)[:, 1], abs=1e-6)


def test_selection_rule_by_hand():
    """The dev rule: each kind weighs the same, its sources averaged inside it."""
    from qascore_lab.train.judge import rule

    per = {"ae": 0.9, "squad": 0.7, "squad-sentref": 0.6, "wikiqa": 0.9, "selqa": 0.6, "evouna": 1.0}
    assert rule(per) == pytest.approx(((0.9 + 0.7) / 2 + (0.6 + 0.9 + 0.6) / 3 + 1.0) / 3)


@pytest.mark.slow
def test_builder_on_wikiqa_train_counts():
    """Clean-question counts against an independent count with the csv module."""
    from qascore_lab.datasets import DataNotFound
    from qascore_lab.train.square import load_split
    from qascore_lab.train.square_data import BuildStats, RefSpec, build_examples

    try:
        qs = load_split("wikiqa-train")
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    from qascore_lab.datasets import benchmark_dir

    labels: dict[str, list[int]] = defaultdict(list)
    with open(benchmark_dir("wikiqa") / "WikiQA-train.tsv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            labels[row["QuestionID"]].append(int(row["Label"]))
    clean = [v for v in labels.values() if 0 < sum(v) < len(v)]
    stats = BuildStats()
    ex = build_examples(qs, RefSpec(total=(5, 5)), seed=0, stats=stats)
    assert stats.questions - stats.skipped_questions == len(clean) == 857
    assert len(ex) == sum(len(v) for v in clean)
    assert sum(e.label for e in ex) == sum(sum(v) for v in clean)
    for e in ex:
        assert e.target not in e.positives + e.negatives


@pytest.mark.parametrize("measured, n, expected", [
    ([], 1000, None),
    ([(1000, 2.0)], 10_000, 20.0),                                  # one run: its per-record time
    # the H100 run of round 2026-11-22c: 1k in 26.0 s, 10k in 30.3 s -> 26.0 + 999,000 * 4.3 / 9,000
    ([(1000, 26.0), (10_000, 30.3)], 1_000_000, 26.0 + 999_000 * 4.3 / 9_000),
    ([(1000, 1.0), (2000, 2.0), (4000, 4.0)], 8000, 1.0 + 7000 * 2.0 / 2000),   # the last two sizes' slope
    ([(1000, 5.0), (2000, 4.0)], 10_000, 5.0),                      # noise, a faster bigger run: no negative time
])
def test_stream_bench_predicts_from_the_marginal_rate(measured, n, expected):
    from qascore_lab.bench.stream import predict_seconds

    got = predict_seconds(measured, n)
    assert got == expected if expected is None else got == pytest.approx(expected)


@pytest.mark.parametrize("fast, chosen", [(0.9145, "monotone-trees:-kpqa_rougeL"), (0.9139, "monotone-trees:all")])
def test_speed_choice_by_hand(fast, chosen):
    """The judge without the tagger replaces the best candidate only within SPEED_TOLERANCE (0.002) of it."""
    from qascore_lab.train.judge import choose

    table = {"logistic:all": {"rule": 0.9126}, "monotone-trees:all": {"rule": 0.9160},
             "monotone-trees:-kpqa_rougeL": {"rule": fast}, "logistic:-kpqa_rougeL": {"rule": 0.9159}}
    assert choose(table) == chosen


def test_only_monotone_trees_can_be_chosen():
    """A higher-scoring unconstrained or logistic candidate is reported, not chosen."""
    from qascore_lab.train.judge import choose

    table = {"trees:-length": {"rule": 0.9157}, "logistic:all": {"rule": 0.9170},
             "monotone-trees:all": {"rule": 0.9151}, "monotone-trees:-type": {"rule": 0.9149}}
    assert choose(table) == "monotone-trees:all"


@pytest.mark.parametrize("name", ["logistic:all", "monotone-trees:-nothing"])
def test_a_candidate_that_cannot_ship_is_refused_before_any_work(tmp_path, name):
    """`--candidate` names a monotone candidate; anything else stops before the corpus is read."""
    import argparse

    from qascore_lab.train.judge import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--corpus", str(tmp_path / "missing"), "--out", str(tmp_path / "out"),
                              "--candidate", name])
    with pytest.raises(SystemExit, match="monotone-trees:all"):
        run(args)
    assert not (tmp_path / "out").exists()
