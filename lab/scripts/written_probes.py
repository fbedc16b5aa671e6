"""lab/scripts/written_probes.py IN [IN ...] OUT [--drop-near BLIND] [--copies K]: helper-written training answers as
a probe folder (train: 80% of questions, dev: 20%, by a salted hash of the question; test empty), for `train judge
--unseen-probes OUT=N`. `--drop-near` leaves out every question that matches one of BLIND's (difflib ratio >= 0.75
on lower-cased words), so a fit on OUT never sees a blind question. `--copies K` writes the train split K times
(ids suffixed -x0 .. -xK-1), the form a verifier's --with-probes mix reads them in (lab/results/judge.md)."""
import argparse
import json
from pathlib import Path

from qascore_lab.datasets.written import read_rows, split_of, without_blind

p = argparse.ArgumentParser()
p.add_argument("paths", nargs="+", help="written JSONL files, then the output folder")
p.add_argument("--drop-near", default=None, help="a JSONL set whose questions must stay out (the blind set)")
p.add_argument("--copies", type=int, default=1, help="write the train split this many times (a verifier's weight)")
p.add_argument("--qid-prefix", default="written-q", help="question ids are PREFIX0, PREFIX1, ...: another prefix keeps "
                                                         "two folders' ids apart when both join one mix")
args = p.parse_args()
*inputs, out_dir = args.paths
rows = read_rows(inputs)
if args.drop_near:
    rows, dropped = without_blind(rows, args.drop_near)
    print(f"left out {dropped} questions near one of {args.drop_near}")
out = Path(out_dir)
out.mkdir(parents=True, exist_ok=True)
qid: dict[str, str] = {}
splits: dict[str, list[dict]] = {"train": [], "dev": [], "test": []}
for r in rows:
    q = qid.setdefault(r["question"], f"{args.qid_prefix}{len(qid)}")
    splits[split_of(r["question"])].append({"id": f"written-{r['id']}", "qid": q, "question": r["question"], "candidate": r["candidate"],
                          "references": r["references"], "label": int(r["label"]), "source": "probes",
                          "kind": f"written-{r['kind']}", "family": f"written-{r['kind']}", "pair": q,
                          "member": "right" if r["label"] else "wrong"})
if args.copies > 1:
    splits["train"] = [dict(r, id=f"{r['id']}-x{k}") for k in range(args.copies) for r in splits["train"]]
for s, rs in splits.items():
    with open(out / f"{s}.jsonl", "w", encoding="utf-8") as fh:
        for r in rs:
            fh.write(json.dumps(r) + "\n")
print({s: len(v) for s, v in splits.items()})
