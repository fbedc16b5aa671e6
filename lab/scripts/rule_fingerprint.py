"""Which labelled rows a change to the judge's text rules moves, before any model reads them.

Usage, from the repo root (PYTHONPATH picks the code: a worktree's `src` for the code before a change):
  python lab/scripts/rule_fingerprint.py OUT.tsv FILE.jsonl [FILE.jsonl ...]
  python lab/scripts/rule_fingerprint.py --diff BEFORE.tsv AFTER.tsv
Writes one line per row, `file:line<TAB>hash`, the hash of every text rule's output for it (`undressed`, what
`settled` reads without the learned readings, `committed`, `picked`, `self_correction`, `listed`, `as_question`,
`best_references`, `numbers`, `fold`, `as_date`, `stated_list`, every lexical feature with `disowned`, and the
aliases `in_candidate_form` adds); `--diff` prints the rows whose hash differs. Only those rows need the judge read
again, before and after, to count decisions fixed and broken. Round 2026-12-02k of lab/results/judge.md read it.
"""

from __future__ import annotations

import hashlib
import json
import sys

from qascore.metrics import aliases, judge
from qascore.text import answer_match as am
from qascore.text import list_count


def fingerprint(row: dict) -> str:
    """The hash of every text rule's output for one labelled row."""
    question, candidate, refs = row.get("question", ""), row["candidate"], row.get("references") or []
    whole = am.undressed(candidate)
    said = am.settled(whole, refs)
    parts = [whole, said, am.committed(whole), am.picked(whole), am.self_correction(whole), am.listed(whole),
             am.listed(whole, hedged=True), am.as_question(question), am.best_references(said, refs, judge.MODEL_REFS),
             sorted(am.numbers(candidate)), am.fold(candidate), [am.as_date(r) for r in refs],
             list_count.stated_list(candidate),
             judge.lexical_features(question, said, refs, names=[*judge.FEATURES, "disowned"], whole=whole),
             [list(a) for a in aliases.in_candidate_form(question, said, refs)]]
    return hashlib.md5(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def main(argv: list[str]) -> None:
    if argv[:1] == ["--diff"]:
        before, after = (dict(line.rstrip("\n").split("\t") for line in open(path)) for path in argv[1:3])
        for key in after:
            if before.get(key) != after[key]:
                print(key)
        return
    with open(argv[0], "w") as out:
        for path in argv[1:]:
            for i, line in enumerate(open(path)):
                if line.strip():
                    out.write(f"{path}:{i}\t{fingerprint(json.loads(line))}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
