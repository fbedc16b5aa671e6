"""lab/scripts/written_probes.py IN OUT: the helper-written training answers as a probe folder (train: 80% of
questions, dev: 20%, by a salted hash of the question; test empty), for `train judge --unseen-probes OUT=N`."""
import hashlib
import json
import sys
from pathlib import Path

rows = [json.loads(line) for line in open(sys.argv[1])]
out = Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
qid = {}
splits = {"train": [], "dev": [], "test": []}
for r in rows:
    q = qid.setdefault(r["question"], f"written-q{len(qid)}")
    h = int(hashlib.sha1(f"written:{r['question']}".encode()).hexdigest()[:8], 16) / 2**32
    split = "train" if h < 0.8 else "dev"
    splits[split].append({"id": f"written-{r['id']}", "qid": q, "question": r["question"], "candidate": r["candidate"],
                          "references": r["references"], "label": int(r["label"]), "source": "probes",
                          "kind": f"written-{r['kind']}", "family": f"written-{r['kind']}", "pair": q,
                          "member": "right" if r["label"] else "wrong"})
for s, rs in splits.items():
    with open(out / f"{s}.jsonl", "w") as fh:
        for r in rs:
            fh.write(json.dumps(r) + "\n")
print({s: len(v) for s, v in splits.items()})
