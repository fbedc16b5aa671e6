"""KPW weighter: word <- WordPiece mapping, zero weights, the (question, text) cache.

The fast tests use a fake tagger whose P(K) is a known function of the piece
id and of the question, so every expected value is computed by hand. The slow
tests load the shipped tagger.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from qascore.weights.kpw import KpwWeighter

PIECES = {"walk": [10], "fahrenheit": [20, 30, 40], "the": [50], "##ing": [60], "yes": [70]}


class FakeTagger:
    """P(K) of piece id i for question q: (i + len(q)) / 1000."""

    def __init__(self, use_question=True):
        self.use_question = use_question
        self.sha, self.device, self.ident = f"fake{use_question}", "cpu", "fake"
        self.calls: list = []

    def pieces(self, tokens):
        return [None if t in ("[CLS]", "[SEP]") else PIECES.get(t, []) for t in tokens]

    def probabilities(self, pairs, batch_size=64, max_len=512):
        self.calls.append(list(pairs))
        return [np.array([(i + len(q)) / 1000 for i in ids]) for q, ids in pairs]


def make(use_question=True):
    w = KpwWeighter.__new__(KpwWeighter)
    w.tagger, w.batch_size, w.max_len, w._cache = FakeTagger(use_question), 64, 512, {}
    w.use_question, w.sha = use_question, "fake"
    return w


@pytest.mark.parametrize("question,tokens,expected", [
    ("q", ["walk"], [(10 + 1) / 1000]),
    ("q", ["fahrenheit"], [np.mean([21, 31, 41]) / 1000]),               # mean of its pieces
    ("qq", ["[CLS]", "the", "##ing", "[SEP]"], [0, 52 / 1000, 62 / 1000, 0]),  # specials weigh 0
    ("q", ["walk", "\x00"], [11 / 1000, 0]),                              # no piece at all: 0
])
def test_word_weights(question, tokens, expected):
    assert make().weigh(question, tokens) == pytest.approx(expected)


@pytest.mark.parametrize("specials, extra", [
    (("[CLS]", "[SEP]", "[PAD]", "[MASK]"), set()),                  # BERT / MiniLM: its own are BERT's
    (("<s>", "</s>", "<pad>", "<mask>"), {"<s>", "</s>", "<pad>", "<mask>"}),  # MPNet: its own, and BERT's too
])
def test_zero_tokens_hold_berts_specials_whatever_the_tagger(specials, extra):
    from types import SimpleNamespace

    from qascore.weights.kpw import zero_tokens

    tok = SimpleNamespace(cls_token=specials[0], sep_token=specials[1], pad_token=specials[2], mask_token=specials[3])
    assert zero_tokens(tok) == {"[CLS]", "[SEP]", "[PAD]", "[MASK]"} | extra


def test_cache_keyed_by_question_and_text():
    w = make()
    a = w.weigh("how many?", ["yes"])
    b = w.weigh("is it?", ["yes"])           # same answer, other question: recomputed, different
    c = w.weigh("how many?", ["yes"])        # same pair: from the cache
    assert a[0] != b[0] and a[0] == c[0]
    assert len(w.tagger.calls) == 2 and len(w._cache) == 2


def test_weigh_many_dedups_within_a_batch():
    w = make()
    out = w.weigh_many([("q", ["walk", "the"]), ("q", ["walk", "the"]), ("r", ["walk"])])
    assert len(w.tagger.calls) == 1 and len(w.tagger.calls[0]) == 2
    assert out[0] == pytest.approx(out[1])


def test_without_question_the_text_alone_is_the_key():
    w = make(use_question=False)
    w.weigh("how many?", ["yes"])
    w.weigh("is it?", ["yes"])
    assert len(w._cache) == 1 and len(w.tagger.calls) == 1


# ---- the shipped tagger (slow: loads the model) ---------------------------------

@pytest.fixture(scope="module")
def shipped():
    from qascore.weights.kpw import shipped_delta

    try:
        shipped_delta("kpqa")
        return KpwWeighter()
    except FileNotFoundError as err:
        pytest.skip(f"shipped tagger or encoder package missing: {err}")


@pytest.mark.slow
@pytest.mark.parametrize("question,answer,key,filler", [
    ("how many steps are involved in a hypothesis test?", "four steps are involved in a hypothesis test .",
     "four", "involved"),
    ("who wrote the origin of species?", "the origin of species was written by charles darwin .",
     "darwin", "was"),
    ("what is the capital of france?", "the capital of france is paris .", "paris", "the"),
])
def test_shipped_tagger_weights_the_answer(shipped, question, answer, key, filler):
    tokens = answer.split()
    w = shipped.weigh(question, tokens)
    assert ((w >= 0) & (w <= 1)).all()
    assert w[tokens.index(key)] > 0.5 > w[tokens.index(filler)]


@pytest.mark.slow
def test_question_changes_the_weights(shipped):
    tokens = "paris is the capital of france and has two million people .".split()
    a = shipped.weigh("what is the capital of france?", tokens)
    b = shipped.weigh("how many people live in paris?", tokens)
    assert a[tokens.index("paris")] > b[tokens.index("paris")]
    assert b[tokens.index("million")] > a[tokens.index("million")]


@pytest.mark.slow
def test_long_answer_is_tagged_in_windows_not_cut(shipped):
    """With room for only a few answer pieces per window, every word still gets a weight."""
    tokens = ("the tower is 300 metres tall and it was built in 1889 for the world fair " * 4).split()
    small = KpwWeighter(max_len=24)
    w = small.weigh("how tall is the tower?", tokens)
    assert len(w) == len(tokens) and (w > 0).all()


@pytest.mark.parametrize("kind", ["kpqa", "kp"])
def test_shipped_delta_matches_its_card(kind):
    """Each shipped tagger's JSON card names the file beside it (hash and size), and it is under 10 MB."""
    import json

    from qascore.runtime.delta import file_sha256
    from qascore.weights.kpw import shipped_delta

    path = shipped_delta(kind)
    card = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["delta_sha256"] == file_sha256(path) and card["delta_bytes"] == path.stat().st_size
    assert path.stat().st_size <= 10_000_000


@pytest.mark.slow
def test_the_int8_tagger_reads_a_text_the_same_in_any_batch_and_near_fp32(shipped):
    """`dtype=int8` (CPU only) reads the tagger in int8 over the ranges calibrated beside it: a text's weights do not
    depend on the texts weighed with it (bit for bit), fp32's heaviest token stays a keyphrase (filler
    words move by up to 0.3: "france" in "the capital of france is paris" 0.08 -> 0.38), and the signature names
    the ranges."""
    from qascore.runtime.delta import file_sha256
    from qascore.runtime.int8 import ranges_file

    items = [("what is the capital of france?", "the capital of france is paris .".split()),
             ("who wrote the origin of species?", ("it was charles darwin , in 1859 , not wallace ; " * 3).split()),
             ("how many steps are involved in a hypothesis test?", "four steps .".split())]
    together = KpwWeighter(dtype="int8").weigh_many(items)
    apart = [KpwWeighter(dtype="int8", max_len=511).weigh_many([it])[0] for it in items]  # another cache
    assert all(np.array_equal(a, b) for a, b in zip(together, apart))
    before = torch.get_num_threads()
    try:  # two threads: the batches shared out to workers (`runtime.devices.on_threads`), the weights as on one
        torch.set_num_threads(2)
        shared = KpwWeighter(dtype="int8", max_len=510, batch_size=1).weigh_many(items)
    finally:
        torch.set_num_threads(before)
    assert all(np.array_equal(a, b) for a, b in zip(together, shared))
    exact = [shipped.weigh(q, t) for q, t in items]
    assert all(a[np.argmax(f)] > 0.5 and np.abs(a - f).mean() < 0.1 for a, f in zip(together, exact))
    ranges = file_sha256(ranges_file(KpwWeighter(dtype="int8").delta))
    assert f"dtype=int8-ranges@{ranges}" in KpwWeighter(dtype="int8").signature()
    with pytest.raises(ValueError, match="int8 runs on the CPU only"):
        KpwWeighter(dtype="int8", device="meta").tagger
