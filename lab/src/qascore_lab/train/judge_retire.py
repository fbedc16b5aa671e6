"""`qascore-lab train judge-retire`: rule features taken off a judge card, read from then on as never firing.

A hand-written rule that costs more decisions than it saves on people's answers retires without a refit: every
split of the card's trees on it takes the branch a 0 (the rule did not fire) takes, its log-odds offset goes, and
the feature leaves the card, so the judge no longer computes it. The card then decides every record exactly as
the old card did with the rule silent, which is what was measured before the retirement (`lab/results/judge.md`).
A routed card's sentence card is rewritten too, and the route names its new hash. Deterministic; reads no data.
The card keeps a `retired` entry with the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from qascore.metrics import judge
from qascore.runtime.delta import file_sha256


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--feature", action="append", required=True, help="a rule feature of the card to retire; repeatable")
    p.add_argument("--card", default=str(judge.DEFAULT_MODEL),
                   help="the card to rewrite, in place, with its trees file (and its sentence card, where it routes)")


def pinned(tree: dict[str, np.ndarray], gone: set[int], renumber: dict[int, int]) -> dict[str, np.ndarray]:
    """`tree` with each split on a feature in `gone` replaced by the branch a 0 takes, the other features
    renumbered by `renumber` (leaves keep their marks)."""
    out: dict[str, list[Any]] = {k: [] for k in judge.TREE_ARRAYS}

    def visit(node: int) -> int:
        while tree["left"][node] != -1 and int(tree["feature"][node]) in gone:
            node = int(tree["left"][node] if 0.0 <= tree["threshold"][node] else tree["right"][node])
        k = len(out["feature"])
        leaf = tree["left"][node] == -1
        out["feature"].append(int(tree["feature"][node]) if leaf else renumber[int(tree["feature"][node])])
        out["threshold"].append(float(tree["threshold"][node]))
        out["value"].append(float(tree["value"][node]))
        out["left"].append(-1)
        out["right"].append(-1)
        if not leaf:
            out["left"][k] = visit(int(tree["left"][node]))
            out["right"][k] = visit(int(tree["right"][node]))
        return k

    visit(0)
    return {k: np.asarray(v, dtype=dt) for (k, v), dt in zip(out.items(), judge.TREE_ARRAYS.values())}


def retire(card: dict[str, Any], trees: list[dict[str, np.ndarray]], features: list[str]) -> dict[str, Any]:
    """The card (as stored) without `features`, its trees pinned (`pinned`), in list form for `judge.write_card`."""
    gone = {card["features"].index(f) for f in features if f in card["features"]}
    kept = [k for k in range(len(card["features"])) if k not in gone]
    renumber = {old: new for new, old in enumerate(kept)}
    out = dict(card)
    out["features"] = [card["features"][k] for k in kept]
    out["offsets"] = {k: v for k, v in card.get("offsets", {}).items() if k not in features}
    out["model"] = {**card["model"], "trees": [pinned(t, gone, renumber) for t in trees],
                    "monotone": {k: v for k, v in card["model"].get("monotone", {}).items() if k not in features}}
    for key in ("importance", "offset_fits"):
        if isinstance(card.get(key), dict):
            out[key] = {k: v for k, v in card[key].items() if k not in features}
    return out


def rewrite(path: Path, features: list[str], command: str) -> None:
    """Retire `features` from the card at `path` (its sentence card first, where it routes to one)."""
    card: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    unknown = [f for f in features if f not in card["features"]]
    if unknown:
        raise SystemExit(f"train judge-retire: {path} has no feature {', '.join(unknown)}")
    route = card.get(judge.SENTENCES)
    if route is not None:
        nested = path.parent / route["card"]
        rewrite(nested, features, command)
        card[judge.SENTENCES] = {**route, "sha256": file_sha256(nested)}
    trees = judge.read_trees(path.parent / card["model"]["trees"], card["model"].get("trees_sha256"))
    out = retire(card, trees, features)
    out["retired"] = {**card.get("retired", {}), **{f: command for f in features}}
    judge.write_card(out, path)
    print(f"{path}: retired {', '.join(features)}; {len(out['features'])} features left")


def run(args: argparse.Namespace) -> int:
    command = "qascore-lab train judge-retire " + " ".join(sys.argv[sys.argv.index("judge-retire") + 1:]) \
        if "judge-retire" in sys.argv else "judge_retire.rewrite"
    rewrite(Path(args.card), list(dict.fromkeys(args.feature)), command)
    return 0
