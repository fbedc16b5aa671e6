"""CIDEr-D against pycocoevalcap's Cider on the same tokens, in both reference protocols."""

from __future__ import annotations

import numpy as np
import pytest

import qascore
from qascore.text import tokenize
from qascore.weights import TokenWeighter

from lexical_cases import RECORDS

cider_mod = pytest.importorskip("pycocoevalcap.cider.cider")


def _coco(records, refs_of):
    res = {i: [" ".join(tokenize(r["candidate"]))] for i, r in enumerate(records)}
    gts = {i: [" ".join(tokenize(x)) for x in refs_of(r)] for i, r in enumerate(records)}
    return np.array(cider_mod.Cider().compute_score(gts, res)[1])


def test_joint_equals_coco_cider():
    got = qascore.load("cider", agg="joint").score(RECORDS).scores
    np.testing.assert_allclose(got, _coco(RECORDS, lambda r: r["references"]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("agg", ["max", "mean"])
def test_per_reference_protocol_is_one_coco_run_per_reference_column(agg):
    """Each reference position k is its own corpus (the records having a k-th reference)."""
    cols = []
    for k in range(max(len(r["references"]) for r in RECORDS)):
        rows = [i for i, r in enumerate(RECORDS) if len(r["references"]) > k]
        col = np.full(len(RECORDS), np.nan)
        col[rows] = _coco([RECORDS[i] for i in rows], lambda r, k=k: [r["references"][k]])
        cols.append(col)
    want = np.nanmax(cols, axis=0) if agg == "max" else np.nanmean(cols, axis=0)
    got = qascore.load("cider", agg=agg).score(RECORDS).scores
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_identical_single_pair_corpus_scores_zero_idf():
    """With one document every n-gram has df = N, so idf = 0 and CIDEr is 0 (COCO's behaviour)."""
    res = qascore.load("cider").score([{"candidate": "a b c", "references": ["a b c"]}])
    assert res.scores == [0.0]


class Doubler(TokenWeighter):
    name = "double"

    def weigh(self, question, tokens):
        return np.full(len(tokens), 2.0)


def test_constant_weights_leave_cider_unchanged():
    """TF-IDF vectors are compared by cosine: scaling every weight by 2 scales both vectors."""
    plain = qascore.load("cider").score(RECORDS).scores
    doubled = qascore.load("cider", weights=Doubler()).score(RECORDS).scores
    np.testing.assert_allclose(doubled, plain, rtol=1e-12, atol=1e-12)


def test_signature_and_sigma():
    sig = qascore.load("cider", sigma=3.0).signature
    assert "sigma:3" in sig and "tokenizer:ptb" in sig
    assert qascore.load("cider", sigma=3.0).score(RECORDS).scores != qascore.load("cider").score(RECORDS).scores
