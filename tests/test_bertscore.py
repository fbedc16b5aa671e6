"""bertscore against the bert_score package (0.3.13) on a tiny random BERT, plus hand-checked cases.

Fast: the model is the seeded tiny BERT of test_encoder.py (a local directory,
which bert_score loads with model_type=<path>, num_layers=<layer>).
bert_score pads with zero similarity where qascore masks padding out; the two
differ only when every similarity of a token is negative, which the table
below does not contain (the assertions would show it if it did).

transformers 5 note: bert_score 0.3.13 encodes an empty string with
`tokenizer.build_inputs_with_special_tokens`, which transformers 5 tokenizers
no longer have; the `empty_ok` fixture patches that one call, in the test only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
import torch

from qascore.metrics.bertscore import BertScore, read_baseline, write_baseline
from qascore.records import InputError
from qascore.weights.base import TokenWeighter
from qascore.weights.idf import IdfWeighter
from test_encoder import tiny_bert  # noqa: F401  (session fixture)

bert_score = pytest.importorskip("bert_score")

# (candidate, references): paraphrases, unrelated text, [UNK]s, repeats, multiple references, empty candidate.
TABLE: list[tuple[str, list[str]]] = [
    ("the cat sat on the mat .", ["a cat was on the mat"]),
    ("a quick brown fox", ["the quick brown fox jumps over the lazy dog"]),
    ("paris", ["the capital of france is paris", "paris", "a city in france"]),
    ("the dog the dog the dog", ["a dog"]),
    ("zebra giraffe", ["the red river is long"]),
    ("what is the capital of france ?", ["where is paris ?", "paris is the capital"]),
    ("yes", ["no", "yes", "yes ."]),
    ("", ["the lazy dog"]),
]


@pytest.fixture
def empty_ok(monkeypatch: pytest.MonkeyPatch) -> None:
    original = bert_score.utils.sent_encode

    def sent_encode(tokenizer, sent):  # noqa: ANN001, ANN202
        if sent.strip() == "":
            return [tokenizer.cls_token_id, tokenizer.sep_token_id]
        return original(tokenizer, sent)

    monkeypatch.setattr(bert_score.utils, "sent_encode", sent_encode)


def records(table: Sequence[tuple[str, list[str]]]) -> list[dict]:
    return [{"candidate": c, "references": r} for c, r in table]


def reference_scores(path: str, layer: int, idf: bool, table: Sequence[tuple[str, list[str]]]) -> np.ndarray:
    """bert_score's P, R, F for every (candidate, reference) pair, IDF fitted on all references."""
    cands = [c for c, refs in table for _ in refs]
    refs = [r for _, rs in table for r in rs]
    with torch.no_grad():
        p, r, f = bert_score.score(cands, refs, model_type=path, num_layers=layer, idf=idf, nthreads=0,
                                   device="cpu")
    return torch.stack([p, r, f], 1).numpy()


@pytest.mark.parametrize("layer,idf", [(1, False), (3, True)])
def test_agrees_with_bert_score(tiny_bert: str, empty_ok: None, layer: int, idf: bool) -> None:
    single = [(c, [r]) for c, refs in TABLE for r in refs]  # every pair as its own record
    expected = reference_scores(tiny_bert, layer, idf, TABLE)
    got = BertScore(model=tiny_bert, layer=layer, idf=idf).score(records(single))
    np.testing.assert_allclose(np.array([got.details[k] for k in "prf"]).T, expected, atol=1e-4)

    # multiple references, agg=max: F is bert_score's (max over references); P and R are those of the
    # reference with the best F (bert_score takes each part's max separately: documented difference)
    multi = BertScore(model=tiny_bert, layer=layer, idf=idf).score(records(TABLE))
    with torch.no_grad():
        _, _, f_ref = bert_score.score([c for c, _ in TABLE], [r for _, r in TABLE], model_type=tiny_bert,
                                       num_layers=layer, idf=idf, nthreads=0, device="cpu")
    np.testing.assert_allclose(multi.scores, f_ref.numpy(), atol=1e-4)
    start = 0
    for i, (_, refs) in enumerate(TABLE):
        block = expected[start: start + len(refs)]
        best = block[int(np.argmax(block[:, 2]))]
        assert multi.details["p"][i] == pytest.approx(best[0], abs=1e-4)
        assert multi.details["r"][i] == pytest.approx(best[1], abs=1e-4)
        start += len(refs)


def test_mean_aggregation_and_empty(tiny_bert: str, empty_ok: None) -> None:
    expected = reference_scores(tiny_bert, 2, False, TABLE)
    got = BertScore(model=tiny_bert, layer=2, agg="mean").score(records(TABLE))
    start = 0
    for i, (_, refs) in enumerate(TABLE):
        means = expected[start: start + len(refs)].mean(0)
        assert [got.details[k][i] for k in "prf"] == pytest.approx(list(means), abs=1e-4)
        start += len(refs)
    assert got.scores[-1] == 0.0  # empty candidate: 0, as bert_score


def test_identical_texts_score_one(tiny_bert: str) -> None:
    got = BertScore(model=tiny_bert, layer=3).score(records([("the lazy dog", ["the lazy dog"])]))
    assert got.details["p"][0] == pytest.approx(1.0, abs=1e-6)
    assert got.details["f"][0] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("docs,token,expected", [
    ([["a", "b"], ["a"], ["c"]], "a", math.log(4 / 3)),
    ([["a", "b"], ["a"], ["c"]], "b", math.log(4 / 2)),
    ([["a", "b"], ["a"], ["c"]], "z", math.log(4)),       # unseen: log(M + 1)
    ([["a", "a", "a"]], "a", math.log(2 / 2)),             # counted once per document
])
def test_idf_by_hand(docs: list[list[str]], token: str, expected: float) -> None:
    assert IdfWeighter.from_documents(docs).weigh("", [token])[0] == pytest.approx(expected)


class OnlyWord(TokenWeighter):
    """Weight 1 on one WordPiece, 0 elsewhere: P is that token's best similarity."""

    name = "only"

    def __init__(self, word: str) -> None:
        self.word = word
        self.seen: list[tuple[str, list[str]]] = []

    def weigh(self, question: str, tokens: Sequence[str]) -> np.ndarray:
        self.seen.append((question, list(tokens)))
        return np.array([1.0 if t == self.word else 0.0 for t in tokens])


def test_custom_weighter_hook(tiny_bert: str) -> None:
    """P with a one-hot weighter equals the max cosine of that token, computed here by hand."""
    from qascore.runtime.encoder import Encoder

    cand, ref = "the cat sat on the mat .", "a cat was on the mat"
    w = OnlyWord("cat")
    got = BertScore(model=tiny_bert, layer=2, weights=w).score(
        [{"question": "who sat ?", "candidate": cand, "references": [ref]}])
    enc = Encoder(tiny_bert)
    c, r = enc.embed([cand, ref], layer=2)
    unit = lambda x: x / x.norm(dim=-1, keepdim=True)  # noqa: E731
    sim = unit(c.hidden) @ unit(r.hidden).T
    pos_c, pos_r = c.tokens.index("cat"), r.tokens.index("cat")
    assert got.details["p"][0] == pytest.approx(sim[pos_c].max().item(), abs=1e-6)
    assert got.details["r"][0] == pytest.approx(sim[:, pos_r].max().item(), abs=1e-6)
    # the weighter saw the question and content WordPieces only (no [CLS]/[SEP]), each text once
    assert ("who sat ?", c.tokens[1:-1]) in w.seen and ("who sat ?", r.tokens[1:-1]) in w.seen
    assert len(w.seen) == 2
    assert "weights:only" in BertScore(model=tiny_bert, weights=w).signature


def test_zero_weights_fall_back_to_uniform(tiny_bert: str) -> None:
    """IDF fitted on one reference gives its tokens weight 0 (bert_score: NaN); we use uniform weights."""
    with pytest.warns(RuntimeWarning):
        idf = BertScore(model=tiny_bert, layer=2, idf=True).score(records([("a dog", ["the lazy dog"])]))
    plain = BertScore(model=tiny_bert, layer=2).score(records([("a dog", ["the lazy dog"])]))
    assert idf.details["r"][0] == pytest.approx(plain.details["r"][0], abs=1e-9)
    assert all(np.isfinite(idf.scores))


def test_rescale_with_baseline_file(tiny_bert: str, tmp_path: Path) -> None:
    base = {layer: [0.1 * layer, 0.2, 0.3] for layer in range(4)}
    path = tmp_path / "tiny.csv"
    write_baseline(path, base, {"note": "hand-written"})
    assert read_baseline(path)[2].tolist() == pytest.approx([0.2, 0.2, 0.3])
    plain = BertScore(model=tiny_bert, layer=2).score(records(TABLE[:3]))
    resc = BertScore(model=tiny_bert, layer=2, rescale=True, baseline=str(path)).score(records(TABLE[:3]))
    for k, b in zip("prf", base[2]):
        assert resc.details[k] == pytest.approx([(x - b) / (1 - b) for x in plain.details[k]], abs=1e-9)
    assert "rescale:tiny.csv" in resc.signature


def test_missing_baseline_says_how_to_make_it(tiny_bert: str) -> None:
    with pytest.raises(FileNotFoundError, match="qascore-lab train bertscore-baseline"):
        BertScore(model=tiny_bert, rescale=True).score(records(TABLE[:1]))


def test_options_and_signature(tiny_bert: str) -> None:
    sig = BertScore(model=tiny_bert, layer=1, idf=True).signature
    for part in ("metric:bertscore", "layer:1", "weights:idf", "rescale:false", "agg:max", "version:"):
        assert part in sig
    assert "@" in sig.split("model:")[1].split("|")[0]  # model name @ weight hash
    assert "layer:3" in BertScore(model=tiny_bert).signature  # non-default models: last layer
    with pytest.raises(ValueError):
        BertScore(model=tiny_bert, agg="median")
    with pytest.raises(ValueError):
        BertScore(model=tiny_bert, idf=True, weights=OnlyWord("a"))
    with pytest.raises(TypeError):
        BertScore(model=tiny_bert, weights="kpw")
    with pytest.raises(InputError, match="references"):
        BertScore(model=tiny_bert).score([{"candidate": "a dog", "references": []}])


def test_truncation_flag(tiny_bert: str) -> None:
    long = " ".join(["the quick brown fox"] * 6)
    with pytest.warns(UserWarning, match="truncated"):
        got = BertScore(model=tiny_bert, layer=2).score(records([("a dog", [long]), ("a dog", ["a dog"])]))
    assert got.details["truncated"] == [True, False]


def test_score_layers_equals_one_layer_at_a_time(tiny_bert: str) -> None:
    metric = BertScore(model=tiny_bert, idf=True)
    many = metric.score_layers(records(TABLE[:-1]), [1, 2, 3], chunk=3)  # chunks smaller than the set
    for layer in (1, 2, 3):
        one = BertScore(model=tiny_bert, idf=True, layer=layer).score(records(TABLE[:-1]))
        for k in "prf":
            assert many[layer].details[k] == pytest.approx(one.details[k], abs=1e-6)
        assert many[layer].signature == one.signature


def test_compute_baseline_is_mean_of_unweighted_scores(tiny_bert: str) -> None:
    from qascore.metrics.bertscore import compute_baseline

    pairs = [("the cat sat on the mat .", "where is paris ?"), ("a quick brown fox", "yes"),
             ("the red river is long", "who is the lazy dog")]
    table = compute_baseline(pairs, tiny_bert)
    assert sorted(table) == [0, 1, 2, 3]
    for layer in (0, 3):
        got = BertScore(model=tiny_bert, layer=layer).score(records([(a, [b]) for a, b in pairs]))
        assert table[layer] == pytest.approx([float(np.mean(got.details[k])) for k in "prf"], abs=1e-9)
