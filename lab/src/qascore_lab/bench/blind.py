"""`qascore-lab bench blind`: answer judges on a blind hand-written set, per kind (evaluation only).

The set (default `lab/blind/judge_blind_2026-11-28.jsonl`, its README says who wrote it and when) holds
chatbot-style answers labelled right or wrong by the writer, each with a `kind` (`right_*`, `wrong_*`).
Per metric, at its stored threshold (`details.correct`): the share accepted per kind (for a `wrong_*` kind,
wrong accepted; for a `right_*` kind, 1 - that is right rejected), AUROC over all rows, and the share of
(right, wrong) answer pairs to the same question where the right one scores higher (ties half). A metric that
reports what each answer asserts (`judge:asserted=true`) also gets, per kind, the share whose asserted span is a
gold answer (`asserted.match` >= 0.5) and the share that asserts none. Never tune or choose on it.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

DEFAULT = Path(__file__).resolve().parents[3] / "blind" / "judge_blind_2026-11-28.jsonl"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--file", default=str(DEFAULT), help="the blind set (JSONL: question, candidate, references, "
                                                       "label, kind)")
    p.add_argument("-m", "--metric", action="append", default=None, help="metric spec, repeatable (default: judge)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=None, help="write blind.json here (with each row's score)")


def read(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def pairs_right_higher(rows: Sequence[dict[str, Any]], scores: Sequence[float]) -> float:
    """Share of (right, wrong) pairs to the same question where the right answer scores higher (ties half)."""
    by_q: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for r, s in zip(rows, scores):
        by_q[r["question"]][0 if r["label"] else 1].append(s)
    wins, n = 0.0, 0
    for right, wrong in by_q.values():
        for a in right:
            for b in wrong:
                wins += 1.0 if a > b else 0.5 if a == b else 0.0
                n += 1
    return wins / n if n else float("nan")


def table(rows: Sequence[dict[str, Any]], scores: Sequence[float], accepted: Sequence[bool],
          asserted: Sequence[str | None] | None = None) -> dict[str, Any]:
    """The figures of one metric (see the module docstring)."""
    from qascore.meta.classification import auroc
    from qascore.metrics.asserted import match

    kinds: dict[str, list[bool]] = defaultdict(list)
    for r, a in zip(rows, accepted):
        kinds[r["kind"]].append(a)
    by_kind: dict[str, dict[str, Any]] = {k: {"rows": len(v), "accepted": round(sum(v) / len(v), 3)}
                                          for k, v in sorted(kinds.items())}
    if asserted is not None:
        gold: dict[str, list[bool | None]] = defaultdict(list)   # None: the answer asserts no span
        for r, span in zip(rows, asserted):
            gold[r["kind"]].append(None if span is None else match(span, r["references"]) >= 0.5)
        for k, v in gold.items():
            by_kind[k].update(asserts_gold=round(v.count(True) / len(v), 3), asserts_none=round(v.count(None) / len(v), 3))
    return {"auroc": round(auroc(list(scores), [r["label"] for r in rows]), 4),
            "pairs_right_higher": round(pairs_right_higher(rows, scores), 4),
            "accuracy": round(sum(a == bool(r["label"]) for r, a in zip(rows, accepted)) / len(rows), 4),
            "accepted_by_kind": by_kind}


def run(args: argparse.Namespace) -> int:
    import torch

    import qascore

    torch.set_num_threads(args.threads)
    rows = read(args.file)
    records = [{"id": r["id"], "question": r["question"], "candidate": r["candidate"], "references": r["references"]}
               for r in rows]
    out: dict[str, Any] = {"file": args.file, "rows": len(rows)}
    for spec in args.metric or ["judge"]:
        res = qascore.load(spec).score(records)
        accepted = res.details.get("correct")
        if accepted is None:
            raise SystemExit(f"bench blind: {spec} has no stored threshold (details.correct)")
        out[spec] = table(rows, res.scores, accepted, res.details.get("asserted"))
        out[spec]["scores"] = [round(float(s), 4) for s in res.scores]
        fig = out[spec]
        print(f"{spec}: AUROC {fig['auroc']:.3f}  pairs {fig['pairs_right_higher']:.3f}  accuracy {fig['accuracy']:.3f}")
        for k, v in fig["accepted_by_kind"].items():
            said = f"  asserts gold {v['asserts_gold']:.3f}, none {v['asserts_none']:.3f}" if "asserts_gold" in v else ""
            print(f"  {k:16s} {v['rows']:4d}  accepted {v['accepted']:.3f}{said}")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "blind.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0
