"""`qascore-lab train int8-ranges`: the calibrated activation ranges the judge's CPU models read int8 over.

The judge reads its asserted-answer reader and its KPQA tagger in int8 on the CPU. Quantising each batch's
activations with one scale (torch's dynamic int8) makes a record's reading move with the records read beside it,
so those models read one window per batch, at about half the speed of a batch. Here each linear layer's input range
is recorded once, in fp32, on calibration answers read one at a time (`runtime.int8.record_ranges`), widened by
`--margin`, and written beside the model (`runtime.int8.ranges_file`); `runtime.int8.fixed_range_linears` then
quantises every batch over those ranges, so windows are batched and a record reads the same in any batch.
Calibration reads the hand-written training answers (lab/data/README.md), as the judge forms its inputs: the
reader the question as a question over the undressed answer, the tagger the question over the answer's
WordPieces. Deterministic (no seed): the same files give the same ranges. Choice of files and margin:
lab/results/judge.md round 2026-12-01c.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from qascore.metrics import asserted
from qascore.runtime.delta import file_sha256
from qascore.runtime.int8 import ranges_file, record_ranges
from qascore.runtime.reader import Reader
from qascore.text import answer_match as am
from qascore.weights.kpw import Tagger, resolve_delta

# the judge's first asserted reader and its tagger; the second reader reads few answers (those that doubt themselves)
# and keeps one window per batch, as the card was fitted on (round 2026-12-01c)
MODELS = {"asserted": lambda: asserted.DELTA, "kpqa": lambda: resolve_delta()}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, choices=sorted(MODELS), help="the shipped model to calibrate")
    p.add_argument("--rows", action="append", required=True, metavar="JSONL",
                   help="calibration answers (question, candidate); repeatable")
    p.add_argument("--limit", type=int, default=400, help="the first N rows of each file")
    p.add_argument("--margin", type=float, default=1.1, help="each recorded range widened by this factor")
    p.add_argument("--delta", default=None, help="calibrate this delta of the model instead of the shipped one "
                                                 "(a candidate measured before it ships); the ranges go beside it")


def run(args: argparse.Namespace) -> int:
    rows = [r for path in args.rows for r in [json.loads(line) for line in open(path, encoding="utf-8")
                                               if line.strip()][:args.limit]]
    questions = [r["question"] for r in rows]
    texts = [am.undressed(r["candidate"]) for r in rows]
    path = Path(args.delta) if args.delta else Path(MODELS[args.model]())
    if args.model == "kpqa":
        tagger = Tagger(path)
        pairs = [(q, tuple(tagger.tokenizer(t, add_special_tokens=False)["input_ids"])) for q, t in zip(questions, texts)]
        ranges = record_ranges(tagger.model, lambda: tagger.probabilities(pairs, batch_size=1), args.margin)
    else:
        reader = Reader.load(path)
        asked = [am.as_question(q) for q in questions]
        ranges = record_ranges(reader.model.bert, lambda: reader.read(asked, texts, batch_size=1), args.margin)
    out = ranges_file(path)
    out.write_text(json.dumps({
        "model": path.name, "model_sha256": file_sha256(path), "margin": args.margin, "texts": len(rows),
        "command": "qascore-lab train int8-ranges " + " ".join(sys.argv[sys.argv.index("int8-ranges") + 1:])
        if "int8-ranges" in sys.argv else None,
        "ranges": {name: [round(lo, 6), round(hi, 6)] for name, (lo, hi) in sorted(ranges.items())}}, indent=1) + "\n",
        encoding="utf-8")
    print(f"{args.model}: {len(ranges)} linear layers calibrated on {len(rows)} answers; wrote {out}")
    return 0
