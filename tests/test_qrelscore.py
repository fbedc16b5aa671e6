"""QRelScore: the maths on hand-made tensors (fast), then the models (slow)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from qascore.metrics.qrelscore import grg, harmonic_mean, lrm, rescale
from qascore.metrics.qrelscore.engine import chunk
from qascore.records import InputError


# ---------------------------------------------------------------- LRM maths
def _toy(question_vecs, context_vecs, attn_q_to_c):
    """A one-example, one-head batch: [q tokens..., c tokens...] with given states and attention rows."""
    q = torch.tensor(question_vecs, dtype=torch.float32)
    c = torch.tensor(context_vecs, dtype=torch.float32)
    hidden = torch.cat([q, c]).unsqueeze(0)
    m, n = len(q), len(c)
    t = m + n
    attn = torch.zeros(1, 1, t, t)
    attn[0, 0, :m, m:] = torch.tensor(attn_q_to_c, dtype=torch.float32)
    mq = torch.tensor([[True] * m + [False] * n])
    mc = torch.tensor([[False] * m + [True] * n])
    return hidden, attn, mq, mc


E1, E2, E3 = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]
S = 1 / math.sqrt(2)


@pytest.mark.parametrize("agg,weighting,expected", [
    # q1 = c1 exactly (cos 1), q2 halfway between c1 and c2 (cos 0.7071 with each)
    # attention rows: q1 -> (0.6, 0.4), q2 -> (0.3, 0.7)
    ("max", "attention", (max(0.6 * 1, 0.4 * 0) + max(0.3 * S, 0.7 * S)) / 2),
    ("mean", "attention", ((0.6 * 1 + 0.4 * 0) / 2 + (0.3 * S + 0.7 * S) / 2) / 2),
    ("max", "none", (1 + S) / 2),
    ("max", "argmax", (1 + S) / 2),  # q1 attends most to c1 (cos 1), q2 to c2 (cos S)
    ("mean", "none", ((1 + 0) / 2 + (S + S) / 2) / 2),
])
def test_layer_precision_hand_values(agg, weighting, expected):
    h, a, mq, mc = _toy([E1, [S, S, 0.0]], [E1, E2], [[0.6, 0.4], [0.3, 0.7]])
    got = lrm.layer_precision(h, a, mq, mc, agg=agg, weighting=weighting)
    assert got.shape == (1,)
    assert got.item() == pytest.approx(expected, abs=1e-6)


def test_argmax_follows_attention_not_similarity():
    # q1 identical to c1 but attends to c2 (orthogonal): the authors' argmax alignment gives cos 0
    h, a, mq, mc = _toy([E1], [E1, E2], [[0.1, 0.9]])
    assert lrm.layer_precision(h, a, mq, mc, weighting="argmax").item() == pytest.approx(0.0, abs=1e-6)
    assert lrm.layer_precision(h, a, mq, mc, weighting="none").item() == pytest.approx(1.0, abs=1e-6)


def test_verbatim_question_beats_unrelated():
    # context tokens c1, c2; one question repeats them, the other uses an unseen direction
    ctx = [E1, E2]
    verbatim = lrm.layer_precision(*_toy([E1, E2], ctx, [[0.5, 0.5], [0.5, 0.5]])).item()
    unrelated = lrm.layer_precision(*_toy([E3, E3], ctx, [[0.5, 0.5], [0.5, 0.5]])).item()
    assert verbatim == pytest.approx(0.5)
    assert unrelated == pytest.approx(0.0, abs=1e-6)
    assert verbatim > unrelated


def test_padding_and_max_over_heads():
    h, a, mq, mc = _toy([E1], [E1, E2], [[0.2, 0.8]])
    a2 = torch.cat([a, torch.zeros_like(a)], dim=1)  # a second head attending nowhere
    a2[0, 1, 0, 1] = 0.95                            # head 2 attends to c1 (position 1) harder
    pad_h = torch.cat([h, torch.zeros(1, 2, 3)], dim=1)   # two padding positions
    pad_a = torch.zeros(1, 2, 5, 5)
    pad_a[:, :, :3, :3] = a2
    pad_q = torch.cat([mq, torch.zeros(1, 2, dtype=torch.bool)], dim=1)
    pad_c = torch.cat([mc, torch.zeros(1, 2, dtype=torch.bool)], dim=1)
    got = lrm.layer_precision(pad_h, pad_a, pad_q, pad_c).item()
    assert got == pytest.approx(0.95 * 1.0)  # max over heads of attention to c1, times cos 1


def test_mover_plan_is_a_transport_plan():
    h, a, mq, mc = _toy([E1, E2], [E1, E2, E3], [[0.3, 0.3, 0.4]] * 2)
    cos = torch.nn.functional.normalize(h, dim=-1) @ torch.nn.functional.normalize(h, dim=-1).transpose(1, 2)
    plan = lrm.sinkhorn_plan(1 - cos, mq, mc)
    rows = plan[0, :2]
    assert torch.allclose(rows.sum(-1), torch.ones(2), atol=1e-5)
    assert plan[0, :2, :2].sum() == pytest.approx(0.0, abs=1e-6)  # no mass on question columns
    assert rows[0, 2] > rows[0, 3] and rows[1, 3] > rows[1, 2]    # each question token goes to its twin
    got = lrm.layer_precision(h, a, mq, mc, agg="mover", weighting="none").item()
    assert 0.5 < got <= 1.0


@pytest.mark.parametrize("spec,n,expected", [
    ("all", 6, [0, 1, 2, 3, 4, 5]),
    ("first", 12, [0, 1, 2, 3]),
    ("middle", 12, [4, 5, 6, 7]),
    ("last", 12, [8, 9, 10, 11]),
    ("specific", 12, [0, 3, 7, 11]),
    ("first", 6, [0, 1]),
    ("last", 6, [4, 5]),
    ("specific", 6, [0, 2, 3, 5]),
    ("1,4", 6, [1, 4]),
    ([5], 6, [5]),
    (5, 6, [5]),               # `layers=5` from the CLI arrives as an int
    ("0+3+5", 6, [0, 3, 5]),   # the CLI's spelling of a list (commas separate options there)
])
def test_select_layers(spec, n, expected):
    assert lrm.select_layers(spec, n) == expected


@pytest.mark.parametrize("spec", ["7", "nonsense", [-1]])
def test_select_layers_rejects(spec):
    with pytest.raises(ValueError):
        lrm.select_layers(spec, 6)


@pytest.mark.parametrize("values,p,expected", [
    ([0.2, 0.4, 0.9], 1, 0.5),
    ([0.3, 0.4], 2, math.sqrt((0.09 + 0.16) / 2)),
    ([0.25, 1.0], 0, 0.5),          # geometric mean
    ([0.5, 0.5, 0.5], 3, 0.5),
])
def test_power_mean(values, p, expected):
    assert lrm.power_mean(np.array(values), p) == pytest.approx(expected)


# ---------------------------------------------------------------- GRG maths
@pytest.mark.parametrize("prompt,base,gain,expected", [
    (-80.0, -100.0, "relative", 0.2),
    (-100.0, -100.0, "relative", 0.0),
    (-120.0, -100.0, "relative", 0.0),   # an irrelevant prompt that hurts: clipped at 0
    (-80.0, -100.0, "absolute", 20.0),
    (-130.0, -100.0, "absolute", 0.0),
])
def test_confidence_gain(prompt, base, gain, expected):
    assert grg.confidence_gain(prompt, base, gain) == pytest.approx(expected)


def test_context_confidence_counts_only_context_tokens():
    # logprobs of [q1 q2 c1 c2 c3] after s0: the context sum skips the question's own tokens
    logp = np.log(np.array([0.1, 0.2, 0.5, 0.25, 0.5]))
    assert grg.context_confidence(logp, 3) == pytest.approx(math.log(0.5 * 0.25 * 0.5))
    assert grg.prompted_sequence(0, [7, 8], [9]) == [0, 7, 8, 9]
    assert grg.base_sequence(0, [9]) == [0, 9]


def test_confidence_gain_rejects_unknown():
    with pytest.raises(ValueError):
        grg.confidence_gain(-1, -2, "ratio")


# ---------------------------------------------------------------- combining, chunks, rescaling
@pytest.mark.parametrize("a,b,expected", [
    (0.5, 0.5, 0.5),
    (0.9, 0.1, 2 * 0.9 * 0.1 / 1.0),
    (0.0, 0.8, 0.0),
    (-0.2, 0.6, 0.0),   # a rescaled part below 0 counts as 0
    (0.0, 0.0, 0.0),
])
def test_harmonic_mean(a, b, expected):
    assert harmonic_mean(a, b) == pytest.approx(expected)


@pytest.mark.parametrize("n,room,sizes", [
    (10, 10, [10]),
    (11, 10, [6, 5]),
    (25, 10, [9, 9, 7]),
    (1, 5, [1]),
    (0, 5, []),
])
def test_chunk_covers_everything_within_room(n, room, sizes):
    ids = list(range(n))
    parts = chunk(ids, room)
    assert [len(p) for p in parts] == sizes
    assert [t for p in parts for t in p] == ids       # nothing dropped, order kept
    assert all(len(p) <= room for p in parts)


@pytest.mark.parametrize("raw,b,expected", [(0.8, 0.6, 0.5), (0.6, 0.6, 0.0), (0.5, 0.6, -0.25), (0.3, None, 0.3)])
def test_rescale(raw, b, expected):
    assert rescale.apply(raw, b) == pytest.approx(expected)


def test_baselines_file_roundtrip(tmp_path):
    path = tmp_path / "b.json"
    rescale.write({rescale.key("lrm", "m@1", "cfg"): {"b": 0.25}}, path)
    rescale.write({rescale.key("grg", "g@2", "gain=relative"): {"b": 0.01}}, path)
    assert rescale.lookup("lrm", "m@1", "cfg", path) == 0.25
    assert rescale.lookup("grg", "g@2", "gain=relative", path) == 0.01
    assert rescale.lookup("lrm", "m@1", "other", path) is None


# ---------------------------------------------------------------- bad input (no model runs)
@pytest.mark.parametrize("name,record,field", [
    ("qrelscore", {"candidate": "Who?", "context": ""}, "context"),
    ("qrelscore", {"candidate": "Who?", "context": "   "}, "context"),
    ("qrelscore", {"candidate": "Who?"}, "context"),
    ("qrelscore-lrm", {"context": "A passage."}, "candidate"),
    ("ref-qrelscore", {"candidate": "Who?", "context": "A passage.", "references": []}, "references"),
    ("ref-qrelscore", {"candidate": "Who?", "context": "A passage.", "references": [""]}, "references"),
])
def test_bad_input_names_line_and_field(name, record, field):
    import qascore

    good = {"candidate": "What is it?", "context": "It is a passage.", "references": ["What?"]}
    with pytest.raises(InputError) as err:
        qascore.load(name).score([good, record])
    assert err.value.line == 2 and err.value.field == field


def test_blank_candidates_score_zero_without_models(monkeypatch):
    import qascore
    from qascore.metrics.qrelscore.engine import Engine

    def boom(*a, **k):
        raise AssertionError("no model should run for blank candidates")

    monkeypatch.setattr(Engine, "lrm_layerwise", boom)
    monkeypatch.setattr(Engine, "grg_confidences", boom)
    m = qascore.load("qrelscore", rescale=False)
    monkeypatch.setattr(type(m), "signature_fields", lambda self: {})
    res = m.score([{"candidate": "", "context": "A passage."}, {"candidate": "  ", "context": "B."}])
    assert res.scores == [0.0, 0.0]
    assert res.example(0) == res.example(1) == {"empty_candidate": True}  # the base class's rule (docs/cli.md)


def test_unknown_option_rejected():
    import qascore

    with pytest.raises(TypeError):
        qascore.load("qrelscore", layer="all")


# Raw parts the fake engine returns, by (question, text it is matched against): hand-picked so that one
# rescaled part falls below 0 (raw below the baseline).
_RAW = {"lrm": {("Q1?", "passage"): 0.1, ("Q2?", "passage"): 0.6, ("Q1?", "ref a"): 0.6, ("Q1?", "ref b"): 0.84},
        "grg": {("Q1?", "passage"): 0.6, ("Q2?", "passage"): 0.8, ("Q1?", "ref a"): 0.8, ("Q1?", "ref b"): 0.9}}


def _fake_engine(monkeypatch):
    from qascore.metrics.qrelscore.engine import Engine

    for part in ("lrm", "grg"):
        monkeypatch.setattr(Engine, f"{part}_raw",
                            lambda self, qs, cs, part=part: np.array([_RAW[part][(q, c)] for q, c in zip(qs, cs)]))


def test_details_hold_the_rescaled_parts_which_may_dip_below_zero(monkeypatch):
    import qascore

    _fake_engine(monkeypatch)
    m = qascore.load("qrelscore", b_lrm=0.2, b_grg=0.5)
    monkeypatch.setattr(type(m), "signature_fields", lambda self: {})
    res = m.score([{"candidate": "Q1?", "context": "passage"}, {"candidate": "Q2?", "context": "passage"}])
    # lrm (0.1 - 0.2) / 0.8 = -0.125 (documented: below 0 under the random-pair baseline), grg (0.6 - 0.5) / 0.5 = 0.2
    assert res.example(0)["lrm"] == pytest.approx(-0.125) and res.example(0)["grg"] == pytest.approx(0.2)
    assert res.example(0)["lrm_raw"] == pytest.approx(0.1)
    assert res.scores[0] == 0.0  # the harmonic mean clips each part at 0: qrelscore itself stays in 0..1
    # lrm 0.5, grg 0.6: 2 * 0.5 * 0.6 / 1.1
    assert res.scores[1] == pytest.approx(0.6 / 1.1)


def test_ref_qrelscore_details_are_its_two_halves_only(monkeypatch):
    import qascore

    _fake_engine(monkeypatch)
    m = qascore.load("ref-qrelscore", b_lrm=0.2, b_grg=0.5)
    monkeypatch.setattr(type(m), "signature_fields", lambda self: {})
    res = m.score([{"candidate": "Q1?", "context": "passage", "references": ["ref a", "ref b"]}])
    d = res.example(0)
    assert set(d) == {"qrelscore", "qrelscore_ref", "truncated"}
    assert d["qrelscore"] == 0.0  # against the passage: lrm below its baseline, as above
    # ref a: lrm (0.6 - 0.2) / 0.8 = 0.5, grg (0.8 - 0.5) / 0.5 = 0.6 -> 0.6 / 1.1; ref b: lrm 0.8, grg 0.8 -> 0.8
    assert d["qrelscore_ref"] == pytest.approx(0.8)
    assert res.scores[0] == pytest.approx(0.5 * (0.0 + 0.8))
