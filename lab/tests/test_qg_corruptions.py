"""The bad-question look-alikes that choose `answerability`'s rule (train/qg_corruptions.py)."""

from __future__ import annotations

import random

import pytest

from qascore_lab.train import qg_corruptions as qc


@pytest.mark.parametrize("question, expected", [
    ("When did Tesla move to New York City in 1884?", ["Tesla", "New York City", "1884"]),
    ("What did the Treaty of Paris end?", ["Treaty of Paris"]),
    ("Who wrote it?", []),
])
def test_names(question: str, expected: list[str]) -> None:
    assert qc.names(question) == expected


@pytest.mark.parametrize("question, expected", [("In which year?", "Which"), ("Name the king.", "What"),
                                                ("how many were there", "How")])
def test_wh_word(question: str, expected: str) -> None:
    assert qc.wh_word(question) == expected


def test_drop_words_drops_half_the_content_words_rounded_up() -> None:
    # content words: Tesla, move, New, York, City -> 3 dropped, stop words and '?' kept
    out = qc.drop_words("When did Tesla move to New York City?", random.Random(0))
    assert out is not None and out.endswith("?")
    kept = [w for w in ("Tesla", "move", "New", "York", "City") if w in out.split() or w + "?" in out.split()]
    assert len(kept) == 2
    assert qc.drop_words("What is it?", random.Random(0)) is None


def test_copy_cut_and_swap() -> None:
    ctx = "Tesla was born in 1856. He moved to New York in 1884. He died."
    assert qc.copy_cut(ctx, "1884") == "He moved to New York in what?"
    assert qc.copy_cut(ctx, "1999") is None
    # a swap uses a pool entry of the same kind that the passage does not mention
    assert qc.swap_entity("When did Tesla move to Paris?", "Tesla moved to Paris.", ["London", "1900", "Paris"],
                          random.Random(0)) in ("When did London move to Paris?", "When did Tesla move to London?")
    assert qc.swap_entity("In 1884, where?", "In 1884 he moved.", ["London", "1884"], random.Random(0)) is None


def _sources() -> list[qc.Source]:
    out = []
    for a, (name, city) in enumerate([("Alice", "Paris"), ("Bruno", "Lima")]):
        for p in range(2):
            ctx = f"{name} was born in {city} in {1900 + p}. {name} wrote {p + 2} symphonies in Vienna."
            out += [qc.Source(f"Where was {name} born?", ctx, city, f"T{a}"),
                    qc.Source(f"In what year was {name} born?", ctx, str(1900 + p), f"T{a}"),
                    qc.Source(f"How many symphonies did {name} write?", ctx, str(p + 2), f"T{a}")]
    return out


def test_build_is_seeded_and_keeps_the_own_passage_and_answer() -> None:
    src = _sources()
    rows = qc.build(src, 4, seed=1)
    assert rows == qc.build(src, 4, seed=1)
    assert {r.kind for r in rows} <= set(qc.KINDS)
    own = {r.base: r for r in rows if r.kind == "own"}
    assert len(own) == 4
    for r in rows:
        assert (r.context, r.answer, r.title) == (own[r.base].context, own[r.base].answer, own[r.base].title)
        if r.kind == "other_answer":   # another question of the same passage, about a different answer
            assert r.question != own[r.base].question
        if r.kind == "other_passage":  # a question of another paragraph of the same article
            assert any(s.question == r.question and s.context != r.context and s.title == r.title for s in src)
        if r.kind == "entity_swap":    # the name came from the other article
            assert ("Alice" in r.question) != ("Alice" in own[r.base].question)
