"""bertscore with the default MiniLM encoder against bert_score 0.3.13 (slow: loads the package model).

bert_score loads the same directory with model_type=<path>, num_layers=<layer>;
agreement is required to 1e-4 on P, R and F. bert_score runs with batch_size=1:
with batching it pads with zero similarity, which lifts a token's maximum to 0
when all its similarities are negative; that happens on MiniLM's last layer
(test_padding_quirk_of_bert_score shows it), qascore masks padding instead.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from qascore.runtime import defaults

bert_score = pytest.importorskip("bert_score")
pytestmark = pytest.mark.slow

TABLE: list[tuple[str, list[str]]] = [
    ("The Eiffel Tower is in Paris.", ["The Eiffel Tower is located in Paris, France."]),
    ("about 60 inches long", ["The standard size of a bathtub is 60 inches long, 32 inches wide."]),
    ("He was born in 1961 in Honolulu.", ["Barack Obama was born on August 4, 1961.", "in Honolulu, Hawaii"]),
    ("no", ["yes", "No, it is not."]),
    ("It takes 3 to 5 business days to ship the order.",
     ["Shipping usually takes three to five days.", "3-5 days", "It depends on the carrier."]),
    ("a man is playing a guitar on stage", ["A man plays the guitar.", "someone is singing"]),
    ("The mitochondria is the powerhouse of the cell", ["Mitochondria produce energy for the cell."]),
    ("Yes, he is.", ["yes he is talking to the woman", "Yes.", "he is"]),
    ("unrelated words about football scores", ["The capital of Australia is Canberra."]),
    ("Zürich's café serves crème brûlée!", ["A café in Zurich serves dessert."]),
]


def model_path() -> str:
    try:
        return defaults.resolve(defaults.ENCODER)
    except FileNotFoundError as err:
        pytest.skip(str(err))


@pytest.mark.parametrize("layer", [2, 4, 6])
@pytest.mark.parametrize("idf", [False, True])
def test_minilm_agrees_with_bert_score(layer: int, idf: bool) -> None:
    from qascore.metrics.bertscore import BertScore

    path = model_path()
    cands = [c for c, refs in TABLE for _ in refs]
    refs = [r for _, rs in TABLE for r in rs]
    with torch.no_grad():
        p, r, f = bert_score.score(cands, refs, model_type=path, num_layers=layer, idf=idf, nthreads=0,
                                   device="cpu", batch_size=1)
    expected = torch.stack([p, r, f], 1).numpy()
    single = BertScore(layer=layer, idf=idf).score([{"candidate": c, "references": [x]} for c, x in zip(cands, refs)])
    got = np.array([single.details[k] for k in "prf"]).T
    np.testing.assert_allclose(got, expected, atol=1e-4)

    with torch.no_grad():
        _, _, f_multi = bert_score.score([c for c, _ in TABLE], [r for _, r in TABLE], model_type=path,
                                         num_layers=layer, idf=idf, nthreads=0, device="cpu", batch_size=1)
    multi = BertScore(layer=layer, idf=idf).score([{"candidate": c, "references": r} for c, r in TABLE])
    np.testing.assert_allclose(multi.scores, f_multi.numpy(), atol=1e-4)


def test_padding_quirk_of_bert_score() -> None:
    """Layer 6, an unrelated pair batched with a longer one: bert_score's batched R exceeds its unbatched R."""
    from qascore.metrics.bertscore import BertScore

    path = model_path()
    cands = ["unrelated words about football scores", "It takes 3 to 5 business days to ship the order."]
    refs = ["The capital of Australia is Canberra.", "Shipping usually takes three to five days."]
    with torch.no_grad():
        batched = bert_score.score(cands, refs, model_type=path, num_layers=6, nthreads=0, device="cpu")[1]
        alone = bert_score.score(cands[:1], refs[:1], model_type=path, num_layers=6, nthreads=0, device="cpu")[1]
    ours = BertScore(layer=6).score([{"candidate": c, "references": [r]} for c, r in zip(cands, refs)])
    assert batched[0].item() > alone[0].item() + 1e-3
    assert ours.details["r"][0] == pytest.approx(alone[0].item(), abs=1e-4)


def test_default_model_baseline_is_shipped() -> None:
    from qascore.metrics.bertscore import BertScore

    model_path()
    m = BertScore(rescale=True)
    assert m.baseline_path().is_file(), "run `qascore-lab train bertscore-baseline` to make it"
    got = m.score([{"candidate": "The cat sat on the mat.", "references": ["A cat was sitting on the mat."]}])
    plain = BertScore().score([{"candidate": "The cat sat on the mat.", "references": ["A cat was sitting on the mat."]}])
    assert got.scores[0] < plain.scores[0]  # rescaling spreads scores below the raw ones (b > 0)
