"""Route the judge by the gold's form: records whose every reference is a sentence go to a sentence card, the others
(short gold answers) to the short card (`qascore.metrics.judge.routes`).

Usage, from the repo root, after two `qascore-lab train judge` fits (each folder holds judge.json, its trees and
dev_scores.npz: the calibrated out-of-fold dev probabilities):
  python lab/scripts/judge_route.py SHORT_DIR SENTENCE_DIR [--min-words 5,6,8,10,12] [--write OUT_DIR --pick K]
Prints, for each K, the routed dev figures (the same dev sources and rule as `train judge`: each row's probability
from its card, probe decisions at its card's threshold), how many rows of each source go to the sentence card, and
each card's own figures alone. --write writes the routed card (OUT_DIR/judge.json: the short card with a
`sentences` route to OUT_DIR/judge-sentences.json, each with its trees file and, where the card names one, its own
verifier) for K = --pick.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np


def load(folder: Path) -> tuple[dict, dict]:
    card = json.loads((folder / "judge.json").read_text(encoding="utf-8"))
    scores = dict(np.load(folder / "dev_scores.npz"))
    return card, scores


def figures(probs: np.ndarray, cuts: float | np.ndarray, s: dict) -> tuple[float, dict[str, float]]:
    from qascore_lab.train.judge import rule, source_figures

    per = source_figures(probs, s["y"], [str(x) for x in s["sources"]], cuts)
    return rule(per), per


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("short", type=Path)
    ap.add_argument("sentences", type=Path)
    ap.add_argument("--min-words", default="5,6,8,10,12")
    ap.add_argument("--write", type=Path)
    ap.add_argument("--pick", type=int)
    args = ap.parse_args()
    sys.path[:0] = ["src", "lab/src"]
    short_card, a = load(args.short)
    sent_card, b = load(args.sentences)
    if not (np.array_equal(a["y"], b["y"]) and np.array_equal(a["sources"], b["sources"])):
        raise SystemExit("judge_route: the two fits did not read the same dev rows")
    ta, tb = float(short_card["threshold"]), float(sent_card["threshold"])
    out: dict = {}
    for name, probs, cut in (("short card alone", a["probs"], ta), ("sentence card alone", b["probs"], tb)):
        r, per = figures(probs, cut, a)
        out[name] = {"rule": r, "dev": per}
        print(f"{name:20s} rule {r:.5f}")
    for k in [int(v) for v in args.min_words.split(",")]:
        long = a["shortest"] >= k
        probs = np.where(long, b["probs"], a["probs"])
        r, per = figures(probs, np.where(long, tb, ta), a)
        moved = {str(src): int(long[a["sources"] == src].sum()) for src in sorted(set(a["sources"].tolist()))}
        out[f"min_words={k}"] = {"rule": r, "dev": per, "to_sentence_card": moved}
        print(f"min_words={k:<3d}        rule {r:.5f}  " + "  ".join(f"{s} {v:.4f}" for s, v in per.items())
              + "\n    to the sentence card: " + ", ".join(f"{s} {n}" for s, n in moved.items() if n))
    if args.write:
        if args.pick is None:
            raise SystemExit("judge_route: --write needs --pick K")
        args.write.mkdir(parents=True, exist_ok=True)
        from qascore.metrics.judge import SENTENCES
        from qascore.runtime.delta import file_sha256

        for card, folder, stem in ((sent_card, args.sentences, "judge-sentences"), (short_card, args.short, "judge")):
            shutil.copy(folder / card["model"]["trees"], args.write / f"{stem}.safetensors")
            card["model"]["trees"] = f"{stem}.safetensors"
            if "verifier" in card:  # a card's own verifier travels with it (`judge.card_verifier`)
                shutil.copy(folder / card["verifier"], args.write / f"{stem}-verifier.safetensors")
                card["verifier"] = f"{stem}-verifier.safetensors"
        nested = args.write / "judge-sentences.json"
        nested.write_text(json.dumps(sent_card, separators=(",", ":")) + "\n", encoding="utf-8")
        short_card[SENTENCES] = {"card": nested.name, "sha256": file_sha256(nested), "min_words": args.pick,
                                   "dev": out[f"min_words={args.pick}"],
                                   "command": "python lab/scripts/judge_route.py " + " ".join(sys.argv[1:])}
        (args.write / "judge.json").write_text(json.dumps(short_card, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {args.write / 'judge.json'} -> {nested.name} (min_words {args.pick})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
