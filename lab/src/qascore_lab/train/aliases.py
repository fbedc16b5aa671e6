"""`qascore-lab train aliases`: the judge's table of other names for a thing, from WordNet 3.0.

A gold answer is often right in a form no reference holds: "Nippon" for Japan, "PRC" for China, "a dozen" for 12,
"WHO" for the World Health Organization. The judge's verifier does not know most such forms (lab/results/judge.md,
round 2026-11-29k), WordNet's synonym sets do. This command reads WordNet's noun synsets (Debian's
`wordnet-base`, found as `qascore_lab.text.wordnet` finds it) and keeps those of two or more lemmas where a lemma
has a capital letter or a digit: names, acronyms and numbers. Synsets of common words only ({increase, growth})
are left out: their synonyms hold in some senses, not in others. Every noun synset is also listed (folded, as
`nouns`), for the judge's `names_other`. The output is deterministic (no seed needed):
the same WordNet files give the same table, byte for byte. Each name is stored folded too (`answer_match.fold`,
the form the judge looks names up in), so that the judge reads the table without folding 47,000 names.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from qascore.metrics.aliases import DEFAULT_TABLE
from qascore.text.answer_match import fold
from qascore_lab.text.wordnet import wordnet_dir

NOTICE = ("WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. THIS SOFTWARE AND DATABASE IS "
          "PROVIDED \"AS IS\" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. "
          "(WordNet 3.0 license: https://wordnet.princeton.edu/license-and-commercial-use)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default=str(DEFAULT_TABLE), help="the table to write (default: the package's)")


def names_things(lemmas: list[str]) -> bool:
    """A synset the table keeps: one of its lemmas has a capital letter or a digit."""
    return any(ch.isupper() or ch.isdigit() for lemma in lemmas for ch in lemma)


def synsets(data_noun: Path) -> list[list[str]]:
    """Every noun synset's lemmas as written (underscores as spaces, sense markers such as "(a)" removed)."""
    out = []
    with open(data_noun, encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue  # the license header
            parts = line.split(" | ")[0].split()
            n = int(parts[3], 16)
            out.append([parts[4 + 2 * i].split("(")[0].replace("_", " ") for i in range(n)])
    return out


def run(args: argparse.Namespace) -> int:
    root = wordnet_dir()
    if root is None or not (root / "data.noun").is_file():
        raise SystemExit("train aliases: WordNet's data.noun not found (install Debian's wordnet-base or set "
                         "QASCORE_WORDNET to the folder holding it)")
    every = synsets(root / "data.noun")
    groups = [g for g in every if len(g) > 1 and names_things(g)]
    table = {"source": "WordNet 3.0 noun synsets with a capitalised or numeric lemma (qascore-lab train aliases)",
             "notice": NOTICE, "groups": groups, "folded": [[fold(name) for name in g] for g in groups],
             "nouns": [sorted({fold(name) for name in g} - {""}) for g in every]}
    out = Path(args.out)
    with open(out, "wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as f:  # no name, no time: same bytes
        f.write(json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    print(f"wrote {out}: {len(groups)} synsets, {sum(map(len, groups))} names, {out.stat().st_size} bytes")
    return 0
