"""The extractive reader's windows, span labels and span decoding (runtime/reader.py), on hand-computed cases.

Windows use the packaged encoder's fast tokenizer (no model weights); these words are one WordPiece each.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from qascore.runtime import reader as rd

WORDS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen twenty")


@pytest.fixture(scope="module")
def tok():
    from qascore.runtime.encoder import load_tokenizer

    try:
        return load_tokenizer()
    except FileNotFoundError as err:
        pytest.skip(f"encoder package absent: {err}")


def _words(tok, windows, w):
    return tok.convert_ids_to_tokens(windows.input_ids[w])


def test_windows_overlap_by_stride(tok):
    # [CLS] who ? [SEP] ... [SEP]: 16 - 5 = 11 passage WordPieces per window; the next window starts
    # stride = 4 WordPieces before the previous one ended: at word 8 (index 7), then at word 15 (index 14).
    spec = rd.ReaderSpec(max_len=16, stride=4)
    win = rd.make_windows(tok, ["who?"], [WORDS], spec)
    assert len(win) == 3 and win.example == [0, 0, 0] and win.truncated == [False]
    words = WORDS.split()
    assert _words(tok, win, 0) == ["[CLS]", "who", "?", "[SEP]", *words[0:11], "[SEP]"]
    assert _words(tok, win, 1) == ["[CLS]", "who", "?", "[SEP]", *words[7:18], "[SEP]"]
    assert _words(tok, win, 2) == ["[CLS]", "who", "?", "[SEP]", *words[14:20], "[SEP]"]
    assert win.context_range(0) == (4, 14) and win.context_range(2) == (4, 9)
    # offsets map each passage WordPiece to its characters; the question and specials to (-1, -1)
    assert win.offsets[1][4] == (WORDS.index("eight"), WORDS.index("eight") + 5)
    assert win.offsets[1][:4] == [(-1, -1)] * 4 and win.offsets[1][15] == (-1, -1)


def test_span_labels_by_hand(tok):
    spec = rd.ReaderSpec(max_len=16, stride=4)
    win = rd.make_windows(tok, ["who?"], [WORDS], spec)
    start = WORDS.index("nine")
    answer = (start, start + len("nine ten"))
    # "nine ten" are words 9-10: positions 4+8, 4+9 in window 0 and 4+1, 4+2 in window 1 (it starts at
    # "eight"); window 2 (from "fifteen") does not hold it: the null span (0, 0).
    assert rd.span_labels(win, [answer]) == ([12, 5, 0], [13, 6, 0])
    # an answer cut by a window edge ("eleven twelve": window 0 ends at "eleven") is null there
    s2 = WORDS.index("eleven")
    assert rd.span_labels(win, [(s2, s2 + len("eleven twelve"))]) == ([0, 7, 0], [0, 8, 0])
    assert rd.span_labels(win, [None]) == ([0, 0, 0], [0, 0, 0])


def test_arrays_equal_the_list_path(tok):
    """The training path (arrays) gives the windows, masks and labels of the inference path."""
    spec = rd.ReaderSpec(max_len=16, stride=4)
    qs = ["who?", "what is the name of the thing that is counted here?", "which?"]
    cs = [WORDS, "alpha beta gamma delta", "the answer is forty two, said the computer."]
    answers = [(WORDS.index("nine"), WORDS.index("nine") + 8), None, (cs[2].index("forty"), cs[2].index("forty") + 9)]
    win = rd.make_windows(tok, qs, cs, spec, max_windows=None)
    starts, ends = rd.span_labels(win, answers)
    arr = rd.window_arrays(tok, qs, cs, answers, spec)
    assert arr["example"].tolist() == win.example
    assert arr["start"].tolist() == starts and arr["end"].tolist() == ends
    for w in range(len(win)):
        n = len(win.input_ids[w])
        assert arr["lengths"][w] == n and arr["input_ids"][w, :n].tolist() == win.input_ids[w]
        assert arr["mask"][w].tolist() == rd.context_mask(win, w, spec.max_len)
    # the labelled span of the last pair is its answer's text
    w = win.example.index(2)
    o = win.offsets[w]
    assert cs[2][o[starts[w]][0]:o[ends[w]][1]] == "forty two"


def test_long_question_is_cut_and_long_passage_flagged(tok):
    spec = rd.ReaderSpec(max_len=16, stride=4, max_question_len=3)
    win = rd.make_windows(tok, ["one two three four five six"], [WORDS], spec, max_windows=2)
    assert _words(tok, win, 0)[:5] == ["[CLS]", "one", "two", "three", "[SEP]"]
    assert len(win) == 2 and win.truncated == [True]
    short = rd.make_windows(tok, ["who?"], ["one two"], spec, max_windows=2)
    assert len(short) == 1 and short.truncated == [False]


def test_empty_passage_has_no_span(tok):
    win = rd.make_windows(tok, ["who?"], [""], rd.ReaderSpec(max_len=16, stride=4))
    assert len(win) == 1 and win.context_range(0) == (0, -1)
    assert rd.span_labels(win, [(0, 3)]) == ([0], [0])


def test_decode_by_hand():
    # positions: [CLS], three passage tokens, one question token (masked out)
    start = torch.tensor([[0.0, 1.0, 0.0, 0.0, 9.0]])
    end = torch.tensor([[0.0, 0.0, 1.0, 0.0, 9.0]])
    mask = torch.tensor([[True, True, True, True, False]])
    lnull, lp, si, ei = rd.decode(start, end, mask, max_answer_len=2, top_k=3)
    # spans (i, j), j - i < 2: (1,1)=1 (1,2)=2 (2,2)=1 (2,3)=0 (3,3)=0; null 0+0
    z = 2 * math.e + math.e ** 2 + 3
    assert lnull.exp().item() == pytest.approx(1 / z, rel=1e-5)
    assert lp[0, 0].exp().item() == pytest.approx(math.e ** 2 / z, rel=1e-5)
    assert (si[0, 0].item(), ei[0, 0].item()) == (1, 2)
    assert sorted(zip(si[0, 1:].tolist(), ei[0, 1:].tolist())) == [(1, 1), (2, 2)]
    # fewer valid spans than top_k: the rest are -inf
    lnull, lp, si, ei = rd.decode(start[:, :2], end[:, :2], mask[:, :2], max_answer_len=2, top_k=3)
    assert lp[0, 0].exp().item() == pytest.approx(math.e / (math.e + 1), rel=1e-5)
    assert torch.isinf(lp[0, 1:]).all()


def test_reading_match_and_rules():
    r = rd.Reading([(0.5, [("the Eiffel Tower", 0.3), ("Eiffel Tower in Paris", 0.2)]),
                    (0.9, [("Paris", 0.1)])])
    assert r.p_null == 0.5 and r.p_answer == 0.5
    assert r.best == ("the Eiffel Tower", 0.3)
    m = r.match("Eiffel Tower")
    assert m["f1"] == 1.0
    assert m["mass"] == pytest.approx(0.3)                       # only the normalised-equal span
    # F1("Eiffel Tower in Paris", "Eiffel Tower") = 2 * (2/4 * 1) / (2/4 + 1) = 2/3
    assert m["expected_f1"] == pytest.approx(0.3 + 0.2 * 2 / 3)
    assert rd.score(r, "Eiffel Tower", "p_answer_x_f1") == pytest.approx(0.5)
    assert rd.score(r, None, "expected_f1") == 0.5               # no answer: P(answerable)
    assert rd.score(r, "Paris", "mass") == pytest.approx(0.1)    # largest in the second window
    empty = rd.Reading([])
    assert empty.p_answer == 0.0 and empty.best == ("", 0.0) and empty.match("x")["f1"] == 0.0


def test_verified_rules_read_the_judgments_of_the_top_spans(monkeypatch):
    monkeypatch.setattr(rd, "JUDGED_K", 2)
    r = rd.Reading([(0.4, [("Eiffel Tower", 0.3), ("the tower", 0.2), ("Paris", 0.1)]),
                    (0.8, [("Paris", 0.2)])])
    assert r.judged_spans() == ["Eiffel Tower", "Paris", "the tower"]     # each window's top 2, distinct
    judged = {"Eiffel Tower": 0.9, "the tower": 0.5, "Paris": 0.1}
    m = r.match("Eiffel Tower", judged)
    assert m["ava_best"] == 0.9
    assert m["ava_expected"] == pytest.approx(max(0.3 * 0.9 + 0.2 * 0.5, 0.2 * 0.1))   # 'Paris' at 0.1: third
    assert rd.score(r, "Eiffel Tower", "ava_expected", judged) == pytest.approx(0.37)
    assert rd.score(r, "Eiffel Tower", "p_answer_x_ava", judged) == pytest.approx(0.6 * 0.9)
    assert rd.score(r, None, "ava_expected") == pytest.approx(0.6)          # no answer: P(answerable)
    with pytest.raises(ValueError, match="reads a verifier's judgments"):
        rd.score(r, "Eiffel Tower", "ava_expected")
    assert set(rd.VERIFIED) < set(rd.RULES)


def test_judged_rule_reads_the_judges_judgments_of_the_top_spans(monkeypatch):
    monkeypatch.setattr(rd, "JUDGED_K", 2)
    r = rd.Reading([(0.4, [("1889", 0.3), ("the 1889 World's Fair", 0.2), ("Paris", 0.1)]),
                    (0.7, [("Paris", 0.25), ("1889", 0.05)])])
    ava = {"1889": 0.6, "the 1889 World's Fair": 0.2, "Paris": 0.1}
    judge = {"1889": 0.95, "the 1889 World's Fair": 0.9, "Paris": 0.05}
    m = r.match("1889", ava, judge)
    assert m["judge_best"] == 0.95
    # first window: 0.3 x 0.95 + 0.2 x 0.9 = 0.465 ('Paris' is its third span); second: 0.25 x 0.05 + 0.05 x 0.95
    assert m["judge_expected"] == pytest.approx(0.465)
    assert m["ava_expected"] == pytest.approx(0.3 * 0.6 + 0.2 * 0.2)          # the verifier's, unchanged
    # token F1 of "the 1889 World's Fair" with "1889" (SQuAD drops "the"): 2 x (1/3 x 1) / (1/3 + 1) = 0.5
    assert m["expected_f1"] == pytest.approx(0.3 + 0.2 * 0.5)                 # the first window's (0.05 the second's)
    assert rd.score(r, "1889", "judge_expected", judge=judge) == pytest.approx(0.465)
    assert rd.score(r, None, "judge_expected") == pytest.approx(0.6)       # no answer: P(answerable)
    with pytest.raises(ValueError, match="reads the judge's judgments"):
        rd.score(r, "1889", "judge_expected", ava)
    assert "judge_expected" not in r.match("1889", ava)
    assert set(rd.JUDGED) < set(rd.RULES) and not rd.JUDGED & rd.VERIFIED
    with pytest.raises(ValueError, match="need no verifier or judge"):
        rd.Logistic(("judge_expected",), (1.0,), 0.0)


def test_logistic_rule_by_hand():
    r = rd.Reading([(0.2, [("Oslo", 0.5), ("in Oslo", 0.3)])])
    lg = rd.Logistic(("p_answer", "expected_f1"), (1.0, 2.0), -0.5)
    # p_answer 0.8 -> log-odds ln 4; expected_f1 = 0.5 + 0.3 * F1('in Oslo', 'Oslo') = 0.5 + 0.3 * 2/3 = 0.7
    z = -0.5 + math.log(4) + 2 * math.log(0.7 / 0.3)
    assert rd.score(r, "Oslo", "logistic", logistic=lg) == pytest.approx(1 / (1 + math.exp(-z)))
    assert rd.log_odds(1.0) == pytest.approx(math.log((1 - 1e-4) / 1e-4))       # clipped, finite
    assert rd.score(r, None, "logistic", logistic=lg) == pytest.approx(0.8)     # no answer: P(answerable)
    assert rd.Logistic.from_dict(lg.to_dict()) == lg and rd.Logistic.from_dict(None) is None
    with pytest.raises(ValueError, match="weights a reader delta stores"):
        rd.score(r, "Oslo", "logistic")
    with pytest.raises(ValueError, match="need no verifier"):
        rd.Logistic(("ava_expected",), (1.0,), 0.0)
    with pytest.raises(ValueError, match="one coefficient each"):
        rd.Logistic(("p_answer",), (1.0, 2.0), 0.0)


def test_the_metrics_rule_names_are_the_readers():
    from qascore.metrics.answerability import RULE_NAMES

    assert set(RULE_NAMES) == {*rd.RULES, rd.LOGISTIC}


def test_the_metrics_dtype_names_are_the_encoders_and_int8():
    from qascore.metrics.answerability import DTYPE_NAMES, INT8
    from qascore.runtime.encoder import DTYPES

    assert DTYPE_NAMES == (*DTYPES, INT8)


def test_verify_asks_once_for_every_span_of_records_with_an_answer():
    seen = []

    def predict(recs):
        seen.append(recs)
        return np.array([0.1 * (k + 1) for k in range(len(recs))])

    reads = [rd.Reading([(0.5, [("Oslo", 0.4), ("Lima", 0.1)])]), rd.Reading([(0.5, [("Oslo", 0.4)])])]
    out = rd.verify(predict, ["where was she born", "where?"], reads, ["Oslo", None])
    assert len(seen) == 1 and [r.candidate for r in seen[0]] == ["Lima", "Oslo"]
    assert seen[0][0].question == "where was she born?" and seen[0][0].references == ["Oslo"]  # as `ava` reads it
    assert out == [{"Lima": pytest.approx(0.1), "Oslo": pytest.approx(0.2)}, None]
    assert rd.verify(predict, [], [], []) == [] and len(seen) == 1


def test_lora_model_trains_only_adapters_layernorms_head():
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    model = rd.ReaderModel(rd.ReaderSpec(lora_rank=4, lora_alpha=8), BertModel(cfg, add_pooling_layer=False))
    names = model.trained_names()
    assert names and all("lora_" in n or "LayerNorm" in n or n.startswith("qa.") for n in names)
    assert sum("lora_a" in n for n in names) == 2 * 6          # q, k, v, attention out, intermediate, out
    ids = torch.tensor([[1, 5, 2, 7, 8, 2]])
    s, e = model(ids, torch.ones_like(ids), torch.tensor([[0, 0, 0, 1, 1, 1]]))
    assert s.shape == e.shape == (1, 6) and s.dtype == torch.float32
    assert np.isfinite(s.detach().numpy()).all()


def test_question_of_few_words_and_many_pieces_is_cut(tok):
    """Punctuation splits a 'word' into many WordPieces; the window still holds passage text."""
    spec = rd.ReaderSpec(max_len=16, stride=4)
    assert rd.question_cap(spec) == 8
    win = rd.make_windows(tok, ["a.b.c.d.e.f.g.h.i.j.k.l.m?"], [WORDS], spec)
    assert _words(tok, win, 0)[:10] == ["[CLS]", "a", ".", "b", ".", "c", ".", "d", ".", "[SEP]"]
    assert win.context_range(0) == (10, 14)
