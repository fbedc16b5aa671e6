"""Record the installed asserted-answer readers and the card's own verifier in a judge card without refitting it.

Usage, from the repo root: python lab/scripts/judge_card_readers.py [CARD] [--tagger-int8]   (default: the shipped card)
The card's trees read the `asserted` column as the reader it was fitted with wrote it; a second reader that reads
only answers that doubt themselves (`asserted.REVISIONS`, rounds 2026-11-30h-i of lab/results/judge.md) changes that
column on those answers alone, so the card is kept and only its `asserted_model` is brought up to date, after the
dev figures of the change were read (the judge refuses a card whose readers are not the installed ones). The same
holds for a verifier continued on a few more written answers (round 2026-11-30j): its `ava_model` is brought up to
date from the file the card names beside it. `--tagger-int8` records that the card reads its KPQA tagger in int8
over the tagger's calibrated ranges on the CPU, as it reads its asserted readers (round 2026-12-01c).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from qascore.metrics import judge


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--tagger-int8"]
    path = Path(args[0]) if args else judge.DEFAULT_MODEL
    card = json.loads(path.read_text(encoding="utf-8"))
    was, card["asserted_model"] = card.get("asserted_model"), judge.installed_asserted()
    print(f"{path}: asserted_model {was} -> {card['asserted_model']}")
    if "--tagger-int8" in sys.argv or judge.reads_tagger_in_int8(card):
        was, card["kpqa_model"] = card.get("kpqa_model"), judge.installed_tagger(int8=True)
        print(f"{path}: kpqa_model {was} -> {card['kpqa_model']}")
    if "verifier" in card:
        was, card["ava_model"] = card.get("ava_model"), judge.installed_verifier(path.parent / card["verifier"])
        print(f"{path}: ava_model {was} -> {card['ava_model']}")
    path.write_text(json.dumps(card, separators=(",", ":")) + "\n", encoding="utf-8")  # as `write_card` does
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
