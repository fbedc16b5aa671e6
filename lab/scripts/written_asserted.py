"""lab/scripts/written_asserted.py IN [IN ...] OUT --drop-near BLIND: helper-written chatbot answers as rows of
`train asserted-data`'s format (OUT/train.jsonl, OUT/dev.jsonl), to be added to its train rows in the folder
`train asserted --data` reads (lab/NOTES.md).

The split is written_probes.py's (`qascore_lab.datasets.written`: 80% of questions train, the rest dev; questions
near the blind set left out), so the judge's written dev answers are never trained on. What each answer asserts:
- a right answer: the first whole-word occurrence of a reference (the longest where several start there), as
  the text the reader reads (`asserted.judge_readings`: undressed); skipped where no reference occurs;
- a refusal: nothing (null);
- any other wrong answer: the span the asserted reader (`--reader`, default the installed one; for the shipped
  v3's rows v1 read files 5 and 7, v2 files 1-4) ranks highest among those that state no reference
  (`asserted.match` < 0.5); skipped where every top span states one.
Where a row marks `final_at` (the clause that states what an answer that revises itself finally commits to), the
span is looked for in that clause only: a right answer's reference there, a wrong answer's reader span there.
Nothing is drawn at random, but the reader runs in int8, whose activations are scaled per batch: a wrong
answer's span can depend on which files are read together (lab/NOTES.md gives the runs behind the shipped
reader). Prints the counts kept and skipped per kind."""
import argparse
import json
from collections import Counter
from pathlib import Path

from qascore.metrics import asserted
from qascore.text import answer_match as am
from qascore_lab.datasets.written import read_rows, split_of, without_blind
from qascore_lab.train.asserted_data import whole_find

p = argparse.ArgumentParser()
p.add_argument("paths", nargs="+", help="written JSONL files, then the output folder")
p.add_argument("--drop-near", required=True, help="the blind set: its questions (and near ones) stay out")
p.add_argument("--source", default="written", help="the rows' source, their `train asserted --mix` group real-SOURCE "
                                                "(the revising batches: revisions)")
p.add_argument("--reader", default=None, help="the asserted-reader delta that reads wrong answers (default: installed)")
args = p.parse_args()
*inputs, out_dir = args.paths
rows, dropped = without_blind(read_rows(inputs), args.drop_near)
if args.reader:
    asserted.DELTA = Path(args.reader)

texts = [am.undressed(r["candidate"]) for r in rows]
wrong = [i for i, r in enumerate(rows) if not r["label"] and r["kind"] != "wrong_refusal"]
reads = dict(zip(wrong, asserted.readings([am.as_question(rows[i]["question"]) for i in wrong],
                                          [texts[i] for i in wrong], dtype="int8")))
kept: Counter = Counter()
out: dict[str, list[dict]] = {"train": [], "dev": []}
for i, (r, text) in enumerate(zip(rows, texts)):
    start: int | None = None
    span = ""
    final = r.get("final_at") or ""
    if final and text.rfind(final) < 0:
        final = am.undressed(final).strip()  # the text read is undressed; so is the clause
    at = text.rfind(final) if final else -1  # the clause an answer that revises itself settles on
    lo, hi = (at, at + len(final)) if at >= 0 else (0, len(text))
    if final and at < 0:
        kept[f"skipped {r['kind']}"] += 1
        continue
    if r["label"]:
        found = sorted((whole_find(text[lo:hi], ref), -len(ref), ref) for ref in r["references"])
        found = [f for f in found if f[0] >= 0]
        if found:
            start, _, span = found[0]
            start += lo
            span = text[start:start + len(span)]
    elif r["kind"] != "wrong_refusal":
        spans = sorted((sp for _, sps in reads[i].windows for sp in sps), key=lambda s: -s[1])
        inside = [t for t, _ in spans if t.strip() and text.find(t, lo) >= 0 and text.find(t, lo) + len(t) <= hi]
        span = next((t for t in inside if asserted.match(t, r["references"]) < 0.5), "")
        start = text.find(span, lo) if span else -1
    if r["kind"] != "wrong_refusal" and (start is None or start < 0):
        kept[f"skipped {r['kind']}"] += 1
        continue
    kept[r["kind"]] += 1
    out[split_of(r["question"])].append({
        "id": f"written-{r['id']}", "question": r["question"], "text": text, "start": start,
        "end": None if start is None else start + len(span), "references": list(r["references"]),
        "label": int(r["label"]), "family": "real", "form": f"written-{r['kind']}", "source": args.source,
        "split": split_of(r["question"])})
Path(out_dir).mkdir(parents=True, exist_ok=True)
for s, rs in out.items():
    with open(Path(out_dir) / f"{s}.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(x, ensure_ascii=False) + "\n" for x in rs)
print(f"left out {dropped} questions near the blind set;", dict(sorted(kept.items())),
      {s: len(v) for s, v in out.items()})
