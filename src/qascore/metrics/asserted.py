"""What an answer asserts: the candidate read by an extractive reader trained to find the span it puts forward.

The asserted-answer reader (`qascore-lab train asserted`: the answerability reader continued on answer texts
labelled with the span each asserts, `train asserted-data`) reads the question with the candidate as its
passage. Its best span is what the answer asserts as its answer; P(no answer) above one half means it asserts
none (a refusal, an undecided choice, a restatement). An answer that reopens what it said (`metrics.reopens`:
"Uruguay. No, I'm crossing wires: Uruguay hosted, but Argentina took the trophy.") is also read by a second
reader, trained as the first with answers that revise themselves, each marked with the clause it finally commits to
(`REVISIONS`); where the two disagree on the gold, or the answer moves to or away from it, the judge reads the answer
from the second reader's clause (`revised_at`). The judge's short-gold card reads the reading's mass on gold spans (its
`asserted` feature);
`judge:asserted=true` also reports the span (`details.asserted`, and in `details.why`; docs/judge.md).
"""

from __future__ import annotations

from typing import Sequence

from qascore.metrics import reopens
from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.reader import Reader, Reading, load_shared
from qascore.text import answer_match as am
from qascore.text.squad import squad_f1, squad_tokens

DELTA = defaults.RESOURCES / "asserted" / "asserted.safetensors"
REVISIONS = defaults.RESOURCES / "asserted" / "asserted-revisions.safetensors"  # reads answers that reopen themselves
TOP_K = 10  # spans kept per window: the mass beyond them is negligible for answer-length texts
# the least P(reopens) of a unit before the second reader's span for an answer to count as revising its claim
# (`revised_at`; chosen on the dev sets, lab/results/judge.md round 2026-11-30i)
REVISION_EVIDENCE = 0.05
# a reopening (`metrics.reopens`) is overruled where the second reader reads the answer's span wholly before it and
# the unit reads below REOPENING_OVERRULED or the second reader reads no answer from it on (P(no answer) above
# REST_ASSERTS_NONE): the answer goes on to name other numbers or names after its own ("Hakuhō won 45 ... well ahead
# of Taihō's 32"), it does not revise (`reopening`; both chosen on the dev sets, lab/results/judge.md round 2026-12-01e)
REOPENING_OVERRULED, REST_ASSERTS_NONE = 0.5, 0.9


def match(span: str, references: Sequence[str]) -> float:
    """How well a span states a reference: 1 where a reference occurs in it (folded), else the best token F1 over
    the references that hold every token of the span ("Armstrong" for "Edwin Armstrong"). A span with a word no
    such reference holds names something else, however much it shares ("Alpha cells" for "beta cells", "15
    December 1901" for "12 December 1901"): 0."""
    if not span.strip():
        return 0.0
    if am.contains(span, references):
        return 1.0
    words = {t for t in squad_tokens(span) if any(c.isalnum() for c in t)}  # "–" and "→" are not words
    return max((squad_f1(span, r) for r in references if words <= set(squad_tokens(r))), default=0.0)


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
    """The precision of the judge's asserted features (and of its tagger, where the card reads it so): int8 on the
    CPU unless bf16 or fp16 is asked for (one pass beside the verifier's, kept cheap), else as asked: a reader
    with ranges calibrated beside it reads over them, batched, one without reads one window per batch
    (`runtime.reader.load_shared`), so a record's reading never depends on the records read beside it."""
    from qascore.runtime.devices import pick_device

    return dtype if dtype is not None or not pick_device(device).startswith("cpu") else "int8"


def revised_at(text: str, references: Sequence[str], first: Reading, second: Reading,
               spans: Sequence[tuple[int, int, float]]) -> int | None:
    """Where an answer that revises its claim settles: the start of the unit (`reopens.unit_probabilities`, `spans`)
    that holds the last occurrence of the second reader's span; None where the answer does not revise. It revises
    where a unit after the first, up to that one, reopens it at `REVISION_EVIDENCE` or more, and the two readers
    differ on whether the answer asserts a reference (the second's span after the first's: "Cholera. Re-reading my
    notes, ... was actually typhus; Snow's cholera work came later. Typhus."), or the second reads a reference in
    a unit that names one where nothing before it does ("Ivan Turgenev. Oops, Turgenev wrote A Month in the
    Country; The Cherry Orchard is Anton Chekhov's."), or a span that is none, in a unit that names none, after
    the answer named one."""
    last = second.best[0]
    at = text.rfind(last) if last.strip() else -1
    unit = next((k for k, (a, b, _) in enumerate(spans) if a <= at < b), 0)
    if unit == 0 or max(p for _, _, p in spans[1:unit + 1]) < REVISION_EVIDENCE:
        return None
    start, end, _ = spans[unit]
    said = first.best[0]
    gold_last = match(last, references) >= 0.5
    if (match(said, references) >= 0.5) != gold_last and (text.find(said) if said.strip() else -1) < at:
        return start
    named = am.Reading("", text, references)
    before, inside = named.holds(text[:start]), named.holds(text[start:end])
    if gold_last and inside and not before:  # moved to the gold
        return start
    if not gold_last and second.p_null <= 0.5 and before and not inside:  # moved away from it
        return start
    return None


def _said_before(text: str, reading: Reading, at: int) -> bool:
    """The reading asserts a span, and its last occurrence in `text` ends before offset `at`."""
    span = reading.best[0]
    said = text.rfind(span) if reading.p_null <= 0.5 and span.strip() else -1
    return 0 <= said and said + len(span) <= at


def reopening(text: str, spans: Sequence[tuple[int, int, float]], second: Reading | None,
              rest: Reading | None = None) -> int | None:
    """Where the answer reopens itself (`reopens.reopened_at`), or None: also where the `second` reader (None: not
    read) reads the answer's span wholly before that unit and the unit reads below `REOPENING_OVERRULED` or `rest`,
    the second reader's reading from the unit on (None: not read), finds no answer there."""
    at = reopens.reopened_at(spans)
    if at is None or second is None or not _said_before(text, second, at):
        return at
    weak = max(p for a, _, p in spans if a == at) < REOPENING_OVERRULED
    return None if weak or (rest is not None and rest.p_null > REST_ASSERTS_NONE) else at


def judge_readings(records: Sequence[Record], *, batch_size: int, device: str | None, dtype: str | None,
                   spans: Sequence[Sequence[tuple[int, int, float]]] | None = None
                   ) -> tuple[list[Reading], list[int | None], list[int | None]]:
    """What the judge reads of each record (the question as a question, the whole answer, `undressed`, as the
    passage, at `judge_dtype`), for its features and for `details.asserted` alike: per record, the reading (the
    `REVISIONS` reader's where the answer reopens itself or revises its claim, else the first reader's), where
    an answer that revises its claim settles (`revised_at`, an offset in its undressed text) and where it reopens
    itself (`reopening`), each else None. The second reader reads only answers with a unit at `REVISION_EVIDENCE`
    or more; `spans`: each answer's `reopens.unit_probabilities`, where the caller has read them already."""
    questions = [am.as_question(r.question) for r in records]
    texts = [am.undressed(r.candidate) for r in records]
    if spans is None:
        spans = [reopens.unit_probabilities(t) for t in texts]
    precision = judge_dtype(device, dtype)
    first = readings(questions, texts, batch_size=batch_size, device=device, dtype=precision)
    doubted = [i for i, s in enumerate(spans) if max((p for _, _, p in s), default=0.0) >= REVISION_EVIDENCE]
    second = dict(zip(doubted, readings([questions[i] for i in doubted], [texts[i] for i in doubted],
                                        batch_size=batch_size, device=device, dtype=precision, revisions=True)))
    revised = [revised_at(t, r.references, first[i], second[i], spans[i]) if i in second else None
               for i, (t, r) in enumerate(zip(texts, records))]
    reads = [second[i] if i in second and (revised[i] is not None or reopens.reopened_at(spans[i]) is not None)
             else first[i] for i in range(len(records))]
    reopened = [reopening(t, s, second.get(i)) for i, (t, s) in enumerate(zip(texts, spans))]
    held = [i for i, at in enumerate(reopened) if at is not None and _said_before(texts[i], second[i], at)]
    rests = readings([questions[i] for i in held], [texts[i][reopened[i]:] for i in held], batch_size=batch_size,
                     device=device, dtype=precision, revisions=True) if held else []
    for i, rest in zip(held, rests):
        reopened[i] = reopening(texts[i], spans[i], second[i], rest)
    return reads, revised, reopened


def readings(questions: Sequence[str], candidates: Sequence[str], *, batch_size: int = 32,
             device: str | None = None, dtype: str | None = None, revisions: bool = False) -> list[Reading]:
    """One reading per (question, candidate): the candidate read as the passage (by the `REVISIONS` reader where
    `revisions`)."""
    int8 = dtype == "int8"
    return reader(device, int8, revisions).read(questions, candidates, batch_size=batch_size,
                                                dtype=None if int8 else dtype, top_k=TOP_K)
