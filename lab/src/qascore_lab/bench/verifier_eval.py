"""`qascore-lab bench verifier-eval`: answer-correctness judges on the same rows, side by side.

Sets (reporting only; nothing is chosen on them):
- `corpus-dev-<source>`: the verification corpus dev split (`qascore-lab train verifier-data`) per source;
  AUROC, and accuracy at each judge's threshold tuned on that whole dev split.
- `wikiqa-test`: WikiQA test AVA triples (q, r, t), with the question's other wrong candidates as SQuArE's negatives.
- `trec-clean-dev`: TREC-QA clean-dev AVA triples (at most 1,500, seeded), the same way.
- `kpqa-<set>`: the KPQA human correctness judgments; Pearson r with the human score.
A judge is a verifier (`ava`, `square`, `judge`) or any qascore metric name (`f1`, `rougeL`,
`kpqa-rougeL`, `bertscore`), plus `contains` (the reference inside the candidate).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qascore.records import Record

KPQA_SETS = ("marco", "avsd", "narrativeqa", "semeval")
TREC_CAP = 1500
SQUARE_NEGATIVES = 4   # with the one positive reference, the five references of the SQuArE paper's runs


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("judges", nargs="+", help="ava, square, judge, contains, or metric specs (f1, rougeL, "
                   "ava:model=FILE, ...)")
    p.add_argument("--corpus", default="runs/verifier-data", help="verification corpus folder (for its dev split)")
    p.add_argument("--data", default=None, help="data root (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", default=None, help="also write the table as JSON here")
    p.add_argument("--dev-only", action="store_true", help="the corpus dev split alone (the sets a model is chosen on)")
    p.add_argument("--paired", action="store_true",
                   help="compare each later judge with the first on the dev split: AUROC difference with a "
                        "bootstrap CI over questions (is a candidate's dev gain larger than the split's noise?)")


def question_negatives(question: Any, target: str, n: int = SQUARE_NEGATIVES) -> list[str]:
    """The question's wrong candidates other than the target, as SQuArE's negative references.

    Blind: every target of a question gets min(n, N - 1) of them (N = its wrong candidates), so how
    many negatives a record holds does not tell whether the target is one."""
    wrong = [question.candidates[j] for j in question.negatives]
    k = min(n, len(wrong) - 1)
    return [c for c in wrong if c.strip() != target.strip()][:max(k, 0)]


def triples_with_negatives(name: str, questions: Sequence[Any], seed: int) -> list[dict[str, Any]]:
    """Every AVA triple of AS2 `questions` as a corpus row, with `question_negatives` as SQuArE's negatives."""
    from qascore_lab.train.verifier_corpus import as2_rows

    by_qid = {f"{name}:{q.qid}": q for q in questions}
    return [dict(r, negatives=question_negatives(by_qid[r["qid"]], r["candidate"]))
            for r in as2_rows(name, questions, None, seed)]


def triple_sets(data: Path, seed: int = 13) -> dict[str, tuple[list[Record], list[int]]]:
    """WikiQA test and TREC-QA clean-dev AVA triples as records: (q, r, t) with, for SQuArE, the question's
    other wrong candidates as negatives (`question_negatives`; `ava` and the judge do not read them)."""
    from qascore_lab.datasets.as2 import read_trecqa, read_wikiqa
    from qascore_lab.train.verifier_rows import to_records

    out = {}
    for name, qs in (("wikiqa-test", read_wikiqa(data / "wikiqa", "test")),
                     ("trec-clean-dev", read_trecqa(data / "trecqa" / "clean-dev"))):
        rows = triples_with_negatives(name, qs, seed)
        if len(rows) > TREC_CAP:
            keep = sorted(np.random.default_rng(seed).choice(len(rows), TREC_CAP, replace=False).tolist())
            rows = [rows[k] for k in keep]
        for i, r in enumerate(rows):
            r["id"] = f"{name}-{i}"
        out[name] = to_records(rows)
    return out


def evaluate_sets(predict: Callable[[list[Record]], np.ndarray], data: str | Path | None, *,
                  kpqa_sets: bool = True) -> dict:
    """A judge's figures on the triple sets (AUROC) and, unless told not to, the KPQA human sets (Pearson).

    `predict` scores records as a metric does (`ava` judges each reference alone and averages)."""
    from scipy.stats import pearsonr

    from qascore_lab.datasets import data_root, kpqa
    from qascore.meta.classification import auroc

    root = data_root(data)
    out: dict[str, Any] = {}
    for name, (recs, labels) in triple_sets(root).items():
        out[name] = {"n": len(recs), "auroc": auroc(predict(recs), labels)}
    for name in KPQA_SETS if kpqa_sets else ():
        recs = kpqa.load(name, root=root)
        scores = predict(recs)
        out[f"kpqa-{name}"] = {"n": len(recs), "pearson": float(pearsonr(scores, [r.extra["human"] for r in recs])[0])}
    return out


def scorer(judge: str, **options: Any) -> Callable[[list[Record]], np.ndarray]:
    """records -> scores for a judge: `contains`, or a metric spec as `-m` takes it (`ava:model=FILE`)."""
    if judge == "contains":
        from qascore.text.answer_match import contains

        return lambda recs: np.array([contains(r.candidate, r.references) for r in recs])
    from qascore.metrics.registry import load_named, parse_metric_spec

    name, spec_options = parse_metric_spec(judge)
    metric = load_named(name, {**spec_options, **options}, judge)
    return lambda recs: np.asarray(metric.score(recs).scores, dtype=float)


def run(args: argparse.Namespace) -> int:
    import torch

    from qascore.meta.classification import tune_threshold
    from qascore_lab.train import verifier_corpus
    from qascore_lab.train.verifier_rows import by_source, to_records

    torch.set_num_threads(args.threads)
    dev_rows = verifier_corpus.read_split(args.corpus, "dev")
    dev_recs, dev_labels = to_records(dev_rows)
    table: dict[str, Any] = {}
    first: np.ndarray | None = None
    for judge in args.judges:
        t0 = time.time()
        predict = scorer(judge)
        dev_scores = predict(dev_recs)
        thr = tune_threshold(dev_scores, dev_labels, "accuracy")
        res = {"threshold": thr, "dev": by_source(dev_scores, dev_labels, dev_rows, thr)}
        if first is None:
            first = dev_scores
        elif args.paired:
            from qascore.meta.classification import paired_auroc

            res["paired_dev"] = asdict(paired_auroc(dev_scores, first, dev_labels, [r["qid"] for r in dev_rows]))
        if not args.dev_only:
            res.update(evaluate_sets(predict, args.data))
        res["seconds"] = round(time.time() - t0, 1)
        table[judge] = res
        print(f"{judge}: " + json.dumps(res), flush=True)
    print(format_table(table))
    for judge, res in table.items():
        if "paired_dev" in res:
            d = res["paired_dev"]
            print(f"dev AUROC {judge} - {args.judges[0]}: {d['difference']:+.4f} "
                  f"(95% CI {d['ci_low']:+.4f} .. {d['ci_high']:+.4f}, p {d['p']:.3f}; "
                  f"{d['n_groups']} questions resampled)")
    if args.json:
        Path(args.json).write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    return 0


def format_table(table: dict[str, Any]) -> str:
    cols = ["dev:all", "dev:ae", "dev:squad", "dev:wikiqa", "wikiqa-test", "trec-clean-dev",
            *(f"kpqa-{s}" for s in KPQA_SETS)]
    lines = ["| judge | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for judge, res in table.items():
        cells = []
        for c in cols:
            if c not in res and not c.startswith("dev:"):
                cells.append("-")
            elif c.startswith("dev:"):
                d = res["dev"].get(c[4:])
                cells.append(f"{d['auroc']:.3f} / {d['accuracy']:.3f}" if d else "-")
            elif c.startswith("kpqa-"):
                cells.append(f"{res[c]['pearson']:.3f}")
            else:
                cells.append(f"{res[c]['auroc']:.3f}")
        lines.append(f"| {judge} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
