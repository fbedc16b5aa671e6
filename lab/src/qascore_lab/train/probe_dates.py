"""`qascore-lab train probe-dates`: answers that give a date more precisely than the gold answer.

A person accepts "September 2, 1945" for "In what year did the war end?" with gold "1945", and rejects
"September 2, 1946". The judge rejected the first in reading EVOUNA-TQ dev (lab/results/judge.md, round
2026-11-26e): the verifier reads numbers the gold lacks as a near-number fault. This builder finds the
true refinements in real text: SQuAD 1.1 training answers that are a year, a month, or a month and year,
and that stand inside a fuller date of their own passage ("September 2, 1945", "2 September 1945"). One
pair per such question, family `date-refine`:

- right member: the passage's fuller date (label 1: more precise, and true by the passage);
- wrong member: the same date with the part the gold states changed (label 0): the year moved as the
  suite's `number` family moves numbers, or another month.

Splits follow the probe suite: a question of corpus v3 keeps its corpus split, any other SQuAD question is
split by the suite's hash (`probes.squad_split`); questions of the held-out sets are skipped. Seeded.
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path
from typing import Any, NamedTuple

from qascore.text.answer_match import MONTHS
from qascore_lab.train.probes import SPLITS, Builder, corpus_splits, squad_split, write_split

FAMILY = "date-refine"
_M = "(?:" + "|".join(MONTHS) + ")"
_DAY = r"(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?"
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
# fuller dates, most precise first: "September 2, 1945", "2 September 1945", "September 1945", "September 2"
DATES = tuple(re.compile(p) for p in (rf"\b{_M} {_DAY},? {_YEAR}\b", rf"\b{_DAY} {_M},? {_YEAR}\b",
                                       rf"\b{_M},? {_YEAR}\b", rf"\b{_M} {_DAY}\b(?!,? ?\d)"))
GOLD = re.compile(rf"^(?:{_YEAR}|{_M}|{_M},? {_YEAR})$")
TEMPLATES = ("{A}.", "It was {A}.", "The answer is {A}.", "On {A}.", "{A}")


class Refinement(NamedTuple):
    date: str    # the passage's fuller date
    wrong: str   # the same date with the gold's part changed


def refinement(context: str, start: int, gold: str, rng: random.Random) -> Refinement | None:
    """The fuller date of `context` that holds the gold answer at `start`, and its wrong twin; None when the
    gold is not a year / month / month and year, or no fuller date holds it there."""
    from qascore_lab.train.number_swaps import perturb

    gold = gold.strip()
    end = start + len(gold)
    if not GOLD.match(gold) or context[start:end] != gold:
        return None
    for pattern in DATES:
        for m in pattern.finditer(context):
            if m.start() <= start and end <= m.end() and len(m.group()) > len(gold):
                date = m.group()
                head, tail = date[:start - m.start()], date[end - m.start():]
                years = re.findall(_YEAR, gold)
                if years:   # the gold states a year (and maybe a month): move the year
                    new = gold.replace(years[0], perturb(years[0], rng), 1)
                else:       # the gold is a month: another month
                    new = rng.choice([x for x in MONTHS if x != gold])
                return Refinement(date, head + new + tail)
    return None


def build(data: Path, corpus: Path, seed: int) -> dict[str, list[dict[str, Any]]]:
    from qascore_lab.datasets import squad
    from qascore_lab.train.ava_data import question_key
    from qascore_lab.train.verifier_corpus import held_out

    skip, _, _ = held_out(data)
    seen = corpus_splits(corpus)
    b = Builder(seed)
    for q in squad.load_v11(data):
        key = question_key(q.question)
        if key in skip or not q.answers:
            continue
        rng = b.rng(f"squad11:{q.id}", FAMILY)
        found = refinement(q.context, q.answers[0].start, q.answers[0].text, rng)
        if found is None:
            continue
        refs = list(dict.fromkeys(a.text for a in q.answers))
        if found.wrong in refs or found.date in refs:
            continue
        t = rng.choice(TEMPLATES)
        b.pair(seen.get(key) or squad_split(key, seed), f"squad11:{q.id}", q.question, refs, FAMILY,
               t.format(A=found.date), t.format(A=found.wrong), "squad-1.1", "perturbed")
    return b.rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, help="folder holding squad_v1_train/ (default: ../shared/data)")
    p.add_argument("--corpus", default="runs/vd3", help="corpus v3 folder (`train verifier-corpus`): its splits")
    p.add_argument("--out", default="runs/probe-dates", help="folder for train/dev/test.jsonl")
    p.add_argument("--seed", type=int, default=13)


def run(args: argparse.Namespace) -> int:
    from qascore_lab.datasets import data_root

    rows = build(data_root(args.data), Path(args.corpus), args.seed)
    for split in SPLITS:
        write_split(Path(args.out), split, rows[split], "date")
        print(f"{split}: {len(rows[split])} rows ({len(rows[split]) // 2} questions)")
    return 0
