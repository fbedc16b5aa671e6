"""KPQA tagger examples from answer-equivalence pairs: span matching, qualification, held-out questions, groups.

Hand-made pairs; every expected span is read off the sentence by hand.
"""

from __future__ import annotations

import pytest

from qascore_lab.datasets.answer_equivalence import AEPair
from qascore_lab.train import kpqa_ae as ka
from qascore_lab.train.ava_data import question_key
from qascore_lab.train.kpqa_data import Example


@pytest.mark.parametrize("candidate,reference,found", [
    ("Novak Djokovic won the 2019 final.", "novak djokovic", "Novak Djokovic"),      # case-folded
    ("It is the Eiffel Tower, in Paris.", "The Eiffel Tower", "Eiffel Tower"),      # articles dropped
    ("The U.S. team won it in 1999.", "U.S.", "U.S"),                                # first to last matched word
    ("The mayor of Paris spoke in May.", "May", "May"),                              # whole tokens: not "mayor"
    ("He was born in 1809 in Kentucky.", "Kentucky, USA", None),                     # part of the reference missing
    ("Sound, light and heat are waves.", "light, and heat", "light and heat"),       # punctuation ignored
    ("A cat sat.", "the", None),                                                     # nothing left of the reference
])
def test_find_span(candidate, reference, found):
    span = ka.find_span(candidate, reference)
    assert (candidate[span[0]:span[1]] if span else None) == found


def test_find_span_multi_token_punctuated_reference():
    cand = "The U.S. team won it in 1999."
    s, e = ka.find_span(cand, "U.S. team")
    assert cand[s:e] == "U.S. team"


@pytest.mark.parametrize("candidate,reference,ok", [
    ("Paris", "Paris", False),                                   # a bare answer
    ("Gautama Buddha", "Buddha", False),                         # 2 words: not a sentence
    ("the Serbian Novak Djokovic", "Novak Djokovic", True),      # 4 words, more than the reference
    ("There are eight planets here.", "There are eight planets here.", False),  # no more words than the reference
])
def test_is_sentence(candidate, reference, ok):
    assert ka.is_sentence(candidate, reference) is ok


def _pair(line, q, ref, cand, label):
    return AEPair(line, q, ref, cand, label)


def test_from_pairs_counts_and_examples():
    pairs = [
        _pair(1, "Who won?", "Novak Djokovic", "In the end Novak Djokovic won the final.", 1),
        _pair(2, "What is the capital of France?", "Lyon", "The capital of France is Lyon today.", 0),  # incorrect, still K
        _pair(3, "What is the capital of France?", "Paris", "Paris", 1),                              # not a sentence
        _pair(4, "Where?", "Kentucky, USA", "He was born in rural Kentucky.", 1),                     # no match
        _pair(5, "Held question?", "x", "the answer is x here", 1),                                   # evaluation question
        _pair(6, "Who won?", "Novak Djokovic", "In the end, Novak Djokovic won the final!", 1),       # repeat of 1
        _pair(7, "When was it built?", "1889", "It was built in 1889 for the fair.", 1),             # SQuAD question
    ]
    ex, rep = ka.from_pairs(pairs, held_out={question_key("Held question?")},
                            squad_groups={question_key("When was it built?"): "squad:7"}, verifier_dev_seed=None)
    assert (rep.rows, rep.qualify, rep.qualify_correct, rep.qualify_incorrect) == (7, 5, 4, 1)
    assert (rep.not_a_sentence, rep.no_match, rep.eval_question, rep.duplicate) == (1, 1, 1, 1)
    assert rep.shared_with_squad == 1
    assert [e.id for e in ex] == ["ae:1", "ae:2", "ae:7"]
    assert [e.sentence[s:t] for e in ex for s, t in e.spans] == ["Novak Djokovic", "Lyon", "1889"]
    assert [e.group for e in ex] == [f"ae:{question_key('Who won?')}", f"ae:{question_key('What is the capital of France?')}",
                                     "squad:7"]
    assert all(e.source == "ae" for e in ex)


def test_from_pairs_drops_what_another_source_has():
    other = [Example("Who won?", "In the end Novak Djokovic won the final.", ((11, 25),), "squad", "squad:1")]
    pairs = [_pair(1, "who won", "Novak Djokovic", "in the end novak djokovic won the final", 1)]
    ex, rep = ka.from_pairs(pairs, seen=ka.seen_keys(other), verifier_dev_seed=None)
    assert ex == [] and rep.duplicate == 1


def test_from_pairs_drops_the_verifier_corpus_dev_questions():
    """The judge is fitted on the verification corpus's dev split: its AE questions never train the tagger."""
    from qascore_lab.train.verifier_corpus import in_dev

    qs = [f"Which number is {i}?" for i in range(200)]
    pairs = [_pair(i, q, str(i), f"The number asked for is {i} here.", 1) for i, q in enumerate(qs)]
    dev = {question_key(q) for q in qs if in_dev(question_key(q), 13)}
    assert 5 <= len(dev) <= 40                                    # about 10% by the corpus's own rule
    ex, rep = ka.from_pairs(pairs)
    assert rep.verifier_dev_question == len(dev) and len(ex) == 200 - len(dev)
    assert not {question_key(e.question) for e in ex} & dev
