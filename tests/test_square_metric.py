"""The `square` metric (the shipped pooled head over the `ava` reads, or a single-input delta) and its inputs."""

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
    assert "square@" in res.signature and "layout:pooled" in res.signature and "ava:ava@" in res.signature
    # the same input gives the same number (batching and de-duplication do not change it, to float rounding: a
    # kernel may sum a padded batch in another order)
    again = metric.score(recs[:1])
    assert again.scores[0] == pytest.approx(res.scores[0], abs=1e-4)


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
    with pytest.warns(UserWarning, match="at most 4 positive and 4 negative references"):
        res = qascore.load("square").score([rec, {**rec, "references": best}])
    assert res.scores[0] == pytest.approx(res.scores[1], abs=1e-6)
    assert res.details["truncated"] == [True, False] and "refs:4" in res.signature
    full = qascore.load("square:max_references=12").score([rec])
    assert full.scores[0] != pytest.approx(res.scores[0], abs=1e-4)


@pytest.mark.parametrize("positive, negative, expected", [
    ([], [], [0.0, 0.0, 0.0, 0.0, 0.0]),
    ([2.0, -1.0], [], [0.5, 1.0, 0.0, 0.0, 0.0]),
    ([1.0], [-3.0, 0.5, -1.0], [1.0, 1.0, 0.5, 0.0, 1.0]),
    ([], [4.0, -2.0], [0.0, 0.0, 0.0, 4.0, 1.0]),
])
def test_pooled_features_by_hand(positive, negative, expected):
    """The head's inputs: mean positive log-odds, has a positive, the largest negative log-odds beside a positive
    or alone, has a negative."""
    from qascore.metrics.square import pooled_features

    assert pooled_features(positive, negative) == pytest.approx(expected)


def test_pooled_probability_by_hand():
    """sigmoid(bias + w . x): 1 / (1 + e^-(0.5 + 2*1 - 1*3)) = 1 / (1 + e^0.5) = 0.3775406688; stable for a large
    negative sum (no overflow)."""
    from qascore.metrics.square import pooled_probability

    card = {"weights": [2.0, 0.0, -1.0, 7.0, 0.0], "bias": 0.5}
    assert pooled_probability(card, [1.0, 1.0, 3.0, 0.0, 1.0]) == pytest.approx(0.3775406688, abs=1e-9)
    assert pooled_probability(card, [-1000.0, 0.0, 0.0, 0.0, 0.0]) == pytest.approx(0.0, abs=1e-300)


def test_a_card_with_other_features_or_a_nan_weight_is_refused(tmp_path):
    import json

    from qascore.metrics.square import POOLED_FEATURES, read_card

    good = {"features": list(POOLED_FEATURES), "weights": [1.0, 0.0, -0.1, 0.2, -0.5], "bias": 0.0, "threshold": 0.5,
            "ava_model": "ava@000000000000"}
    for name, card in (("other.json", {**good, "features": ["mean_positive"]}),
                       ("nan.json", {**good, "weights": [float("nan"), 0.0, 0.0, 0.0, 0.0]}),
                       ("thr.json", {**good, "threshold": 5})):
        (tmp_path / name).write_text(json.dumps(card))
        with pytest.raises(ValueError, match=name):
            read_card(str(tmp_path / name))


@needs_model
def test_a_card_fitted_on_another_ava_is_refused(tmp_path):
    import json

    import qascore
    from qascore.metrics.square import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.read_text())
    path = tmp_path / "square.json"
    path.write_text(json.dumps({**card, "ava_model": "ava@000000000000"}))
    with pytest.raises(ValueError, match="refit it"):
        qascore.load("square", model=str(path)).score([{"question": QUESTION, "candidate": "Paris.",
                                                        "references": REFS}])


@needs_model
@pytest.mark.slow
def test_the_pooled_score_is_the_head_over_avas_own_reads():
    """Independent path: `ava` scores each (question, reference, candidate) alone; the head applied by hand to
    the log-odds of those scores gives the `square` probability, negatives included."""
    import json
    import math

    import qascore
    from qascore.metrics.square import DEFAULT_MODEL

    card = json.loads(DEFAULT_MODEL.read_text())
    cand = "The capital of France is Paris."
    square = qascore.load("square")
    ava = qascore.load("ava", dtype=square.options["dtype"])   # the precision `square` reads its pairs in
    pos = [ava.score([{"question": QUESTION, "candidate": cand, "references": [r]}]).scores[0] for r in REFS]
    neg = [ava.score([{"question": QUESTION, "candidate": cand, "references": [n]}]).scores[0] for n in NEGS]
    lo = [math.log(p / (1 - p)) for p in pos]
    ln = [math.log(p / (1 - p)) for p in neg]
    x = [sum(lo) / len(lo), 1.0, max(ln), 0.0, 1.0]
    z = card["bias"] + sum(w * f for w, f in zip(card["weights"], x))
    res = square.score([{"question": QUESTION, "candidate": cand, "references": REFS, "negatives": NEGS}])
    assert res.scores[0] == pytest.approx(1 / (1 + math.exp(-z)), abs=1e-6)
    assert res.details["correct"][0] == (res.scores[0] >= card["threshold"])


@pytest.mark.parametrize("device, bf16_units, expected", [("cpu", True, "bf16"), ("cpu", False, None),
                                                          ("cuda", True, None)])
def test_auto_precision_is_bf16_only_on_a_cpu_with_bf16_units(monkeypatch, device, bf16_units, expected):
    from qascore.metrics import square
    from qascore.runtime import encoder

    monkeypatch.setattr(encoder, "cpu_has_bf16", lambda: bf16_units)
    assert square.default_dtype(device) == expected


def test_the_precision_that_runs_is_in_the_options_and_the_signature(monkeypatch):
    import qascore
    from qascore.runtime import encoder

    monkeypatch.setattr(encoder, "cpu_has_bf16", lambda: True)
    auto = qascore.load("square", device="cpu")
    assert auto.options["dtype"] == "bf16" and "|dtype:bf16|" in auto.signature
    exact = qascore.load("square", device="cpu", dtype="fp32")
    assert exact.options["dtype"] is None and "dtype" not in exact.signature   # as every metric's exact default
