"""`qascore-lab bench probes`: answer judges on the behavioural probe suite (`train probes`), per family.

For each metric and family: how often the right member of a pair scores higher than the wrong one (ties
count half), how often the wrong member is accepted, how often the right member is accepted. A metric with
a stored threshold (`details.correct`: `judge`, `ava`, `square`) is read at it; one without (`f1`,
`kpqa-rougeL`, ...) at the threshold that maximises its accuracy on the probe dev split, said in the output.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Sequence

from qascore_lab.train.probes import audited, by_questions, family_table, ordered, read

DEFAULT_METRICS = ("judge", "ava", "square", "kpqa-rougeL", "f1")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--probes", default="runs/probes", help="folder written by `qascore-lab train probes`")
    p.add_argument("--split", default="test", choices=("train", "dev", "test"))
    p.add_argument("-m", "--metric", action="append", default=None,
                   help=f"metric spec, repeatable (default: {', '.join(DEFAULT_METRICS)})")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--limit", type=int, default=None, metavar="N", help="score a seeded sample of N questions")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--dev-questions", type=int, default=300, metavar="N",
                   help="questions of the dev split (seeded sample) that set the threshold of a metric without one")
    p.add_argument("--audit", default=None, metavar="JSON",
                   help="hand verdicts on alias rows (split -> probe id -> a person accepts it; "
                        "lab/results/probes_alias_audit.json, for the suite of `train probes --seed 13`): adds "
                        "the families alias-people-accept and alias-people-refuse")
    p.add_argument("--out", default=None, help="write probes.json and probes.md here")


def accept_threshold(metric: str, dev_rows: Sequence[dict[str, Any]]) -> float:
    """The accuracy-best threshold on the probe dev split, for a metric without a stored one."""
    from qascore.meta.classification import tune_threshold

    scores, _ = score(metric, dev_rows)
    return float(tune_threshold(scores, [r["label"] for r in dev_rows], "accuracy"))


def score(metric: str, rows: Sequence[dict[str, Any]]) -> tuple[list[float], list[bool] | None]:
    import qascore
    from qascore_lab.train.verifier_rows import to_records

    recs, _ = to_records(rows)
    res = qascore.load(metric).score(recs)
    correct = res.details.get("correct")
    return [float(v) for v in res.scores], (None if correct is None else [bool(c) for c in correct])


def markdown(table: dict[str, dict[str, dict[str, Any]]], split: str, n: int) -> str:
    lines = [f"Probe {split} split ({n} rows). Per family: right member scored higher (pairs) / wrong member "
             "accepted / right member accepted.", "",
             "| family | pairs | " + " | ".join(table) + " |", "|---|---|" + "---|" * len(table)]
    fams = ordered(f for t in table.values() for f in t)

    def cell(v: Any) -> str:
        return "--" if v is None else f"{v:.2f}"

    for fam in fams:
        first = next(t[fam] for t in table.values() if fam in t)
        cells = [" / ".join(cell(t[fam][k]) for k in ("right_higher", "wrong_accepted", "right_accepted"))
                 if fam in t else "" for t in table.values()]
        lines.append(f"| {fam} | {first['pairs']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    rows = read(args.probes, args.split)
    dev_rows = read(args.probes, "dev")
    if args.limit:
        rows = by_questions(rows, args.limit, args.seed)
    verdicts = json.loads(Path(args.audit).read_text(encoding="utf-8")).get(args.split, {}) if args.audit else {}
    extra = audited(rows, verdicts)
    at = {r["id"]: k for k, r in enumerate(rows)}
    again = [at[r["id"]] for r in extra]  # the audited copies take their row's score and decision
    dev_rows = by_questions(dev_rows, args.dev_questions, args.seed)
    table: dict[str, Any] = {}
    thresholds: dict[str, Any] = {}
    for metric in args.metric or DEFAULT_METRICS:
        t0 = time.time()
        scores, correct = score(metric, rows)
        if correct is None:
            cut = accept_threshold(metric, dev_rows)
            thresholds[metric] = {"threshold": cut, "from": "probe dev split, best accuracy"}
            correct = [s >= cut for s in scores]
        else:
            thresholds[metric] = {"from": "the metric's stored threshold (details.correct)"}
        table[metric] = family_table(rows + extra, scores + [scores[k] for k in again],
                                     correct + [correct[k] for k in again])
        print(f"{metric}: {len(rows)} rows in {time.time() - t0:.0f}s", flush=True)
    md = markdown(table, args.split, len(rows))
    print(md)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "probes.json").write_text(json.dumps({"split": args.split, "rows": len(rows), "thresholds": thresholds,
                                                     "families": table}, indent=1) + "\n", encoding="utf-8")
        (out / "probes.md").write_text(md, encoding="utf-8")
    return 0
