"""The `square` metric (shipped delta) and the SQuArE data builder on the real WikiQA files."""

from __future__ import annotations


import pytest

from qascore.records import InputError

MODEL = pytest.importorskip("qascore.metrics.square").DEFAULT_MODEL
needs_model = pytest.mark.skipif(not MODEL.is_file(), reason=f"{MODEL} not trained yet (qascore-lab train square)")

QUESTION = "what is the capital of france?"
REFS = ["Paris is the capital and most populous city of France."]
NEGS = ["Lyon is the third-largest city of France.", "France is a country in Western Europe."]


@needs_model
def test_needs_some_reference():
    import qascore

    with pytest.raises(InputError, match="references"):
        qascore.load("square").score([{"question": QUESTION, "candidate": "Paris.", "references": [],
                                       "negatives": []}])


@needs_model
def test_blank_references_and_negatives_are_not_read():
    """Invisible-only references and negatives (`blank`) count as absent: the score equals the one without
    them, and a record left with neither is the same error as an empty one."""
    import qascore

    metric = qascore.load("square")
    rec = {"question": QUESTION, "candidate": "Paris.", "references": REFS}
    res = metric.score([rec, {**rec, "references": [*REFS, " "], "negatives": ["", "\u200b"]}])
    assert res.scores[1] == pytest.approx(res.scores[0], abs=1e-6)
    with pytest.raises(InputError, match="references"):
        metric.score([{"question": QUESTION, "candidate": "Paris.", "references": ["\ufeff"], "negatives": [" "]}])


@needs_model
@pytest.mark.slow
def test_square_ranks_the_right_answer_first():
    import qascore

    metric = qascore.load("square")
    recs = [
        {"question": QUESTION, "candidate": "The capital of France is Paris.", "references": REFS, "negatives": NEGS},
        {"question": QUESTION, "candidate": "Berlin is the capital of Germany.", "references": REFS, "negatives": NEGS},
        {"question": QUESTION, "candidate": "The capital of France is Paris.", "references": REFS},  # no negatives
    ]
    res = metric.score(recs)
    assert len(res.scores) == 3 and all(0.0 <= s <= 1.0 for s in res.scores)
    assert res.scores[0] > res.scores[1]
    assert "square@" in res.signature and "layout:square" in res.signature
    # the same input gives the same number (batching and de-duplication do not change it)
    again = metric.score(recs[:1])
    assert again.scores[0] == pytest.approx(res.scores[0], abs=1e-6)


@pytest.mark.slow
def test_prompt_through_the_real_tokenizer():
    from qascore.records import Record
    from qascore.runtime.encoder import load_tokenizer
    from qascore.runtime.square_layouts import square_layout
    from qascore.runtime.verifier import encode_view

    tok = load_tokenizer()
    rec = Record(question="Who wrote Hamlet?", candidate="Shakespeare wrote it.", references=["By Shakespeare."],
                 negatives=["Marlowe wrote plays."])
    ids, types = encode_view(tok, square_layout(rec)[0], 64)
    assert tok.decode(list(ids)) == ("[CLS] question : who wrote hamlet? target : shakespeare wrote it. "
                                     "pos _ ref : by shakespeare. neg _ ref : marlowe wrote plays. [SEP]")
    assert set(types) == {0}


def test_encode_view_of_a_huge_part_keeps_the_same_prefix():
    """A 20,000-word reference is encoded from its first max_len words: the ids equal those of trimming the
    whole text's pieces by hand, and the cut is reported."""
    from qascore.runtime.encoder import load_tokenizer
    from qascore.runtime.verifier import Part, encode_view

    tok = load_tokenizer()
    long_text = " ".join(["unbelievably long-winded words,"] * 7000)
    cut: list[bool] = []
    ids, _ = encode_view(tok, ([Part("who wrote hamlet?", keep=True)], [Part(long_text)]), 64, cut)
    q = tok.encode("who wrote hamlet?", add_special_tokens=False)
    rest = tok.encode(long_text, add_special_tokens=False)[:64 - 3 - len(q)]
    assert list(ids) == [tok.cls_token_id, *q, tok.sep_token_id, *rest, tok.sep_token_id] and cut == [True]


@needs_model
@pytest.mark.slow
def test_an_alias_list_is_cut_to_the_best_matching_references():
    """Twelve aliases: `square` reads the 4 with the largest token recall (the same score as giving only
    those), marks the record truncated, and `max_references=12` reads them all (another score)."""
    import qascore

    aliases = [f"alias number {i}" for i in range(10)] + ["Paris", "City of Paris"]
    rec = {"question": QUESTION, "candidate": "The capital of France is Paris.", "references": aliases}
    # "Paris" (recall 1), "City of Paris" (2/3), then the first two zero-recall aliases; kept in file order
    best = ["alias number 0", "alias number 1", "Paris", "City of Paris"]
    with pytest.warns(UserWarning, match="at most 4 positive references"):
        res = qascore.load("square").score([rec, {**rec, "references": best}])
    assert res.scores[0] == pytest.approx(res.scores[1], abs=1e-6)
    assert res.details["truncated"] == [True, False] and "refs:4" in res.signature
    full = qascore.load("square:max_references=12").score([rec])
    assert full.scores[0] != pytest.approx(res.scores[0], abs=1e-4)
