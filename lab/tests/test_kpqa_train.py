"""KPQA tagger training pieces on a tiny random BERT (no downloaded weights), plus a slow smoke run."""

from __future__ import annotations

import argparse
import json

import pytest
import torch

from qascore_lab.train import kpqa as tk
from qascore_lab.train.kpqa_data import Encoded
from qascore.runtime.partial import additive_mask
from qascore.weights.kpw_model import IGNORE, KeyphraseTagger, layout


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


@pytest.mark.parametrize("n_frozen", [0, 1, 2])
def test_mpnet_split_path_equals_full_forward(n_frozen):
    """MPNet adds a relative-position bias in every layer, which its own forward makes; the layer-by-layer
    path of training must add it too (it did not before MPNet taggers were trained)."""
    from transformers import MPNetConfig, MPNetModel

    torch.manual_seed(0)
    cfg = MPNetConfig(vocab_size=50, hidden_size=16, num_hidden_layers=3, num_attention_heads=2,
                      intermediate_size=32, max_position_embeddings=64)
    model = KeyphraseTagger(MPNetModel(cfg).eval()).eval()
    model.encoder.set_attn_implementation("eager")
    rows = _rows()
    ids, types, mask = tk._batch(rows)
    with torch.no_grad():
        full = model(ids, types, mask)
        split, _ = tk._upper(model, tk.cache_lower(model, rows, n_frozen, "t"), rows, n_frozen)
    for j, r in enumerate(rows):
        n = len(r.input_ids)
        assert torch.allclose(full[j, :n], split[j, :n], atol=1e-5)


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
    from qascore_lab.datasets import DataNotFound
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
    # --evaluate scores the saved (fp16) delta on the same dev split: the figures of the kept epoch
    again = tk.evaluate_delta(args, out)
    assert {"select", "non_polar"} <= set(card["dev"]["subsets"])
    for subset, figures in card["dev"]["subsets"].items():
        assert again[subset]["tokens"] == figures["tokens"]
        assert again[subset]["loss"] == pytest.approx(figures["loss"], abs=2e-3)
        assert again[subset]["f1"] == pytest.approx(figures["f1"], abs=0.02)


def _tiny_model(seed: int = 0) -> KeyphraseTagger:
    from transformers import BertConfig, BertModel

    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=3, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, attn_implementation="eager")
    return KeyphraseTagger(BertModel(cfg)).eval()


def test_lora_trained_names_are_adapters_layernorms_and_head():
    m = _tiny_model()
    assert m.add_adapters(1, 4, 8.0) == 2 * 6      # 6 linear layers in each of layers 1 and 2
    names = m.trained_names(1, lora=True)
    assert all(n.startswith("head.") or (".lora_" in n or "LayerNorm" in n) for n in names)
    assert not any("layer.0." in n for n in names)
    # per layer: 6 adapters x (A, B) + 2 LayerNorms x (weight, bias); the head: 2 linears x (weight, bias)
    assert len(names) == 2 * (12 + 4) + 4


def test_lora_merge_equals_unmerged_forward():
    """The merged adapters (what loading does) compute what training computed."""
    from qascore.runtime.lora import merge_lora

    m = _tiny_model()
    m.add_adapters(0, 4, 8.0)
    with torch.no_grad():
        for n, p in m.named_parameters():
            if ".lora_b" in n:
                p.normal_(0, 0.1)   # a non-zero update (B starts at zero)
    rows = _rows()
    ids, types, mask = tk._batch(rows)
    with torch.no_grad():
        before = m(ids, types, mask)
        cached = tk.cache_lower(m, rows, 0, "t")
        split, _ = tk._upper(m, cached, rows, 0)
        merge_lora(m)
        after = m(ids, types, mask)
    for j, r in enumerate(rows):
        n = len(r.input_ids)
        assert torch.allclose(before[j, :n], after[j, :n], atol=1e-5)
        assert torch.allclose(before[j, :n], split[j, :n], atol=1e-5)


def test_selection_loss_prefers_the_select_subset():
    dev = {"loss": 0.9, "subsets": {"polar": {"loss": 0.1}, "non_polar": {"loss": 0.5}, "select": {"loss": 0.3}}}
    assert tk.selection_loss(dev) == 0.3
    del dev["subsets"]["select"]
    assert tk.selection_loss(dev) == 0.5
    assert tk.selection_loss({"loss": 0.9, "subsets": {"non_polar": {"loss": 0.5}}}) == 0.9


def test_base_source():
    assert tk.base_source("squad-polar") == "squad" and tk.base_source("ae") == "ae"


@pytest.mark.slow
def test_resume_after_an_epoch_gives_the_uninterrupted_tensors(tmp_path, monkeypatch):
    """Stop after epoch 1 (checkpoint written), run again: the delta equals a run never stopped."""
    from safetensors.torch import load_file

    from qascore_lab.datasets import DataNotFound

    p = argparse.ArgumentParser()
    tk.add_arguments(p)
    common = ["--limit", "80", "--epochs", "2", "--sources", "squad", "--dev-sources", "squad"]
    whole = p.parse_args(common + ["--out", str(tmp_path / "a.safetensors")])
    try:
        tk.train(whole, command="test")
    except DataNotFound as err:
        pytest.skip(f"../shared/data absent: {err}")
    ck = tmp_path / "ck.safetensors"
    stopped = p.parse_args(common + ["--out", str(tmp_path / "b.safetensors"), "--checkpoint", str(ck)])
    real = tk._checkpoint

    def stop_after_first(*a, **kw):
        real(*a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(tk, "_checkpoint", stop_after_first)
    with pytest.raises(KeyboardInterrupt):
        tk.train(stopped, command="test")
    monkeypatch.setattr(tk, "_checkpoint", real)
    card = tk.train(stopped, command="test")
    assert [h["epoch"] for h in card["history"]] == [1, 2]
    a, b = load_file(str(tmp_path / "a.safetensors")), load_file(str(tmp_path / "b.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_recipe_v1_sets_the_first_taggers_settings():
    p = argparse.ArgumentParser()
    tk.add_arguments(p)
    new = p.parse_args([])
    assert (new.train_layers, new.lora_rank, new.sources) == (6, 16, "squad,wikiqa,ae")
    old = p.parse_args(["--recipe", "v1", "--lr", "0.1"])
    tk.apply_recipe(old)
    assert (old.train_layers, old.lora_rank, old.lr, old.sources, old.dev_sources) == \
        (2, 0, 2e-4, "squad,wikiqa", "squad,wikiqa")
    assert old.head_lr == 10 * old.lr     # the first tagger's head lr was 10x the layers'
