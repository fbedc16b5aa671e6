"""EM, token F1, BLEU-1..4 and ROUGE-L against independent implementations.

Expected values are computed inside the tests by pycocoevalcap (BLEU, ROUGE-L),
rouge-score (ROUGE-L F1) and sacrebleu (sentence BLEU) on the same tokens, or by
hand for small (weighted) cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

import qascore
from qascore.records import InputError
from qascore.text import tokenize
from qascore.weights import TokenWeighter, UniformWeighter

from lexical_cases import RECORDS

bleu_mod = pytest.importorskip("pycocoevalcap.bleu.bleu")
rouge_mod = pytest.importorskip("pycocoevalcap.rouge.rouge")


def _coco_inputs(records, column=None):
    res = {i: [" ".join(tokenize(r["candidate"]))] for i, r in enumerate(records)}
    if column is None:
        gts = {i: [" ".join(tokenize(x)) for x in r["references"]] for i, r in enumerate(records)}
    else:
        gts = {i: [" ".join(tokenize(r["references"][column]))] for i, r in enumerate(records)}
    return gts, res


def _coco_bleu(records, agg):
    if agg == "joint":
        return np.array(bleu_mod.Bleu(4).compute_score(*_coco_inputs(records), verbose=0)[1])
    cols = []
    for rec in records:  # each reference alone, then max / mean per record
        per = [bleu_mod.Bleu(4).compute_score(*_coco_inputs([{**rec, "references": [x]}]), verbose=0)[1]
               for x in rec["references"]]
        per = np.array(per)[:, :, 0]  # (refs, 4)
        cols.append(per.max(axis=0) if agg == "max" else per.mean(axis=0))
    return np.array(cols).T


@pytest.mark.parametrize("agg", ["max", "mean", "joint"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_bleu_equals_pycocoevalcap(n, agg):
    expected = _coco_bleu(RECORDS, agg)[n - 1]
    got = qascore.load(f"bleu{n}", agg=agg).score(RECORDS).scores
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def _coco_rouge(records, agg):
    if agg == "joint":
        return rouge_mod.Rouge().compute_score(*_coco_inputs(records))[1]
    out = []
    for rec in records:
        per = [rouge_mod.Rouge().compute_score(*_coco_inputs([{**rec, "references": [x]}]))[1][0]
               for x in rec["references"]]
        out.append(max(per) if agg == "max" else float(np.mean(per)))
    return np.array(out)


@pytest.mark.parametrize("agg", ["max", "mean", "joint"])
def test_rougeL_equals_pycocoevalcap(agg):
    got = qascore.load("rougeL", agg=agg).score(RECORDS).scores
    np.testing.assert_allclose(got, _coco_rouge(RECORDS, agg), rtol=0, atol=1e-12)


@pytest.mark.parametrize("cand,ref", [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("a b c d e f", "f e d c b a"),
    ("police killed the gunman", "the gunman killed police"),
    ("one two three", "four five"),
])
def test_rougeL_f1_equals_rouge_score(cand, ref):
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    want = rouge_scorer.RougeScorer(["rougeL"]).score(ref, cand)["rougeL"]
    res = qascore.load("rougeL", beta=1.0).score([{"candidate": cand, "references": [ref]}])
    assert res.details["p"][0] == pytest.approx(want.precision, abs=1e-12)
    assert res.details["r"][0] == pytest.approx(want.recall, abs=1e-12)
    assert res.scores[0] == pytest.approx(want.fmeasure, abs=1e-12)


@pytest.mark.parametrize("cand,refs", [
    ("the cat sat on the mat today", ["the cat sat on a mat today", "a cat was on the mat"]),
    ("he walks into the room and sits down", ["he walks into the room and then sits down"]),
    ("boil the egg for about ten minutes", ["boil the egg for ten minutes", "about ten minutes or so"]),
])
def test_bleu4_joint_equals_sacrebleu_sentence_bleu(cand, refs):
    """Where every n-gram precision is non-zero COCO's smoothing is negligible (<1e-6):
    sacrebleu without smoothing, on the same tokens, gives the same sentence BLEU-4."""
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none", effective_order=False)
    want = bleu.sentence_score(cand, refs).score / 100
    got = qascore.load("bleu4", agg="joint").score([{"candidate": cand, "references": refs}]).scores[0]
    assert got == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("cand,refs,em,f1", [
    ("The Paris", ["paris"], 1.0, 1.0),
    ("in Paris, France", ["Paris"], 0.0, 2 * (1 / 3) * 1 / (1 / 3 + 1)),
    ("Paris", ["London", "paris."], 1.0, 1.0),
    ("x y z", ["z w"], 0.0, 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)),
    ("a b c", ["c d"], 0.0, 0.5),                 # 'a' is an article: b c vs c d
    ("", [""], 1.0, 1.0),                     # SQuAD: both empty count as a match
    ("", ["paris"], 0.0, 0.0),
    ("the", ["paris"], 0.0, 0.0),             # normalises to empty
])
def test_em_f1_hand_computed(cand, refs, em, f1):
    rec = [{"candidate": cand, "references": refs}]
    assert qascore.load("em").score(rec).scores[0] == em
    assert qascore.load("f1").score(rec).scores[0] == pytest.approx(f1, abs=1e-12)


# -- weighted variants, hand-computed ------------------------------------------------------

class TableWeighter(TokenWeighter):
    """Weights from a token -> weight table; records every batch it is asked for."""

    name = "table"

    def __init__(self, table):
        self.table, self.calls = table, []

    def weigh(self, question, tokens):
        return np.array([self.table.get(t, 1.0) for t in tokens], dtype=float)

    def weigh_many(self, items):
        self.calls.append(list(items))
        return super().weigh_many(items)


def _one(metric, cand, ref, table, **opts):
    w = TableWeighter(table)
    res = qascore.load(metric, weights=w, **opts).score([{"question": "q", "candidate": cand, "references": [ref]}])
    return res, w


@pytest.mark.parametrize("cand,ref,table,matched,total", [
    ("a b c", "a c", {"a": 1, "b": 2, "c": 3}, 4.0, 6.0),
    ("a a b", "a b", {"a": 3, "b": 2}, 3.0 + 2.0, 8.0),   # 'a' twice, once clipped: 6 * 1/2
    ("x y", "z", {"x": 5, "y": 1}, 0.0, 6.0),
])
def test_weighted_bleu1_is_weighted_clipped_precision(cand, ref, table, matched, total):
    res, _ = _one("bleu1", cand, ref, table)
    want = (matched + 1e-15) / (total + 1e-9)            # candidate longer than or equal to ref: no BP
    assert res.scores[0] == pytest.approx(want, rel=1e-12)


def test_weighted_rougeL_uses_candidate_weights_for_p_and_reference_weights_for_r():
    wc = {"a": 1, "b": 1, "c": 4, "d": 1, "x": 6}
    res, _ = _one("rougeL", "a b c d", "a c d x", wc)
    p, r = (1 + 4 + 1) / 7, (1 + 4 + 1) / (1 + 4 + 1 + 6)
    assert res.details["p"][0] == pytest.approx(p, abs=1e-12)
    assert res.details["r"][0] == pytest.approx(r, abs=1e-12)
    assert res.scores[0] == pytest.approx((1 + 1.44) * p * r / (r + 1.44 * p), abs=1e-12)


def test_weighted_rougeL_picks_the_heaviest_longest_subsequence():
    res, _ = _one("rougeL", "a b", "b a", {"a": 1, "b": 5}, beta=1.0)
    assert res.details["p"][0] == pytest.approx(5 / 6) and res.details["r"][0] == pytest.approx(5 / 6)


def test_weighted_f1():
    res, _ = _one("f1", "x y y", "y z", {"x": 2, "y": 1, "z": 3})
    # y: candidate mass 2 (two occurrences), one matched -> 1 of 4; reference 1 of 4
    assert res.details["p"][0] == pytest.approx(0.25) and res.details["r"][0] == pytest.approx(0.25)


def test_weighter_gets_the_metric_tokens_in_one_batch_per_side():
    recs = [{"question": "q1", "candidate": "Don't stop.", "references": ["do not stop", "don't stop"]},
            {"question": "q1", "candidate": "Don't stop.", "references": ["never stop"]}]
    w = TableWeighter({})
    qascore.load("bleu1", weights=w).score(recs)
    cands, refs = w.calls
    assert cands == [("q1", ["do", "n't", "stop"])]              # each distinct (question, text) once
    assert refs == [("q1", ["do", "not", "stop"]), ("q1", ["do", "n't", "stop"]), ("q1", ["never", "stop"])]


@pytest.mark.parametrize("metric,agg", [(m, a) for m in ("bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")
                                        for a in ("max", "mean", "joint")] + [("f1", "max"), ("f1", "mean")])
def test_uniform_weights_reproduce_unweighted_exactly(metric, agg):
    plain = qascore.load(metric, agg=agg).score(RECORDS)
    uniform = qascore.load(metric, agg=agg, weights=UniformWeighter()).score(RECORDS)
    assert plain.scores == uniform.scores
    assert plain.details == uniform.details


# -- edge cases and errors -------------------------------------------------------------------

@pytest.mark.parametrize("metric", ["bleu1", "bleu4", "rougeL", "cider", "f1", "em"])
@pytest.mark.parametrize("cand,ref", [("", "a reference"), ("an answer", ""), ("", ""), ("...", "?!")])
def test_empty_texts_score_without_nan(metric, cand, ref):
    res = qascore.load(metric).score([{"candidate": cand, "references": [ref]},
                                      {"candidate": "a b c", "references": ["a b c"]}])
    assert all(math.isfinite(x) for x in res.scores)
    if metric in ("bleu1", "bleu4", "rougeL", "cider"):
        assert res.scores[0] == pytest.approx(0.0, abs=1e-9)


def test_missing_references_names_line_and_field():
    with pytest.raises(InputError) as err:
        qascore.load("bleu1").score([{"candidate": "a", "references": ["a"]}, {"candidate": "b"}])
    assert err.value.field == "references" and err.value.line == 2


def test_empty_reference_list_is_an_error():
    with pytest.raises(InputError, match="references"):
        qascore.load("rougeL").score([{"candidate": "a", "references": []}])


@pytest.mark.parametrize("metric,opts,exc", [
    ("bleu1", {"agg": "median"}, ValueError),
    ("f1", {"agg": "joint"}, ValueError),
    ("rougeL", {"tokenizer": "nope"}, ValueError),
    ("bleu1", {"weights": "kpw"}, TypeError),
    ("em", {"weights": UniformWeighter()}, TypeError),
    ("em", {"tokenizer": "ptb"}, ValueError),
    ("rougeL", {"colour": 1}, TypeError),
])
def test_bad_options(metric, opts, exc):
    with pytest.raises(exc):
        qascore.load(metric, **opts)


def test_signature_names_tokenizer_agg_weights_version():
    sig = qascore.load("rougeL", weights=TableWeighter({})).signature
    for part in ("metric:rougeL", "tokenizer:ptb", "agg:max", "weights:table", "beta:1.2",
                 f"version:{qascore.__version__}"):
        assert part in sig
    assert "weights:uniform" in qascore.load("bleu4").signature
    assert qascore.load("f1").signature != qascore.load("f1", agg="mean").signature


def test_details_follow_the_best_reference():
    res = qascore.load("rougeL").score([RECORDS[0]])
    p, r, f = res.details["p"][0], res.details["r"][0], res.details["f"][0]
    assert f == res.scores[0] and f == pytest.approx((1 + 1.44) * p * r / (r + 1.44 * p))
