"""KPQA tagger training pieces on a tiny random BERT (no downloaded weights), plus a slow smoke run."""

from __future__ import annotations

import argparse
import json

import pytest
import torch

from qascore.train import kpqa as tk
from qascore.train.kpqa_data import Encoded
from qascore.weights.kpw_model import IGNORE, KeyphraseTagger, additive_mask, layout


@pytest.fixture(scope="module")
def tiny():
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=3, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, attn_implementation="eager")
    return KeyphraseTagger(BertModel(cfg)).eval()


def _rows():
    a = layout(1, 2, [5, 6, 7], [8, 9, 10, 11], True)
    b = layout(1, 2, [5], [12], True)
    return [Encoded(a.input_ids, a.token_type_ids, [IGNORE] * 5 + [1, 1, 0, 0] + [IGNORE]),
            Encoded(b.input_ids, b.token_type_ids, [IGNORE] * 3 + [1] + [IGNORE])]


@pytest.mark.parametrize("n_frozen", [0, 1, 2])
def test_cached_split_path_equals_full_forward(tiny, n_frozen):
    rows = _rows()
    ids, types, mask = tk._batch(rows)
    with torch.no_grad():
        full = tiny(ids, types, mask)
        cached = tk.cache_lower(tiny, rows, n_frozen, "t")
        split, labels = tk._upper(tiny, cached, rows, n_frozen)
    for j, r in enumerate(rows):  # padded positions may differ; real ones must not
        n = len(r.input_ids)
        assert torch.allclose(full[j, :n], split[j, :n], atol=1e-5)
    assert labels.tolist()[1][:5] == [IGNORE, IGNORE, IGNORE, 1, IGNORE]


def test_trained_names_are_top_layers_and_head(tiny):
    names = tiny.trained_names(2)
    assert all(n.startswith(("head.", "encoder.encoder.layer.2.")) for n in names)
    assert any(n.startswith("head.") for n in names) and any("layer.2." in n for n in names)


def test_additive_mask():
    m = additive_mask(torch.tensor([[1, 1, 0]]), torch.float32)
    assert m.shape == (1, 1, 1, 3) and m[0, 0, 0, 0] == 0 and m[0, 0, 0, 2] < -1e30


def test_bucket_groups_by_length():
    rows = [Encoded([0] * n, [0] * n, [0] * n) for n in (5, 1, 4, 2, 3)]
    assert tk.bucket(rows, 2) == [[1, 3], [4, 2], [0]]


def test_evaluate_counts_k_tokens(tiny):
    """With the head forced to always say K: recall 1, precision = share of K among labelled tokens."""
    rows = _rows()
    head = tiny.head[-1]
    saved = (head.weight.detach().clone(), head.bias.detach().clone())
    with torch.no_grad():
        head.weight.zero_()
        head.bias.copy_(torch.tensor([0.0, 5.0]))
    try:
        hidden = tk.cache_lower(tiny, rows, 1, "t")
        res = tk.evaluate(tiny, hidden, rows, 1)
    finally:
        with torch.no_grad():
            head.weight.copy_(saved[0])
            head.bias.copy_(saved[1])
    assert res["recall"] == 1.0 and res["precision"] == pytest.approx(3 / 5) and res["tokens"] == 5
    assert res["f1"] == pytest.approx(2 * 0.6 / 1.6)


@pytest.mark.slow
def test_train_smoke_writes_delta_and_card(tmp_path):
    """A tiny real run: the delta loads into a KPW weighter and the card records the command."""
    from qascore.datasets import DataNotFound
    from qascore.weights.kpw import KpwWeighter

    p = argparse.ArgumentParser()
    tk.add_arguments(p)
    out = tmp_path / "t.safetensors"
    args = p.parse_args(["--limit", "120", "--epochs", "1", "--out", str(out)])
    try:
        card = tk.train(args, command="test")
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved["command"] == "test" and saved["seed"] == 1 and saved["data"]["examples"] == 120
    assert card["delta_bytes"] < 10_000_000
    w = KpwWeighter(out).weigh("who?", ["ann", "wrote", "it"])
    assert w.shape == (3,) and ((w > 0) & (w < 1)).all()
