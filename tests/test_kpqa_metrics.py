"""KPQA metrics = base metric + KPW weighter; values hand-computed from the paper's equations.

Fast tests replace the tagger by a fixed word -> weight table (no model), so
each expected value below is the paper's formula worked by hand:
  BLEU-1-KPQA (eq. 1) = sum of candidate weights of matched unigrams / sum of candidate weights
                        (times COCO's brevity penalty, 1 here: the candidate is not shorter);
  ROUGE-L-KPQA (eqs. 2-5): P = candidate weight of LCS tokens / candidate weight,
                        R = reference weight of LCS tokens / reference weight, F with beta 1.2.
"""

from __future__ import annotations

import numpy as np
import pytest

import qascore
from qascore.metrics import kpqa as km
from qascore.weights.base import TokenWeighter

W = {"four": 0.9, "seven": 0.8, "steps": 0.5, "are": 0.1, "involved": 0.2, "in": 0.1, "it": 0.3,
     "paris": 0.95, "is": 0.05, "the": 0.05, "capital": 0.4}


class TableWeighter(TokenWeighter):
    """Stand-in for the tagger: fixed weight per word; records the questions it was asked about."""

    name = "table"

    def __init__(self, tagger=None, device=None):
        self.tagger_arg, self.questions = tagger, []
        self.ident = f"table-tagger@{tagger}"

    def weigh(self, question, tokens):
        self.questions.append(question)
        return np.array([W.get(t, 0.0) for t in tokens])

    def signature(self):
        return f"kpw({self.ident})"


@pytest.fixture(autouse=True)
def fake_tagger(monkeypatch):
    monkeypatch.setattr(km, "KpwWeighter", TableWeighter)


def rec(cand, *refs, q="how many steps?"):
    return {"question": q, "candidate": cand, "references": list(refs)}


def fb(p, r, beta=1.2):
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p)


@pytest.mark.parametrize("metric,record,expected", [
    ("kpqa-bleu1", rec("seven steps are involved", "four steps are involved"), 0.8 / 1.6),
    ("kpqa-bleu1", rec("four steps are involved", "four steps are involved"), 1.0),
    ("kpqa-bleu1", rec("seven steps", "seven steps", "four steps"), 1.0),                # max over references
    ("kpqa-rougeL", rec("seven steps are involved", "four steps are involved in it"),
     fb(0.8 / 1.6, 0.8 / 2.1)),
    ("kpqa-rougeL", rec("four steps are involved", "four steps are involved"), 1.0),
    ("kpqa-rougeL", rec("the capital is paris", "paris is the capital", q="capital of france?"),
     fb(0.45 / 1.45, 0.45 / 1.45)),   # the only LCS is "the capital" ("paris is" is reversed)
])
def test_hand_computed(metric, record, expected):
    got = qascore.load(metric).score([record]).scores[0]
    assert got == pytest.approx(expected, abs=1e-6)


def test_precision_uses_candidate_recall_uses_reference():
    r = qascore.load("kpqa-rougeL").score([rec("seven steps are involved", "four steps are involved in it")])
    assert r.details["p"][0] == pytest.approx(0.8 / 1.6)
    assert r.details["r"][0] == pytest.approx(0.8 / 2.1)


def test_weights_from_the_record_question():
    m = qascore.load("kpqa-bleu1")
    m.score([rec("four steps", "four steps", q="Q1"), rec("seven", "four", q="Q2")])
    assert set(m.options["weights"].questions) == {"Q1", "Q2"}


@pytest.mark.parametrize("name,kind", [("kpqa-bleu1", "kpqa"), ("kpqa-rougeL", "kpqa"), ("kpqa-bertscore", "kpqa"),
                                       ("kp-bleu1", "kp"), ("kp-rougeL", "kp"), ("kp-bertscore", "kp")])
def test_default_tagger_and_signature(name, kind):
    m = qascore.load(name)
    assert m.options["weights"].tagger_arg == kind
    # the tagger is named once, inside the weighter (issue 13: no repeated hashes)
    assert m.signature.count(f"table-tagger@{kind}") == 1 and f"weights:kpw(table-tagger@{kind})" in m.signature


@pytest.mark.parametrize("name,opts", [("kpqa-bleu1", {"weights": TableWeighter()}),
                                       ("kpqa-bertscore", {"idf": True})])
def test_rejects_other_weights(name, opts):
    with pytest.raises(ValueError):
        qascore.load(name, **opts)


def test_question_is_required():
    from qascore.records import InputError

    with pytest.raises(InputError, match="question"):
        qascore.load("kpqa-rougeL").score([{"candidate": "a", "references": ["a"]}])


def test_tagger_option_reaches_the_weighter():
    from qascore.runtime.defaults import RESOURCES

    delta = str(RESOURCES / "kpqa" / "kp.safetensors")  # a real delta: a missing path is refused when loaded
    m = qascore.load("kpqa-rougeL", tagger=delta)
    assert m.options["weights"].tagger_arg == delta
