"""Corpus v3 pieces that need no data: EVOUNA-TQ aliases and split, per-source training mixes."""

from __future__ import annotations

from collections import Counter

import pytest

from qascore_lab.datasets.evouna import split_aliases, split_of
from qascore_lab.train.verifier_run import mix


@pytest.mark.parametrize("golden, aliases", [
    ("David Seville", ("David Seville",)),
    ("74/seventy-four", ("74", "seventy-four")),
    (" Veal / Calf meat /Veal/ ", ("Veal", "Calf meat")),   # blanks and repeats dropped, order kept
    ("+-*/Arithmetic", ("+-*", "Arithmetic")),
])
def test_split_aliases(golden, aliases):
    assert split_aliases(golden) == aliases


def test_split_is_by_question_stable_and_about_60_20_20():
    qs = [f"question number {i}?" for i in range(3000)]
    parts = [split_of(q) for q in qs]
    assert parts == [split_of(q) for q in qs]                        # deterministic
    assert split_of("Question Number 7?") == split_of("question number 7")  # normalised text
    share = Counter(parts)
    assert abs(share["train"] / 3000 - 0.6) < 0.03 and abs(share["test"] / 3000 - 0.2) < 0.03
    assert [split_of(q, seed=14) for q in qs] != parts                 # the seed salts the hash


def test_mix_samples_each_named_source_and_keeps_corpus_order():
    rows = [{"source": s, "i": i} for i, s in enumerate(["a", "b", "a", "c", "a", "b", "a"])]
    out = mix(rows, "a=2,b=all", seed=13)
    assert Counter(r["source"] for r in out) == {"a": 2, "b": 2}
    assert [r["i"] for r in out] == sorted(r["i"] for r in out)
    assert out == mix(rows, "a=2,b=all", seed=13)
    with pytest.raises(SystemExit, match="no training rows of source 'z'"):
        mix(rows, "z=1", seed=13)


def test_probe_sample_draws_n_rows_or_each_named_family():
    from qascore_lab.train.verifier_run import probe_sample, sample

    rows = [{"family": f, "i": i} for i, f in enumerate(["swap", "hedge", "swap", "alias", "hedge", "swap"])]
    assert probe_sample(rows, "3", seed=13) == sample(rows, 3, seed=13)
    out = probe_sample(rows, "swap:all+hedge:1", seed=13)
    assert Counter(r["family"] for r in out) == {"swap": 3, "hedge": 1}
    assert [r["i"] for r in out] == sorted(r["i"] for r in out)
    with pytest.raises(SystemExit, match="expected DIR=N"):
        probe_sample(rows, "swap", seed=13)
