"""The judge's dev rule: kinds weigh the same, sources within a kind the same, each probe family a source."""

import pytest

import numpy as np

from qascore_lab.train.judge import rule, source_figures, source_of


def test_probe_rows_are_scored_by_family():
    assert source_of({"source": "probes", "kind": "probe-number"}) == "probe-number"
    assert source_of({"source": "evouna", "kind": "llm"}) == "evouna"


def test_unseen_probe_rows_are_fitted_but_not_read_by_the_rule():
    from qascore_lab.train.judge import UNSEEN

    assert source_of({"source": "probes", "kind": UNSEEN}) == UNSEEN
    assert rule({"ae": 0.9, "evouna": 0.7, UNSEEN: 0.0}) == pytest.approx(0.8)


def test_unseen_folders_take_their_own_pair_counts():
    from argparse import Namespace

    from qascore_lab.train.judge import unseen_folders

    args = Namespace(unseen_probes=["runs/probe-dates", "runs/probe-lists=300"], unseen_pairs=100)
    assert unseen_folders(args) == [("runs/probe-dates", 100), ("runs/probe-lists", 300)]
    with pytest.raises(SystemExit):
        unseen_folders(Namespace(unseen_probes=["runs/x=all"], unseen_pairs=100))


def test_rule_by_hand():
    per = {"ae": 0.9, "squad": 0.8, "wikiqa": 0.7, "evouna": 0.95,
           "probe-assertion": 1.0, "probe-number": 0.6}
    # short 0.85, sentence 0.7 (one source present), llm 0.95, probes 0.8 (two families, not rows)
    assert rule(per) == pytest.approx((0.85 + 0.7 + 0.95 + 0.8) / 4)
    assert rule({"ae": 0.9, "evouna": 0.7}) == pytest.approx(0.8)   # kinds without sources are not read


def test_probe_families_are_read_as_decisions():
    y = np.array([1, 0, 1, 0, 1, 1, 0, 0, 1, 1])
    s = np.array([0.9, 0.6, 0.8, 0.2, 0.7, 0.1, 0.9, 0.3, 0.5, 0.6])
    src = ["probe-number"] * 4 + ["probe-alias"] * 2 + ["ae"] * 4
    figs = source_figures(s, y, src, cut=0.5)
    assert figs["probe-number"] == 0.75          # right members 2/2 accepted, wrong 1/2 refused: (1 + 0.5) / 2
    assert figs["probe-alias"] == 0.5            # one member kind only: 1 of 2 accepted
    assert figs["ae"] == 0.5                     # AUROC, positives (0.5, 0.6) over negatives (0.9, 0.3): 2 of 4 pairs


def test_feature_cache_recomputes_a_folder_rebuilt_under_the_same_name(tmp_path, monkeypatch):
    import qascore.metrics.judge as judge
    from qascore.records import Record
    from qascore_lab.train.judge import feature_matrix

    calls = []

    def fake_features(recs, names, **kw):  # a model column that reads the candidate's length
        calls.append(list(names))
        return np.array([[float(len(r.candidate))] * len(names) for r in recs])

    monkeypatch.setattr(judge, "features", fake_features)
    first = [Record(id="1", question="Q?", candidate="Paris", references=["Paris"])]
    rebuilt = [Record(id="1", question="Q?", candidate="Lyon, France", references=["Paris"])]
    verifier = judge.FEATURES.index("verifier")
    assert feature_matrix("probe-x-dev", first, tmp_path)[0, verifier] == 5.0
    model_calls = len(calls)
    assert feature_matrix("probe-x-dev", first, tmp_path)[0, verifier] == 5.0   # the same rows: read from the cache
    assert len(calls) == model_calls + 1                                          # (the lexical columns only)
    assert feature_matrix("probe-x-dev", rebuilt, tmp_path)[0, verifier] == 12.0  # rebuilt: recomputed


def test_the_tagger_read_in_int8_is_its_own_column_and_reaches_the_features(tmp_path, monkeypatch):
    """`train judge --tagger-int8`: the `kpqa_rougeL` column is cached under another key (the int8 reading named)
    and computed with `features(..., tagger_int8=True)`, as the shipped card reads it; the other columns as before."""
    import qascore.metrics.judge as judge
    from qascore.records import Record
    from qascore_lab.train.judge import feature_matrix, model_hashes

    fp32, int8 = model_hashes(), model_hashes(tagger_int8=True)
    assert int8["kpqa_rougeL"] != fp32["kpqa_rougeL"] and int8["kpqa_rougeL"].startswith(str(fp32["kpqa_rougeL"]))
    assert {k: v for k, v in int8.items() if k != "kpqa_rougeL"} == {k: v for k, v in fp32.items() if k != "kpqa_rougeL"}
    seen = []

    def fake(recs, names=judge.FEATURES, **kw):
        seen.append((tuple(names), kw.get("tagger_int8", False)))
        return np.zeros((len(recs), len(names)))

    monkeypatch.setattr(judge, "features", fake)
    recs = [Record(id="1", question="Who?", candidate="Ada.", references=["Ada Lovelace"])]
    feature_matrix("x", recs, tmp_path, passes=["kpqa_rougeL"], tagger_int8=True)
    feature_matrix("x", recs, tmp_path, passes=["kpqa_rougeL"])
    assert seen == [(("kpqa_rougeL",), True), (("kpqa_rougeL",), False)]   # two columns, one per reading
