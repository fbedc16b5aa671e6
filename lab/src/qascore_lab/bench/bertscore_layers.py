"""`qascore-lab bench bertscore-layers`: which encoder layer makes BERTScore agree best with humans.

Scores the KPQA human-eval sets (KPQA protocol: each reference scored alone,
maximum taken) at every requested layer from one encoder pass per chunk, with
and without IDF, and prints Pearson / Spearman against the human scores per
set. The layer is chosen on --select only (default MS-MARCO) by its Pearson
with IDF off; the other sets show how that choice carries over.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from qascore_lab.datasets import kpqa
from qascore.meta.correlation import pearson, spearman
from qascore.metrics.registry import load


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--datasets", default=",".join(kpqa.TABLE3), help="comma-separated KPQA sets")
    p.add_argument("--metric", choices=("bertscore", "kpqa-bertscore"), default="bertscore",
                   help="kpqa-bertscore: KPW weights from the shipped tagger instead of uniform / IDF")
    p.add_argument("--model", default=None, help="encoder (package spec, local directory or hub id; default: the "
                                                 "packaged MiniLM)")
    p.add_argument("--layers", default="1,2,3,4,5,6", help="comma-separated layers")
    p.add_argument("--select", default="marco", help="the one set the default layer is chosen on")
    p.add_argument("--no-idf", action="store_true", help="skip the IDF rows")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--json", default=None, help="also write the table as JSON here")
    p.add_argument("--data", default=None, help="data root holding kpqa_human_eval/")


def run(args: argparse.Namespace) -> int:
    torch.set_num_threads(args.threads)
    names = [x for x in args.datasets.split(",") if x]
    layers = [int(x) for x in args.layers.split(",") if x]
    model = {"model": args.model} if args.model else {}
    table: dict[str, dict[str, dict[str, float]]] = {}  # "layer/idf" -> dataset -> {pearson, spearman}
    t0 = time.perf_counter()
    for name in names:
        records = kpqa.load(name, root=args.data)
        human = [r.extra["human"] for r in records]
        for idf in (False,) if args.no_idf or args.metric != "bertscore" else (False, True):
            metric = load(args.metric, batch_size=args.batch_size, **model, **({"idf": idf} if idf else {}))
            for layer, res in metric.score_layers(records, layers).items():
                key = f"{layer}/{'idf' if idf else 'no-idf'}"
                table.setdefault(key, {})[name] = {"pearson": pearson(res.scores, human)[0],
                                                   "spearman": spearman(res.scores, human)[0], "n": len(records)}
        print(f"  {name}: done ({time.perf_counter() - t0:.0f} s)", flush=True)
    model_id = load("bertscore", **model).encoder.model_id
    print(f"\n{args.metric} F vs human correctness, {model_id}, KPQA protocol (max over references)")
    head = "".join(f"{kpqa_label(n):>20}" for n in names)
    print(f"{'layer':<14}{head}")
    print(f"{'':<14}" + "".join(f"{'Pearson  Spearman':>20}" for _ in names))
    for key in sorted(table, key=lambda k: (k.split("/")[1], int(k.split("/")[0]))):
        cells = "".join(f"{table[key][n]['pearson']:>11.3f}{table[key][n]['spearman']:>9.3f}" for n in names)
        print(f"{key:<14}{cells}")
    if args.select in names:
        best = max((k for k in table if k.endswith("/no-idf")), key=lambda k: table[k][args.select]["pearson"])
        print(f"\nbest layer on {args.select} (Pearson, no idf): {best.split('/')[0]}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"model": model_id, "table": table}, fh, indent=2, sort_keys=True)
    return 0


def kpqa_label(name: str) -> str:
    return {"marco": "MS-MARCO", "avsd": "AVSD", "narrativeqa": "NarrativeQA", "semeval": "SemEval"}.get(name, name)
