"""What an answer asserts: the candidate read by an extractive reader trained to find the span it puts forward.

The asserted-answer reader (`qascore-lab train asserted`: the answerability reader continued on answer texts
labelled with the span each asserts, `train asserted-data`) reads the question with the candidate as its
passage. Its best span is what the answer asserts as its answer; P(no answer) above one half means it asserts
none (a refusal, an undecided choice, a restatement). An answer that reopens what it said (`metrics.reopens`:
"Uruguay. No, I'm crossing wires: Uruguay hosted, but Argentina took the trophy.") is read by a second reader,
the first continued on answers that revise themselves, each marked with the clause it finally commits to
(`REVISIONS`). The judge's short-gold card reads the reading's mass on gold spans (its `asserted` feature);
`judge:asserted=true` also reports the span (`details.asserted`, and in `details.why`; docs/judge.md).
"""

from __future__ import annotations

from typing import Sequence

from qascore.metrics import reopens
from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.reader import Reader, Reading, load_shared
from qascore.text import answer_match as am
from qascore.text.squad import squad_f1

DELTA = defaults.RESOURCES / "asserted" / "asserted.safetensors"
REVISIONS = defaults.RESOURCES / "asserted" / "asserted-revisions.safetensors"  # reads answers that reopen themselves
TOP_K = 10  # spans kept per window: the mass beyond them is negligible for answer-length texts
# how the judge's features read with it, named beside its hash in a card's `asserted_model`: one window per batch in
# int8 (`runtime.reader.Reader.int8`), so that a record's reading never depends on the records read beside it
READING = "per-window"


def match(span: str, references: Sequence[str]) -> float:
    """How well a span states a reference: 1 where a reference occurs in it (folded), else the best token F1."""
    if not span.strip():
        return 0.0
    if am.contains(span, references):
        return 1.0
    return max((squad_f1(span, r) for r in references), default=0.0)


def match_mass(reading: Reading, references: Sequence[str]) -> float:
    """The reading's probability mass on spans that match a reference, weighted by `match`, in the window
    where it is largest."""
    return max((sum(p * match(t, references) for t, p in spans) for _, spans in reading.windows), default=0.0)


def asserted_span(reading: Reading) -> str | None:
    """The span the answer asserts, or None where the reader finds none (P(no answer) > 0.5)."""
    span = reading.best[0]
    return None if reading.p_null > 0.5 or not span.strip() else span


def claim(span: str | None, references: Sequence[str]) -> str:
    """What the answer asserts, in words, against the references ("asserts 'Sydney', not a gold answer")."""
    if span is None:
        return "asserts no answer"
    return f"asserts {span!r}, {'a gold answer' if match(span, references) >= 0.5 else 'not a gold answer'}"


def reader(device: str | None = None, int8: bool = False, revisions: bool = False) -> Reader:
    """The shipped asserted-answer reader (`revisions`: the one for answers that reopen themselves), created once per
    process and device (`runtime.reader.load_shared`)."""
    path = REVISIONS if revisions else DELTA
    if not path.is_file():
        raise FileNotFoundError(f"judge: the asserted-answer reader {path} is missing (train it with "
                                "`qascore-lab train asserted`, lab/NOTES.md)")
    return load_shared(path, device, int8=int8)


def judge_dtype(device: str | None, dtype: str | None) -> str | None:
    """The precision of the judge's asserted features: int8 on the CPU unless bf16 or fp16 is asked for (the
    reading is one pass beside the verifier's, kept cheap; one window per batch: `READING`), else as asked."""
    from qascore.runtime.devices import pick_device

    return dtype if dtype is not None or not pick_device(device).startswith("cpu") else "int8"


def judge_readings(records: Sequence[Record], *, batch_size: int, device: str | None, dtype: str | None,
                   reopened: Sequence[bool] | None = None) -> list[Reading]:
    """What the judge reads of each record: the question as a question, the whole answer (`undressed`) as the
    passage, at `judge_dtype`, by the `REVISIONS` reader where the answer reopens itself (`reopened`, one flag per
    record, where the caller has read it already); for its features and for `details.asserted` alike."""
    questions = [am.as_question(r.question) for r in records]
    texts = [am.undressed(r.candidate) for r in records]
    if reopened is None:
        reopened = [reopens.reopening(t) is not None for t in texts]
    out: dict[int, Reading] = {}
    for revisions in (False, True):
        idx = [i for i, flag in enumerate(reopened) if flag == revisions]
        if idx:
            out.update(zip(idx, readings([questions[i] for i in idx], [texts[i] for i in idx], batch_size=batch_size,
                                         device=device, dtype=judge_dtype(device, dtype), revisions=revisions)))
    return [out[i] for i in range(len(records))]


def readings(questions: Sequence[str], candidates: Sequence[str], *, batch_size: int = 32,
             device: str | None = None, dtype: str | None = None, revisions: bool = False) -> list[Reading]:
    """One reading per (question, candidate): the candidate read as the passage (by the `REVISIONS` reader where
    `revisions`)."""
    int8 = dtype == "int8"
    return reader(device, int8, revisions).read(questions, candidates, batch_size=batch_size,
                                                dtype=None if int8 else dtype, top_k=TOP_K)
