"""`answerability`: the metric around the QA reader (runtime/reader.py), with a small untrained delta.

What a trained reader scores is measured by `qascore-lab train reader` and the card (docs/answerability.md);
here: the metric reads what the reader reads, its details, options, errors and windows.
"""

from __future__ import annotations

import pytest
import torch

import qascore
from qascore.metrics.options import OptionError
from qascore.records import InputError

PASSAGE = "Ann Lee was born in Oslo in 1990. She moved to Lima in 2010 and wrote three novels there."


@pytest.fixture(scope="module")
def delta(tmp_path_factory):
    from qascore.runtime import defaults
    from qascore.runtime import reader as rd

    try:
        defaults.resolve(defaults.ENCODER)
    except FileNotFoundError as err:
        pytest.skip(f"encoder package absent: {err}")
    torch.manual_seed(0)
    spec = rd.ReaderSpec(max_len=48, stride=16, lora_rank=2, lora_alpha=4)
    reader = rd.Reader(spec, rule="expected_f1")
    with torch.no_grad():   # a head that is not all zeros (B of LoRA starts at zero: the base encoder's states)
        reader.model.qa.weight.normal_(0, 0.5)
    path = tmp_path_factory.mktemp("reader") / "reader.safetensors"
    reader.save(path, extra={"command": "test"})
    return path


def test_missing_shipped_reader_is_a_readable_error(monkeypatch, tmp_path):
    from qascore.runtime import reader as rd

    monkeypatch.setattr(rd, "DELTA", tmp_path / "none" / "reader.safetensors")
    metric = qascore.load("answerability")
    with pytest.raises(FileNotFoundError, match="QA reader is not installed.*qascore-lab train reader"):
        metric.score([{"candidate": "where?", "context": PASSAGE}])


def test_model_option_must_be_a_reader_delta(tmp_path):
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(OptionError, match="is not a safetensors file; expected a QA reader delta"):
        qascore.load("answerability", model=str(tmp_path / "x.txt"))


@pytest.mark.slow
def test_scores_are_the_readers_and_details_explain_them(delta):
    from qascore.runtime.reader import load_shared, score

    recs = [{"candidate": "where was Ann Lee born?", "context": PASSAGE, "answer": "Oslo"},
            {"candidate": "where was Ann Lee born?", "context": PASSAGE},
            {"candidate": "how many novels did she write?", "context": PASSAGE, "answer": "  "}]
    res = qascore.load("answerability", model=str(delta)).score(recs)
    reader = load_shared(delta)
    assert reader.rule == "expected_f1"
    reads = reader.read([r["candidate"] for r in recs], [r["context"] for r in recs])
    assert res.scores[0] == pytest.approx(score(reads[0], "Oslo", "expected_f1"), abs=1e-6)
    # without an answer (or a blank one) the score is P(answerable)
    assert res.scores[1] == pytest.approx(1 - reads[1].p_null, abs=1e-6)
    assert res.scores[2] == pytest.approx(1 - reads[2].p_null, abs=1e-6)
    d = res.details
    assert d["answer_f1"][1] is None and d["answer_f1"][2] is None and 0.0 <= d["answer_f1"][0] <= 1.0
    assert d["span"][0] in PASSAGE and d["span"][0] == reads[0].best[0]
    assert d["no_answer"][1] == pytest.approx(reads[1].p_null, abs=1e-6)
    assert d["truncated"] == [False, False, False]
    assert all(0.0 <= s <= 1.0 for s in res.scores)
    sig = res.signature
    assert "model:reader@" in sig and "rule:expected_f1" in sig and "max_len:48" in sig and "stride:16" in sig


@pytest.mark.slow
def test_batching_and_windows(delta):
    long_passage = " ".join([PASSAGE] * 6)   # > 48 WordPieces: several windows
    recs = [{"candidate": "where was Ann Lee born?", "context": long_passage, "answer": "Oslo"},
            {"candidate": "who moved?", "context": PASSAGE, "answer": "Ann Lee"}]
    one = qascore.load("answerability", model=str(delta), batch_size=1).score(recs)
    many = qascore.load("answerability", model=str(delta), batch_size=32).score(recs)
    assert one.scores == pytest.approx(many.scores, abs=1e-5)
    from qascore.runtime.encoder import TruncationWarning

    with pytest.warns(TruncationWarning, match="answerability: 1 of 2 records"):
        cut = qascore.load("answerability", model=str(delta), max_windows=1).score(recs)
    assert cut.details["truncated"] == [True, False] and many.details["truncated"] == [False, False]
    assert cut.scores[1] == pytest.approx(many.scores[1], abs=1e-5)


@pytest.mark.slow
def test_blank_passage_is_an_error_and_empty_question_scores_zero(delta):
    metric = qascore.load("answerability", model=str(delta))
    with pytest.raises(InputError, match="field 'context'.*passage"):
        metric.score([{"candidate": "who?", "context": "  "}])
    res = metric.score([{"candidate": "", "context": PASSAGE}, {"candidate": "who?", "context": PASSAGE}])
    assert res.scores[0] == 0.0 and res.example(0) == {"empty_candidate": True}


@pytest.mark.slow
def test_a_verified_rule_judges_the_spans_with_the_ava_verifier(delta, tmp_path):
    """A delta whose stored rule reads the verifier: the score is the reader's spans judged by the shipped
    `ava` verifier against the answer, and the signature names that verifier."""
    import shutil

    from qascore.metrics.answerability import verifier_path
    from qascore.runtime.ava_layouts import load_verifier
    from qascore.runtime.delta import update_meta
    from qascore.runtime.reader import load_shared, score, verify

    if not verifier_path().exists():
        pytest.skip("the ava verifier is not installed")
    path = tmp_path / "reader.safetensors"
    shutil.copy(delta, path)
    update_meta(path, {"rule": "ava_expected"})
    recs = [{"candidate": "where was Ann Lee born?", "context": PASSAGE, "answer": "Oslo"},
            {"candidate": "where was Ann Lee born?", "context": PASSAGE}]
    res = qascore.load("answerability", model=str(path)).score(recs)
    reader = load_shared(path)
    reads = reader.read([r["candidate"] for r in recs], [r["context"] for r in recs])
    ver = load_verifier(verifier_path())
    judged = verify(ver.predict, [r["candidate"] for r in recs], reads, ["Oslo", None])
    assert res.scores[0] == pytest.approx(score(reads[0], "Oslo", "ava_expected", judged[0]), abs=1e-5)
    assert res.scores[1] == pytest.approx(reads[1].p_answer, abs=1e-6)
    assert res.details["answer_ava"][0] == pytest.approx(judged[0][reads[0].best[0]], abs=1e-5)
    assert res.details["answer_ava"][1] is None
    assert "rule:ava_expected" in res.signature and "verifier:ava@" in res.signature
    assert "verifier:" not in qascore.load("answerability", model=str(delta)).score(recs[:1]).signature
    # the `rule` option overrides the stored rule, and the signature says so
    fixed = qascore.load("answerability", model=str(path), rule="expected_f1").score(recs)
    assert fixed.scores[0] == pytest.approx(score(reads[0], "Oslo", "expected_f1"), abs=1e-6)
    assert "rule:expected_f1" in fixed.signature and "verifier:" not in fixed.signature
    with pytest.raises(ValueError, match="rule 'logistic' needs the weights"):
        qascore.load("answerability", model=str(path), rule="logistic").score(recs)
    # a delta storing the logistic rule and its weights: sigmoid(1 x log-odds(expected_f1)) = expected_f1 (clipped)
    stored = tmp_path / "logistic.safetensors"
    shutil.copy(delta, stored)
    update_meta(stored, {"rule": "logistic",
                         "rule_weights": {"signals": ["expected_f1"], "coef": [1.0], "intercept": 0.0}})
    res = qascore.load("answerability", model=str(stored)).score(recs)
    want = min(max(score(reads[0], "Oslo", "expected_f1"), 1e-4), 1 - 1e-4)
    assert res.scores[0] == pytest.approx(want, abs=1e-6) and "rule:logistic" in res.signature


@pytest.mark.slow
def test_the_judged_rule_judges_the_spans_with_the_judge_metric(delta):
    """`rule=judge_expected`: the reader's top spans, each read by the shipped `judge` metric as the candidate
    with the record's answer as the reference, weighted by the reader's probabilities; the signature names
    the judge's card, the details its P(correct) of the best span."""
    from qascore.metrics.judge import DEFAULT_MODEL
    from qascore.runtime.reader import JUDGED_K, load_shared
    from qascore.text.answer_match import as_question

    if not DEFAULT_MODEL.exists():
        pytest.skip("the judge is not installed")
    recs = [{"candidate": "where was Ann Lee born", "context": PASSAGE, "answer": "Oslo"},
            {"candidate": "where was Ann Lee born", "context": PASSAGE}]
    res = qascore.load("answerability", model=str(delta), rule="judge_expected").score(recs)
    reading = load_shared(delta).read([recs[0]["candidate"]], [PASSAGE])[0]
    spans = [(t, p) for _, sp in reading.windows for t, p in sp[:JUDGED_K]]
    assert len(reading.windows) == 1 and len(spans) == JUDGED_K
    judge = qascore.load("judge")   # each span by hand, one record at a time, the question with its mark
    probs = [judge.score([{"question": as_question(recs[0]["candidate"]), "candidate": t,
                           "references": ["Oslo"]}]).scores[0] for t, _ in spans]
    assert res.scores[0] == pytest.approx(sum(p * g for (_, p), g in zip(spans, probs)), abs=1e-5)
    assert res.details["answer_judge"][0] == pytest.approx(probs[[t for t, _ in spans].index(reading.best[0])],
                                                           abs=1e-5)
    assert res.scores[1] == pytest.approx(reading.p_answer, abs=1e-6) and res.details["answer_judge"][1] is None
    assert "rule:judge_expected" in res.signature and "|judge:judge@" in res.signature
    assert "judge:" not in qascore.load("answerability", model=str(delta)).score(recs[:1]).signature


@pytest.mark.slow
def test_focus_reads_the_words_around_the_answer(delta):
    """`focus=N` scores a record as the metric scores the same record with its passage cut by hand to the N
    words around the answer; a record without an answer is read whole; the signature names the setting."""
    long_passage = "Tom Day was born in Rome in 1950 and lived there all his life. " + PASSAGE + " Tom stayed in Rome."
    # 37 words, "Lima" the 26th: 14 words from the 20th ((14 - 1) // 2 = 6 before it)
    by_hand = "Oslo in 1990. She moved to Lima in 2010 and wrote three novels there."
    recs = [{"candidate": "where did she move?", "context": long_passage, "answer": "Lima"},
            {"candidate": "where did she move?", "context": long_passage}]
    focused = qascore.load("answerability", model=str(delta), focus=20).score(recs)
    narrow = qascore.load("answerability", model=str(delta), focus=14).score(recs)
    whole = qascore.load("answerability", model=str(delta)).score(recs)
    cut = qascore.load("answerability", model=str(delta)).score([{**recs[0], "context": by_hand}])
    assert narrow.scores[0] == pytest.approx(cut.scores[0], abs=1e-6)
    assert narrow.details["span"][0] in by_hand
    assert narrow.scores[1] == pytest.approx(whole.scores[1], abs=1e-6)
    assert "focus:14" in narrow.signature and "focus:20" in focused.signature and "focus" not in whole.signature


@pytest.mark.slow
def test_int8_runs_the_readers_linear_layers_in_int8_on_the_cpu(delta, monkeypatch):
    from torch.ao.nn.quantized.dynamic import Linear as Int8Linear

    from qascore.runtime import devices
    from qascore.runtime.reader import load_shared

    recs = [{"candidate": "where was Ann Lee born?", "context": PASSAGE, "answer": "Oslo"},
            {"candidate": "who moved?", "context": PASSAGE}]
    exact = qascore.load("answerability", model=str(delta)).score(recs)
    res = qascore.load("answerability", model=str(delta), dtype="int8", device="cpu").score(recs)
    enc = load_shared(delta, "cpu", int8=True).model.bert
    assert sum(isinstance(m, Int8Linear) for m in enc.modules()) == 36   # 6 layers x (q, k, v, out, up, down)
    assert not any(isinstance(m, Int8Linear) for m in load_shared(delta, "cpu").model.modules())
    assert res.scores == pytest.approx(exact.scores, abs=0.1) and "dtype:int8" in res.signature
    monkeypatch.setattr(devices, "pick_device", lambda device=None: "cuda:0")
    with pytest.raises(ValueError, match="int8 runs on the CPU only"):
        load_shared(delta, "cuda", int8=True)
