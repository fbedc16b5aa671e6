"""`qascore-lab train probe-styles`: the probe suite's assertions, hedges and guesses in the forms LLM answers take.

The suite (`train probes`) writes each behaviour in a handful of fixed sentences; a verifier trained on them
learns those sentences (lab/results/judge.md: 13 unseen phrasings, and LLM-style paragraphs that put the
answer in a markdown label, a bullet list or a "could be X, but Y is also possible" hedge). This builder
composes answers from parts instead: a lead that commits to X, a clause that names Y and rejects it, in
either order, joined by a space or line breaks, sometimes with a neutral closing sentence; hedges that name
both without choosing; refusals that guess. Every question of the suite whose `assertion` pair gives its
gold answer A and a wrong answer B yields one pair of each family, in the suite's split:

- `style-assert`: right member commits to A and rejects B; wrong member the same words with A and B swapped
- `style-hedge`: right member commits to A; wrong member names A and B without choosing (incorrect, as the
  suite's `hedge`)
- `style-guess`: right member commits to A; wrong member declines, then guesses B

The parts share no sentence with the phrasings that check generalisation (lab/results/judge.md, round
2026-11-26d).
Seeded: the same suite and seed give the same rows.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any, Sequence

from qascore_lab.train.probes import SPLITS, gold_and_wrong, read, write_split

FAMILIES = ("style-assert", "style-hedge", "style-guess")

# {X}: what the answer commits to; {Y}: what it names and rejects.
LEADS = ("{X}.", "It is {X}.", "It's {X}.", "The answer is {X}.", "**{X}**", "**Answer:** {X}", "Answer: {X}",
         "Short answer: {X}.", "I'd say {X}.", "I'm fairly confident it's {X}.", "That would be {X}.",
         "The correct answer is {X}.", "Based on what I know, it's {X}.", "{X} is the answer.", "Final answer: {X}")
REJECTS = ("{Y} is a common mistake.", "Some people say {Y}, but that's wrong.", "It gets mixed up with {Y} a lot.",
           "{Y} is sometimes given, but that's an error.", "*Note:* people often wrongly say {Y}.", "Not {Y}.",
           "(Not {Y}.)", "Some texts cite {Y}; they are mistaken.", "{Y} is wrong.", "Don't confuse it with {Y}.",
           "A popular but mistaken answer is {Y}.", "Quiz books sometimes print {Y}, which is an error.",
           "It is not {Y}, whatever you may have heard.", "{Y} would be incorrect here.")
REJECT_FIRST = ("While {Y} is a popular answer, it's actually {X}.", "Not {Y}, as some think; it's {X}.",
                "Despite claims of {Y}, the answer is {X}.", "People sometimes guess {Y}. The actual answer is {X}.",
                "{Y}? No, it's {X}.", "You might expect {Y}, but the answer is {X}.",
                "- Right answer: {X}\n- Wrong answer: {Y}", "It isn't {Y}.\n\nIt's {X}.")
HEDGES = ("It could be {X}, but {Y} is also possible.", "I'm not sure whether it's {X} or {Y}.",
          "Two answers seem plausible: {X} and {Y}.", "Perhaps {X}; {Y} is another option.",
          "It may be {X}, though it may be {Y}.", "Hard to say: {X} or {Y}.", "**Possible answers:** {X}, {Y}",
          "- {X}\n- {Y}\n\nI can't tell which one is right.", "Accounts disagree: some say {X}, others {Y}.",
          "It's {X} or {Y}; I'm not certain which.", "I lean towards {X}, but it might well be {Y}.")
GUESSES = ("I can't say for sure; perhaps {Y}.", "I don't have that information. My guess: {Y}.",
           "No reliable data on this, but possibly {Y}.", "I'm unable to confirm it. {Y}, maybe?",
           "I'm not sure about this one. Could it be {Y}?", "I do not know the answer, though {Y} comes to mind.")
CLOSERS = ("", "", "", " This is well documented.", " Hope this helps!", " Let me know if you need more detail.")
JOINS = (" ", " ", "\n\n", "\n")


def committed(rng: random.Random, x: str) -> str:
    return rng.choice(LEADS).format(X=x) + rng.choice(CLOSERS)


def rejecting(rng: random.Random, x: str, y: str) -> str:
    """An answer that commits to x and rejects y; the same draw gives the same words for any (x, y)."""
    if rng.random() < 0.4:
        text = rng.choice(REJECT_FIRST).format(X=x, Y=y)
    else:
        text = rng.choice(LEADS).format(X=x) + rng.choice(JOINS) + rng.choice(REJECTS).format(Y=y)
    return text + rng.choice(CLOSERS)


def styled(rows: Sequence[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The style families' rows for every question of `rows` (one split of the suite)."""
    out: list[dict[str, Any]] = []
    for r, a, b in gold_and_wrong(rows):
        base = {k: r[k] for k in ("qid", "source", "question", "references", "negatives", "origin", "wrong_from")}

        def pair(family: str, right: str, wrong: str) -> None:
            pid = f"{family}:{r['qid']}"
            for member, text, label in (("right", right, 1), ("wrong", wrong, 0)):
                out.append({**base, "kind": f"probe-{family}", "family": family, "member": member, "pair": pid,
                            "candidate": text, "label": label})

        key = f"{seed}:{r['qid']}:style-assert"  # the same draws for both members: a minimal pair
        pair("style-assert", rejecting(random.Random(key), a, b), rejecting(random.Random(key), b, a))
        rng = random.Random(f"{seed}:{r['qid']}:style-hedge")
        first, second = (a, b) if rng.random() < 0.5 else (b, a)
        pair("style-hedge", committed(rng, a), rng.choice(HEDGES).format(X=first, Y=second) + rng.choice(CLOSERS))
        rng = random.Random(f"{seed}:{r['qid']}:style-guess")
        pair("style-guess", committed(rng, a), rng.choice(GUESSES).format(Y=b) + rng.choice(CLOSERS))
    return out


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--probes", default="runs/probes", help="folder written by `qascore-lab train probes`")
    p.add_argument("--out", default="runs/probe-styles", help="folder for train/dev/test.jsonl")
    p.add_argument("--seed", type=int, default=13)


def run(args: argparse.Namespace) -> int:
    for split in SPLITS:
        rows = styled(read(args.probes, split), args.seed)
        write_split(Path(args.out), split, rows, "style")
        print(f"{split}: {len(rows)} rows ({len(rows) // 6} questions)")
    return 0
