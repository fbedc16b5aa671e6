"""METEOR 1.5 against pycocoevalcap's Meteor wrapper (same jar) on the same tokens.

Slow: each side starts a JVM that loads METEOR's paraphrase tables (~20 s)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import qascore
from qascore.text import tokenize

from lexical_cases import RECORDS

meteor_mod = pytest.importorskip("pycocoevalcap.meteor.meteor")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="METEOR needs Java")]


@pytest.fixture(scope="module")
def coco_meteor():
    scorer = meteor_mod.Meteor()
    yield scorer
    proc = getattr(scorer, "meteor_p", None)
    del scorer  # the reference's own clean-up stops the jar but leaves its pipes open
    for pipe in (proc.stdin, proc.stdout, proc.stderr) if proc is not None else ():
        if pipe is not None and not pipe.closed:
            pipe.close()


def _coco(scorer, records, refs_of):
    res = {i: [" ".join(tokenize(r["candidate"]))] for i, r in enumerate(records)}
    gts = {i: [" ".join(tokenize(x)) for x in refs_of(r)] for i, r in enumerate(records)}
    return np.array(scorer.compute_score(gts, res)[1])


def test_joint_equals_coco(coco_meteor):
    got = qascore.load("meteor", agg="joint").score(RECORDS).scores
    np.testing.assert_allclose(got, _coco(coco_meteor, RECORDS, lambda r: r["references"]), rtol=0, atol=1e-12)


def test_max_is_the_best_single_reference_score(coco_meteor):
    want = [max(_coco(coco_meteor, [r], lambda r, x=x: [x])[0] for x in r["references"]) for r in RECORDS]
    got = qascore.load("meteor").score(RECORDS).scores
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_empty_and_separator_inputs_score():
    res = qascore.load("meteor").score([{"candidate": "", "references": ["a cat"]},
                                        {"candidate": "a ||| cat", "references": ["a cat"]},
                                        {"candidate": "a cat", "references": ["a cat"]}])
    assert res.scores[0] == 0.0 and 0 < res.scores[1] <= 1 and res.scores[2] > 0.9


def test_meteor_takes_no_weights_and_signs_its_version():
    with pytest.raises(TypeError):
        qascore.load("meteor", weights=None)
    assert "meteor:1.5-en-norm" in qascore.load("meteor").signature
