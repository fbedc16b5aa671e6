"""`answerability`: does the passage answer the generated question, with the answer it was generated for?

An extractive QA reader (runtime/reader.py: the packaged MiniLM encoder with a LoRA delta trained on
SQuAD 1.1 and SQuAD 2.0's unanswerable questions by `qascore-lab train reader`) reads the generated
question (`candidate`) against the passage (`context`), in overlapping windows when the passage is long.
Without `answer` the score is the reader's probability that the passage holds an answer (1 - P(no
answer) of its most confident window). With `answer` (the span the question was generated for) the
score also asks that the answer be the one the reader finds; which combination (`rule`) is chosen by
`qascore-lab train reader` on held-out SQuAD questions against bad-question look-alikes, and stored with
the delta (the `rule` option overrides it):

- `expected_f1`: the reader's expected token F1 with the answer, sum over its top spans of P(span) x F1
  (the no-answer mass counts 0);
- `mass`: its probability mass on spans equal to the answer after SQuAD normalisation;
- `p_answer_x_f1`: P(answerable) x token F1 of its best span;
- `p_answer`: P(answerable), the answer unused;
- `ava_expected`, `p_answer_x_ava`: as `expected_f1` and `p_answer_x_f1` with the `ava` verifier's
  P(the span answers the question as the answer does) in place of token F1 (its top 5 spans per window);
- `judge_expected`: as `expected_f1` with the `judge` metric's P(correct) in place of token F1 (question,
  the span as the candidate, the answer as the reference; each window's top 5 spans);
- `logistic`: a logistic regression on other rules' log-odds, its weights stored in the delta.

`details`: `span` (the reader's best span), `span_prob`, `no_answer` (P(no answer)), `answer_f1` (token F1
of the span with `answer`; null without one), `answer_ava` (the verifier's P(correct) of the span; null
unless a verifier rule runs), `answer_judge` (the judge's P(correct) of the span; null unless a judge rule
runs), `truncated` (the passage went on beyond the windows read).

Two speed settings, both off by default and named in the signature: `focus=N` reads only N words of the
passage around the answer (text/answer_window.py; records without an answer are read whole), and
`dtype=int8` runs the reader's linear layers in int8 on the CPU (runtime/int8.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, ClassVar, Sequence

from qascore.metrics import long_inputs
from qascore.metrics.base import Metric, blank
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option
from qascore.records import InputError, Record
from qascore.text.answer_window import answer_window

BATCH = 32
INT8 = "int8"   # the reader's CPU-only precision beside the model metrics' runtime.encoder.DTYPES
DTYPE_NAMES = ("fp32", "bf16", "fp16", INT8)   # literal, as RULE_NAMES: the options need no torch import
# the reader's rules (runtime/reader.py RULES and LOGISTIC), listed here so that the options need no torch import
RULE_NAMES = ("p_answer", "expected_f1", "mass", "p_answer_x_f1", "ava_expected", "p_answer_x_ava", "judge_expected",
              "logistic")


def verifier_path() -> Path:
    """The span judge of the VERIFIED rules: the `ava` metric's shipped verifier."""
    from qascore.runtime.ava_layouts import AVA_DIR

    return AVA_DIR / "ava.safetensors"


def span_judge(device: str | None, dtype: str | None) -> Callable[[list[Record]], Any]:
    """The span judge of the JUDGED rules: the shipped `judge` metric, loaded as it loads itself (its models
    are shared by the process, with `ava`'s for the VERIFIED rules); maps Records (question, candidate =
    span, references = [answer]) to its P(correct), all in one call."""
    from qascore.metrics.registry import load

    judge = load("judge", device=device, dtype=dtype)
    return lambda recs: judge.score(recs).scores


def judge_path() -> Path:
    from qascore.metrics.judge import DEFAULT_MODEL

    return DEFAULT_MODEL


class Answerability(Metric):
    name: ClassVar[str] = "answerability"
    requires: ClassVar[tuple[str, ...]] = ("candidate", "context")
    description: ClassVar[str] = ("P(the passage answers the generated question [with the given answer]) from an "
                                  "extractive QA reader (MiniLM-L6 + LoRA, trained on SQuAD 1.1 and SQuAD 2.0 "
                                  "unanswerables); long passages in windows")

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        dtype = Option("choice", None, "precision of the reader's forward pass (bf16: autocast; faster on GPUs and "
                       "CPUs with bf16 units; int8: int8 linear layers, CPU only, about 1.4x faster; scores move "
                       "slightly)", choices=DTYPE_NAMES, none="fp32")
        return {"batch_size": Option("int", BATCH, "windows per model batch", min=1, signed=False),
                "model": Option("str", None, "reader delta written by `qascore-lab train reader`", none="shipped"),
                "max_windows": Option("int", 16, "windows of a long passage read at most", min=1, max=64),
                "focus": Option("int", None, "with `answer`, read only this many words of the passage around it "
                                "(faster; records without an answer are read whole)", min=10, none="whole"),
                "rule": Option("choice", None, "main score with an answer (the signature names it)",
                               choices=RULE_NAMES, none="stored", signed=False),
                "device": device_option(), "dtype": dtype}

    def _path(self) -> Path:
        from qascore.runtime.reader import DELTA

        p = Path(self.options["model"]).expanduser() if self.options["model"] else DELTA
        if not p.exists():
            if self.options["model"]:
                raise FileNotFoundError(f"{self.name}: reader delta {p} not found")
            raise FileNotFoundError(
                f"{self.name}: the QA reader is not installed ({p} is missing): this build of qascore ships no "
                f"trained reader yet; train one with `qascore-lab train reader --out DIR` and pass "
                f"`-m answerability:model=DIR/reader.safetensors`")
        return p

    def validate(self, records: Sequence[Record]) -> None:
        super().validate(records)
        for rec in records:
            if blank(rec.context):
                raise InputError("is empty; answerability needs the passage the question was generated from",
                                 source=rec.source, line=rec.line, field="context")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        from qascore.runtime.ava_layouts import load_verifier
        from qascore.runtime.reader import (JUDGED, LOGISTIC, VERIFIED, load_shared, need_weights, question_cap,
                                            rule_score, verify)

        int8 = self.options["dtype"] == INT8
        autocast = None if int8 else self.options["dtype"]   # int8 lives in the reader's weights, not in autocast
        reader = load_shared(self._path(), self.options["device"], int8=int8)
        rule = self.options["rule"] or reader.rule
        if rule == LOGISTIC:
            need_weights(reader.logistic)   # refused before any reading
        answers = [None if blank(rec.answer) else rec.answer for rec in records]
        focus = self.options["focus"]
        contexts = [rec.context if focus is None else answer_window(rec.context, a, int(focus))
                    for rec, a in zip(records, answers)]
        readings = reader.read([rec.candidate for rec in records], contexts,
                               batch_size=int(self.options["batch_size"]), dtype=autocast,
                               max_windows=int(self.options["max_windows"]))
        judged: list[dict[str, float] | None] = [None] * len(records)
        if rule in VERIFIED:
            ver = load_verifier(verifier_path(), self.options["device"])
            judged = verify(lambda recs: ver.predict(recs, batch_size=int(self.options["batch_size"]), dtype=autocast),
                            [rec.candidate for rec in records], readings, answers)
        judge: list[dict[str, float] | None] = [None] * len(records)
        if rule in JUDGED:
            judge = verify(span_judge(self.options["device"], autocast), [rec.candidate for rec in records],
                           readings, answers)
        matches = [None if a is None else r.match(a, j, g) for r, a, j, g in zip(readings, answers, judged, judge)]
        main = [r.p_answer if m is None else rule_score(r, m, rule, reader.logistic) for r, m in zip(readings, matches)]
        truncated = [r.truncated for r in readings]
        details: dict[str, list[Any]] = {
            "span": [r.best[0] for r in readings],
            "span_prob": [r.best[1] for r in readings],
            "no_answer": [r.p_null for r in readings],
            "answer_f1": [None if m is None else m["f1"] for m in matches],
            "answer_ava": [None if j is None else j.get(r.best[0], 0.0) for r, j in zip(readings, judged)],
            "answer_judge": [None if g is None else g.get(r.best[0], 0.0) for r, g in zip(readings, judge)],
            long_inputs.TRUNCATED: long_inputs.flags_detail(truncated),
        }
        long_inputs.report(self.name, records, truncated,
                           f"{reader.spec.max_len} WordPieces per window, the first {question_cap(reader.spec)} "
                           f"of the question, the passage in at most "
                           f"{int(self.options['max_windows'])} windows overlapping by {reader.spec.stride}")
        return main, details

    def signature_fields(self) -> dict[str, Any]:
        from qascore.metrics.verifiers import dtype_field
        from qascore.runtime.delta import file_sha256, read_meta
        from qascore.runtime.encoder import model_id
        from qascore.runtime.reader import JUDGED, VERIFIED

        path = self._path()
        meta = read_meta(path)
        spec = meta.get("spec", {})
        rule = self.options["rule"] or meta.get("rule")
        ava = verifier_path()
        judge = {"verifier": f"{ava.stem}@{file_sha256(ava)}"} if rule in VERIFIED else {}
        if rule in JUDGED:
            card = judge_path()
            judge = {"judge": f"{card.stem}@{file_sha256(card)}"}
        dtype = self.options["dtype"]
        focus = {} if self.options["focus"] is None else {"focus": int(self.options["focus"])}
        return {"model": f"{path.stem}@{file_sha256(path)}", "base": model_id(spec.get("encoder", "")),
                "max_len": spec.get("max_len"), "stride": spec.get("stride"), "rule": rule, **judge,
                **focus, **({"dtype": INT8} if dtype == INT8 else dtype_field(dtype))}
