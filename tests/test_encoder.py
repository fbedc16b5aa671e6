"""Encoder runtime on a tiny random BERT built here (fast: no package weights).

The model is seeded random weights with a hand-written WordPiece vocabulary,
saved to a temporary directory and loaded through the same path a user's
local model directory takes. Expected values come from the model's own
full forward pass (output_hidden_states) and from the tokenizer.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import torch

from qascore.runtime.batching import dedup, length_batches
from qascore.runtime.encoder import Encoder, TruncationWarning, get_encoder

VOCAB = ("[PAD] [UNK] [CLS] [SEP] [MASK] the a cat dog sat on mat is was quick brown fox jumps over lazy "
         "paris capital of france city what who answer question yes no red blue green ##s ##ing run . , ? "
         "in where when river long").split()
MAX_LEN = 16  # tiny limit so that truncation is easy to provoke


def build_tiny_bert(folder: Path, seed: int = 0) -> Path:
    """A 3-layer, 32-wide BERT with random weights and the VOCAB above."""
    from transformers import BertConfig, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": MAX_LEN}), encoding="utf-8")
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=32)
    BertModel(cfg).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(build_tiny_bert(tmp_path_factory.mktemp("tiny_bert")))


TEXTS = ["the cat sat on the mat .", "a quick brown fox", "", "the cat sat on the mat .",
         "where is paris ?", "what is the capital of france", "dog"]


def test_batching_helpers() -> None:
    assert dedup(["a", "b", "a", "c", "b"]) == (["a", "b", "c"], [0, 1, 0, 2, 1])
    assert length_batches([3, 9, 1, 9, 4], 2) == [[1, 3], [4, 0], [2]]
    # at most 12 padded tokens per batch: [9] alone, then 4+3 (2 x 4 = 8), then 1
    assert length_batches([3, 9, 1, 4], 8, max_tokens=12) == [[1], [3, 0, 2]]
    with pytest.raises(ValueError):
        length_batches([1], 0)


def test_tokens_match_tokenizer(tiny_bert: str) -> None:
    enc = Encoder(tiny_bert)
    tok = enc.tokenizer
    for item, text in zip(enc.tokenize(TEXTS), TEXTS):
        ids = tok(text)["input_ids"]
        assert item.ids == ids
        assert item.tokens == tok.convert_ids_to_tokens(ids)
        assert item.special == [i in (tok.cls_token_id, tok.sep_token_id) for i in ids]
        assert [item.tokens[k] for k in item.content()] == tok.tokenize(text)
        assert not item.truncated and item.length == len(ids)


@pytest.mark.parametrize("layer", [0, 1, 2, 3, -1])
def test_layer_states_equal_full_forward(tiny_bert: str, layer: int) -> None:
    """The early-stopped forward gives exactly hidden_states[layer] of a full, unbatched forward."""
    enc = Encoder(tiny_bert, batch_size=3)
    got = enc.embed(TEXTS, layer=layer)
    for e, text in zip(got, TEXTS):
        ids = torch.tensor([enc.tokenizer(text)["input_ids"]])
        with torch.no_grad():
            ref = enc.model(input_ids=ids, output_hidden_states=True).hidden_states[layer][0]
        assert e.hidden.shape == ref.shape
        torch.testing.assert_close(e.hidden, ref, atol=1e-5, rtol=1e-5)


def test_all_layers_and_attentions(tiny_bert: str) -> None:
    enc = Encoder(tiny_bert)
    got = enc.embed(TEXTS[:2], all_layers=True, attentions=True)
    for e in got:
        n = len(e.ids)
        assert e.layers is not None and e.layers.shape == (4, n, 32)
        assert e.attentions is not None and e.attentions.shape == (3, 4, n, n)
        torch.testing.assert_close(e.attentions.sum(-1), torch.ones(3, 4, n))  # probabilities
        torch.testing.assert_close(e.layers[enc.layer], e.hidden)


def test_dedup_and_alignment(tiny_bert: str) -> None:
    enc = Encoder(tiny_bert, batch_size=2)
    got = enc.embed(TEXTS)
    assert [e.text for e in got] == TEXTS
    assert got[0] is got[3]  # the repeated text was encoded once
    alone = Encoder(tiny_bert, batch_size=1).embed(TEXTS)
    for a, b in zip(got, alone):  # batching and padding do not change the vectors
        torch.testing.assert_close(a.hidden, b.hidden, atol=1e-5, rtol=1e-5)


def test_truncation_is_reported(tiny_bert: str) -> None:
    enc = Encoder(tiny_bert)
    long = " ".join(["the quick brown fox"] * 6)  # 24 WordPieces + 2 specials
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = enc.embed([long, "dog"])
    msgs = [str(w.message) for w in caught if issubclass(w.category, TruncationWarning)]
    assert msgs and msgs[0].startswith(f"1 of 2 inputs were longer than {MAX_LEN} tokens")
    assert got[0].truncated and got[0].length == 26 and len(got[0].ids) == MAX_LEN
    assert got[0].tokens[0] == "[CLS]" and got[0].tokens[-1] == "[SEP]"
    assert got[0].ids[1:-1] == enc.tokenizer(long)["input_ids"][1: MAX_LEN - 1]
    assert not got[1].truncated
    assert enc.last_truncated == 1


def test_pairs_segments_and_truncation(tiny_bert: str) -> None:
    enc = Encoder(tiny_bert)
    long = " ".join(["the quick brown fox"] * 6)
    with pytest.warns(TruncationWarning):
        got = enc.embed_pairs(["who is it ?", "who is it ?"], ["the dog", long], attentions=True)
    short, cut = got
    assert short.tokens == ["[CLS]", "who", "is", "[UNK]", "?", "[SEP]", "the", "dog", "[SEP]"]
    assert short.segments == [0] * 6 + [1] * 3
    assert cut.truncated and len(cut.ids) == MAX_LEN
    assert cut.tokens[:6] == short.tokens[:6]  # the first text is kept whole; the second is cut
    assert cut.attentions is not None and cut.attentions.shape[-1] == MAX_LEN


def test_layer_range_and_shared(tiny_bert: str) -> None:
    with pytest.raises(ValueError):
        Encoder(tiny_bert, layer=4)
    assert Encoder(tiny_bert, layer=-1).layer == 3
    assert get_encoder(tiny_bert, batch_size=8) is get_encoder(tiny_bert, batch_size=8)
    assert Encoder(tiny_bert).model is Encoder(tiny_bert).model  # one model per process


def test_bf16_returns_float32_close_to_fp32(tiny_bert: str) -> None:
    """Reduced precision is an option (meant for GPUs); results come back as float32 either way."""
    full = Encoder(tiny_bert).embed(TEXTS[:2], layer=2)
    half = Encoder(tiny_bert, dtype="bf16").embed(TEXTS[:2], layer=2)
    for a, b in zip(full, half):
        assert b.hidden.dtype == torch.float32
        cos = torch.nn.functional.cosine_similarity(a.hidden, b.hidden, dim=-1)
        assert float(cos.min()) > 0.99
