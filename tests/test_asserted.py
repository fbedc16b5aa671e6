"""What an answer asserts (`metrics.asserted`, `judge:asserted=true`): span matching, the claim in words and the
judge's one-line `why` with it, by hand; the shipped reader on answers whose asserted span a reader can see."""

from __future__ import annotations

import re

import pytest

from qascore.metrics.asserted import asserted_span, claim, match, match_mass, revised_at
from qascore.metrics.judge import explain
from qascore.runtime.reader import Reading


@pytest.mark.parametrize("span, refs, expected", [
    ("Canberra", ["Canberra"], 1.0),
    ("the city of Canberra", ["Canberra"], 1.0),          # the reference occurs inside the span
    ("King George IV", ["George IV"], 1.0),
    ("Sydney", ["Canberra"], 0.0),
    ("George Bush", ["George Washington"], 0.0),          # a word the reference lacks: another George
    ("Alpha cells", ["beta cells"], 0.0),
    ("15 December 1901", ["12 December 1901"], 0.0),
    ("George", ["George Washington"], 2 / 3),              # part of it and nothing else: token F1, P 1, R 1/2
    ("Norfolk system", ["Norfolk four-course system", "Norfolk rotation"], 0.8),  # the reference holding it
    ("Moscow \u2013 Vladivostok", ["Moscow and Vladivostok"], 2 / 3),  # a dash is no word (token F1 counts it)
    ("", ["Canberra"], 0.0),
    ("Canberra", [], 0.0),
])
def test_match_table(span, refs, expected):
    assert match(span, refs) == pytest.approx(expected)


def test_match_mass_is_the_matching_mass_of_the_best_window():
    reading = Reading(windows=[(0.1, [("Canberra", 0.5), ("Sydney", 0.3), ("George", 0.1)]),
                               (0.2, [("Canberra", 0.7)])])
    # window 1: 0.5 x 1 + 0.3 x 0 + 0.1 x 0 = 0.5; window 2: 0.7
    assert match_mass(reading, ["Canberra"]) == pytest.approx(0.7)
    assert match_mass(Reading(windows=[]), ["Canberra"]) == 0.0


def test_asserted_span_is_the_best_span_unless_no_answer_wins():
    assert asserted_span(Reading(windows=[(0.2, [("Sydney", 0.6), ("Canberra", 0.2)])])) == "Sydney"
    assert asserted_span(Reading(windows=[(0.6, [("Sydney", 0.3)])])) is None         # P(no answer) 0.6
    assert asserted_span(Reading(windows=[(0.7, [("Sydney", 0.2)]), (0.3, [("Perth", 0.5)])])) == "Perth"
    assert asserted_span(Reading(windows=[])) is None


def test_claim_and_why_in_words():
    assert claim("Canberra", ["Canberra"]) == "asserts 'Canberra', a gold answer"
    assert claim("Sydney", ["Canberra"]) == "asserts 'Sydney', not a gold answer"
    assert claim(None, ["Canberra"]) == "asserts no answer"
    said = claim("Sydney", ["Canberra"])
    assert (explain(0.73, 0.44, {"verifier": 0.5, "contains": 0.2}, said=said)
            == "accepted (0.73 >= 0.44): asserts 'Sydney', not a gold answer; verifier +0.50, contains +0.20")
    assert explain(0.1, 0.44, {}, said="asserts no answer") == "rejected (0.10 < 0.44): asserts no answer"


def _read(span: str, p_null: float = 0.0) -> Reading:
    return Reading(windows=[(p_null, [(span, 0.9)])])


CHOLERA = "Cholera. Re-reading my notes, it was typhus. Typhus."  # units at 0, 9 and 45
OFFER = "Snow blamed cholera. Then again, the records say typhus. Typhus."  # units at 0, 21 and 57


@pytest.mark.parametrize("text, first, second, probs, expected", [
    # the readers differ on the gold: the answer settles on the unit of the second reader's span
    (CHOLERA, _read("Cholera"), _read("Typhus"), (0.6, 0.01), 45),
    (CHOLERA, _read("Cholera"), _read("Typhus"), (0.04, 0.01), None),   # no unit reopens it at 0.05
    (CHOLERA, _read("Cholera"), _read("Typhus"), (0.01, 0.06), 45),     # the span's own unit counts
    (CHOLERA, _read("Cholera"), _read("Cholera"), (0.6, 0.01), None),   # both read the gold at the start
    # neither reads the gold, but the answer named it before a unit that names none: it moved away
    (CHOLERA, _read("typhus"), _read("Typhus"), (0.6, 0.01), 45),
    ("Cholera. Re-reading my notes: typhus, not cholera.", _read("typhus"), _read("typhus"), (0.6,), None),
    # both read the gold where nothing before its unit names it: the answer moved to it
    ("Typhus, I think. Re-reading my notes, the outbreak was cholera.", _read("cholera"), _read("cholera"), (0.2,), 17),
    ("Typhus, not cholera. Re-reading my notes, it was cholera.", _read("cholera"), _read("cholera"), (0.2,), None),
    (OFFER, _read("Snow"), _read("Typhus"), (0.3, 0.01), 57),
    (OFFER, _read("Snow"), _read("Typhus", p_null=0.6), (0.3, 0.01), None),  # the second reads no answer
    ("Typhus. Wait: cholera. Cholera.", _read("Cholera"), _read("Typhus"), (0.6, 0.01), None),  # span in unit 0
])
def test_revised_at_table(text, first, second, probs, expected):
    starts = [0, *(m.end() + 1 for m in re.finditer(r"[.!?:](?= )", text))][:3]
    ends = [*(s - 1 for s in starts[1:]), len(text)]
    spans = [(a, b, p) for (a, b), p in zip(zip(starts, ends), (0.0, *probs))]
    assert revised_at(text, ["Cholera"], first, second, spans) == expected


@pytest.mark.slow
def test_judge_reports_what_the_answer_asserts():
    """The shipped reader, through the judge's option: the asserted span of a concession, a side role and a
    refusal; the probability is the one the judge gives without the option."""
    import qascore

    q = "What is the capital of Australia?"
    cands = ["Although Sydney is the largest city, the capital of Australia is Canberra.",
             "The capital of Australia is Sydney; Canberra is only its eighth-largest city.",
             "I'm not able to say which city is the capital."]
    kw = dict(candidates=cands, references=[["Canberra"]] * 3, questions=[q] * 3)
    plain = qascore.score("judge", **kw)
    read = qascore.score("judge:asserted=true", **kw)
    assert read.scores == plain.scores
    spans = [d["asserted"] for d in read.details]
    assert spans[0] == "Canberra" and spans[1] == "Sydney" and spans[2] is None, spans
    assert read.details[1]["why"].split(": ", 1)[1].startswith("asserts 'Sydney', not a gold answer")
    assert "asserted@" in read.signature and "asserted@" not in plain.signature


@pytest.mark.slow
def test_the_judge_features_read_what_the_answer_asserts():
    """The `asserted` model pass (features a card may list; `qascore-lab train judge` fits them as candidates):
    the reading's mass on gold spans and P(no answer), for the gold asserted, the gold in a side role and a
    refusal (the reader in int8 on the CPU)."""
    from qascore.metrics.judge import features
    from qascore.records import Record

    cands = ["William Shakespeare wrote Hamlet.",
             "Christopher Marlowe wrote it; Shakespeare is often confused with him.",
             "I do not know who wrote it."]
    x = features([Record(question="Who wrote Hamlet?", candidate=c, references=["William Shakespeare"])
                  for c in cands], ["asserted", "no_answer"])
    assert x[0, 0] > 0.9 and x[1, 0] < 0.1 and x[2, 0] < 0.1     # mass on a gold span
    assert x[0, 1] < 0.1 and x[1, 1] < 0.1 and x[2, 1] > 0.9     # P(no answer): the refusal only


def test_the_asserted_features_run_in_int8_on_the_cpu_only_unless_asked():
    from qascore.metrics.asserted import judge_dtype

    assert judge_dtype("cpu", None) == "int8" and judge_dtype("cpu", "bf16") == "bf16"
    assert judge_dtype("cuda", None) is None


@pytest.mark.slow
def test_a_records_reading_does_not_depend_on_the_records_beside_it():
    """The judge reads in int8 on the CPU over each reader's calibrated ranges (torch's own dynamic int8 quantises a
    batch's activations with one scale: batched so, a 120-letter answer's features moved by up to 0.5), so a
    record's asserted features are the same alone, in a batch and in another order, to float rounding (a kernel may
    sum a padded batch in another order)."""
    from qascore.metrics import asserted
    from qascore.records import Record

    dna = "ACGT" * 30
    recs = [Record(id="1", question="What is the sequence?", candidate=dna, references=[dna]),
            Record(id="2", question="Which city is the capital of Australia?", candidate="Canberra, not Sydney.",
                   references=["Canberra"]),
            Record(id="3", question="Who wrote Hamlet?", candidate="It was Shakespeare, around 1600.",
                   references=["William Shakespeare"])]
    def read(rs):
        return [x for r, rec in zip(asserted.judge_readings(rs, batch_size=16, device="cpu", dtype=None)[0], rs)
                for x in (r.p_null, asserted.match_mass(r, rec.references))]
    together = read(recs)
    backwards = read(recs[::-1])
    assert [x for k in range(len(recs) - 1, -1, -1) for x in backwards[2 * k:2 * k + 2]] == pytest.approx(together, rel=1e-4, abs=1e-8)
    assert [x for r in recs for x in read([r])] == pytest.approx(together, rel=1e-4, abs=1e-8)


@pytest.mark.slow
def test_an_int8_reader_on_two_threads_reads_each_window_as_on_one():
    """With more than one thread the windows of an int8 reader without calibrated ranges (one window per batch: the
    `answerability` reader's) are shared out to workers, one intra-op thread each (`runtime.devices.on_threads`): every reading
    is the one a single thread gives, in the callers' order, progress counts every window, and torch's thread
    count is as before afterwards."""
    import torch

    from qascore.runtime.reader import DELTA, load_shared

    questions = ["Who wrote Hamlet?", "Which city is the capital of Australia?", "When did Apollo 11 land?"] * 3
    answers = ["It was Shakespeare, around 1600.", "Canberra, not Sydney.", "In July 1969, on the 20th."] * 3
    reader = load_shared(DELTA, "cpu", int8=True)
    assert reader.window_per_batch
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        alone = reader.read(questions, answers)
        torch.set_num_threads(2)
        ticks: list[int] = []
        shared = reader.read(questions, answers, tick=ticks.append)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert [(r.windows, r.truncated) for r in shared] == [(r.windows, r.truncated) for r in alone]
    assert sum(ticks) == len(questions) and shared[0].windows[0][1][0][0] == "Shakespeare"


def test_an_answer_that_reopens_itself_is_read_by_the_revisions_reader():
    """`judge_readings` sends an answer in which `metrics.reopens` finds a reopening to the second reader, taught
    what revising answers commit to: it reads the answer the text ends on, where the first reader reads the first
    one named; an answer that never reopens is read by the first reader alone, as `readings` reads it."""
    from qascore.metrics import asserted, reopens
    from qascore.records import Record
    from qascore.text import answer_match as am

    q = "Which country won the first FIFA World Cup in 1930?"
    revised = "Uruguay, the hosts. No, I'm crossing wires: Uruguay hosted, but Argentina took the trophy. Argentina."
    steady = "Uruguay won it, beating Argentina 4-2 in the final."
    assert reopens.reopening(revised) is not None and reopens.reopening(steady) is None
    recs = [Record(id=str(i), question=q, candidate=c, references=["Uruguay"]) for i, c in enumerate((revised, steady))]
    read, settles, _ = asserted.judge_readings(recs, batch_size=8, device=None, dtype=None)
    first = asserted.readings([am.as_question(q)] * 2, [revised, steady], dtype="int8")
    assert [asserted.asserted_span(r) for r in read] == ["Argentina", "Uruguay"]
    assert settles[1] is None and settles[0] is not None and revised[settles[0]:] == "Argentina."
    assert asserted.asserted_span(first[0]) == "Uruguay"  # the first reader reads the answer taken back
    assert asserted.match_mass(read[0], ["Uruguay"]) < 0.5 <= asserted.match_mass(first[0], ["Uruguay"])
    assert read[1].windows == first[1].windows and read[1].p_null == first[1].p_null


@pytest.mark.parametrize("span,p_null,p_unit,expected", [
    ("45", 0.01, 0.32, None),      # the span before a weak reopening: an elaboration, not read as reopening
    ("45", 0.01, 0.60, 30),        # a strong reopening stands whatever the reader reads
    ("32", 0.01, 0.32, 30),        # the span after the reopening: it stands
    ("45", 0.90, 0.32, 30),        # the reader reads no answer: it stands
    ("", 0.01, 0.32, 30),
])
def test_a_weak_reopening_is_overruled_where_the_second_reader_reads_the_answer_before_it(span, p_null, p_unit,
                                                                                         expected):
    """`reopening`: where the answer reopens itself, unless the second reader's span lies wholly before that unit and
    the unit reads below REOPENING_OVERRULED or the rest asserts nothing (hand-built readings and unit
    probabilities)."""
    from qascore.metrics import asserted, reopens
    from qascore.runtime.reader import Reading

    text = "Hakuhō won 45 makuuchi yūshō. That's well ahead of Taihō's 32."
    spans = [(0, 29, 0.0), (30, len(text), p_unit)]
    assert text[30:].startswith("That's") and reopens.reopened_at(spans) == 30
    second = Reading(windows=[(p_null, [(span, 0.9)] if span else [])])
    assert (asserted.REOPENING_OVERRULED, asserted.REST_ASSERTS_NONE) == (0.5, 0.9)
    assert asserted.reopening(text, spans, second) == expected
    assert asserted.reopening(text, spans, None) == 30   # not read by the second reader
    # a strong reopening after which the second reader reads no answer is overruled too, where the span came before
    nothing, something = Reading(windows=[(0.95, [("Taihō", 0.02)])]), Reading(windows=[(0.2, [("32", 0.7)])])
    before = span == "45" and p_null < 0.5
    assert asserted.reopening(text, spans, second, nothing) == (None if before else 30)
    assert asserted.reopening(text, spans, second, something) == expected
