"""`train asserted-data`: forms are split as a whole, spans point at the asserted item, directions balance."""

from __future__ import annotations

import random

import pytest

from qascore_lab.train import asserted_data as ad


@pytest.mark.parametrize("template, x, y, text, span", [
    ("«X», not Y.", "Canberra", "Sydney", "Canberra, not Sydney.", "Canberra"),
    ("Although Y is often mentioned, the answer is «X».", "B", "A", "Although A is often mentioned, the answer is B.", "B"),
    ("Options: Y or «X». The correct one is «X».", "Bonn", "Berlin", "Options: Berlin or Bonn. The correct one is Bonn.",
     "Bonn"),
    ("I'm not sure whether it's X or Y.", "Oslo", "Bergen", "I'm not sure whether it's Oslo or Bergen.", None),
    ("Yes, Y. Xavier says «X».", "1969", "1970", "Yes, 1970. Xavier says 1969.", "1969"),  # X/Y only as words
])
def test_fill_writes_both_items_and_marks_the_asserted_one(template, x, y, text, span):
    out, s, e = ad.fill(template, x, y)
    assert out == text
    assert (out[s:e] if s is not None else None) == span


def test_every_form_is_in_exactly_one_split_and_each_split_has_forms_of_several_families():
    forms = ad.all_forms()
    splits = {f: ad.form_split(f) for f in forms}
    assert set(splits.values()) == {"train", "dev", "test"}
    for split in ("train", "dev", "test"):
        fams = {forms[f][0] for f in forms if splits[f] == split}
        assert len(fams) >= 5, (split, fams)


def test_composed_rows_use_forms_of_their_questions_split_and_point_at_the_asserted_answer():
    pairs = [ad.Pair(f"q{i}", "What is the capital of Australia?", "Canberra", ("Canberra",), "Sydney", split, "t")
             for i, split in enumerate(["train", "dev", "test"] * 20)]
    holders = {"q0": [("The capital of Australia is Canberra, a planned city.", 27)]}
    rows = list(ad.compose(pairs, holders, random.Random(1), per_pair=3))
    assert rows
    for r in rows:
        assert ad.form_split(r.form) == r.split
        if r.start is None:
            assert r.label == 0
        else:
            asserted = r.text[r.start:r.end]
            assert asserted in ("Canberra", "Sydney")
            assert r.label == int(asserted == "Canberra")
    swapped = [r for r in rows if r.family == "swapped"]
    assert [r.text[r.start:r.end] for r in swapped] == ["Sydney"] * len(swapped)
    labels = [r.label for r in rows if r.start is not None and r.family != "swapped"]
    assert 0.2 < sum(labels) / len(labels) < 0.8      # both directions


@pytest.mark.parametrize("text, kind", [("1969", "year"), ("384,400 km", "number"), ("Canberra", "name"),
                                        ("blue whale", "other")])
def test_kind(text, kind):
    assert ad.kind(text) == kind


def test_sentences_cover_the_passage():
    text = "Paris is big. It has 2 million people! Is it old? Yes."
    spans = ad.sentences(text)
    assert [text[a:b] for a, b in spans] == ["Paris is big.", "It has 2 million people!", "Is it old?", "Yes."]
