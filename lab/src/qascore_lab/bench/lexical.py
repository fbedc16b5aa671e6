"""`qascore-lab bench lexical`: COCO metrics, qascore vs pycocoevalcap, same rows, same run.

Both sides start from raw strings, as a user runs them: pycocoevalcap's
PTBTokenizer (Java) on references and candidates, then Bleu(4), Rouge, Cider
and Meteor; qascore loads bleu1..bleu4, rougeL, cider, meteor by name and
scores the records. qascore's tokenisation (pure Python, cached per process
so the metrics after the first reuse it) is timed cold as its own step.
Each step runs `--repeat` times per side (caches cleared) and the fastest run
is reported, because the machine may be shared. METEOR is timed twice: the
first call (JVM start + paraphrase tables + scoring) and warm calls. The
per-example scores of both sides are compared, so the timings are of equal work.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np

from qascore_lab.datasets import kpqa
from qascore.metrics.ngrams import clear_cache as clear_ngram_cache
from qascore.metrics.registry import load
from qascore.text import clear_cache as clear_token_cache
from qascore.text import tokenize_unique

OURS = ("bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dataset", default="marco", choices=list(kpqa.DATASETS),
                   help="KPQA human-eval data set whose rows are scored (default: marco, 1,000 rows)")
    p.add_argument("--rows", type=int, default=None, help="use only the first N rows")
    p.add_argument("--repeat", type=int, default=3, help="runs per side; the fastest is reported (default 3)")
    p.add_argument("--no-meteor", action="store_true", help="skip METEOR (its JVM start takes ~20 s per side)")
    p.add_argument("--squad-agreement", action="store_true",
                   help="also measure tokenizer agreement on SQuAD v2 dev questions, answers and passages")
    p.add_argument("--data", default=None, help="data root holding kpqa_human_eval/ (default: $QASCORE_DATA "
                                                "or ../shared/data)")


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _column(values: Any, rows: list[int], n: int) -> np.ndarray:
    out = np.full(n, -np.inf)
    out[rows] = np.asarray(values, dtype=np.float64)
    return out


class _Coco:
    """pycocoevalcap as a user runs it, one reference column at a time (the KPQA protocol)."""

    def __init__(self, records: list) -> None:
        try:
            from pycocoevalcap.bleu.bleu import Bleu
            from pycocoevalcap.cider.cider import Cider
            from pycocoevalcap.rouge.rouge import Rouge
            from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
        except ImportError as err:
            raise SystemExit(f"bench lexical compares with pycocoevalcap: pip install pycocoevalcap==1.2 ({err})")
        self.Bleu, self.Cider, self.Rouge, self.PTBTokenizer = Bleu, Cider, Rouge, PTBTokenizer
        self.records = records
        self.columns = []
        for k in range(max(len(r.references) for r in records)):
            rows = [i for i, r in enumerate(records) if len(r.references) > k]
            self.columns.append((rows, {i: [{"caption": records[i].references[k]}] for i in rows},
                                 {i: [{"caption": records[i].candidate}] for i in rows}))
        self.tokenized: list[tuple[list[int], dict, dict]] = []

    def run(self) -> tuple[dict[str, np.ndarray], dict[str, float]]:
        n = len(self.records)
        scores: dict[str, list[np.ndarray]] = {}
        secs = dict.fromkeys(("tokenize", "bleu1-4", "rougeL", "cider"), 0.0)
        self.tokenized = []
        for rows, gts_raw, res_raw in self.columns:
            (gts, res), t = _timed(lambda: (self.PTBTokenizer().tokenize(gts_raw),
                                            self.PTBTokenizer().tokenize(res_raw)))
            secs["tokenize"] += t
            self.tokenized.append((rows, gts, res))
            (_, b), t = _timed(lambda: self.Bleu(4).compute_score(gts, res, verbose=0))
            secs["bleu1-4"] += t
            for k in range(4):
                scores.setdefault(f"bleu{k + 1}", []).append(_column(b[k], rows, n))
            for name, scorer in (("rougeL", self.Rouge), ("cider", self.Cider)):
                (_, s), t = _timed(lambda: scorer().compute_score(gts, res))
                secs[name] += t
                scores.setdefault(name, []).append(_column(s, rows, n))
        return {k: np.max(np.stack(v), axis=0) for k, v in scores.items()}, secs

    def meteor(self, repeat: int) -> tuple[np.ndarray, float, float]:
        from pycocoevalcap.meteor.meteor import Meteor

        def once(scorer: Any) -> list[np.ndarray]:
            return [_column(scorer.compute_score(gts, res)[1], rows, len(self.records))
                    for rows, gts, res in self.tokenized]

        t0 = time.perf_counter()
        scorer = Meteor()
        cols = once(scorer)
        first = time.perf_counter() - t0
        warm = min(_timed(lambda: once(scorer))[1] for _ in range(repeat))
        return np.max(np.stack(cols), axis=0), first, warm


def _ours(records: list) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    clear_token_cache()
    clear_ngram_cache()
    texts = [r.candidate for r in records] + [ref for r in records for ref in r.references]
    secs = {"tokenize": _timed(lambda: tokenize_unique(texts, "ptb"))[1]}
    scores = {}
    for name in OURS:
        res, secs[name] = _timed(lambda: load(name).score(records))
        scores[name] = np.array(res.scores)
    secs["bleu1-4"] = sum(secs.pop(f"bleu{n}") for n in range(1, 5))
    return scores, secs


def _ours_meteor(records: list, repeat: int) -> tuple[np.ndarray, float, float]:
    res, first = _timed(lambda: load("meteor").score(records))
    warm = min(_timed(lambda: load("meteor").score(records))[1] for _ in range(repeat))
    return np.array(res.scores), first, warm


def tokenizer_agreement(root: Any = None) -> tuple[int, int, list[tuple[str, list[str], list[str]]]]:
    """How many distinct answers/references of kpqa_human_eval the pure-Python PTB tokenizer
    splits exactly as the Java one; with the differing texts."""
    texts: set[str] = set()
    for release in kpqa.RELEASES:
        for recs in kpqa.load_all(release=release, root=root).values():
            for r in recs:
                texts.update([r.candidate, *r.references, *r.extra.get("unused_references", [])])
    return _agreement(texts)


def _agreement(texts: Any) -> tuple[int, int, list[tuple[str, list[str], list[str]]]]:
    from qascore.text import tokenize
    from qascore.text.ptb_java import tokenize_java

    ordered = sorted(set(texts))
    java = tokenize_java(ordered)
    diffs = [(t, j, tokenize(t)) for t, j in zip(ordered, java) if tokenize(t) != j]
    return len(ordered) - len(diffs), len(ordered), diffs


def _squad_texts(root: Any) -> dict[str, set[str]]:
    import json

    from qascore_lab.datasets import benchmark_dir

    data = json.loads((benchmark_dir("squad_v2_dev", root) / "dev-v2.0.json").read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {"questions": set(), "answers": set(), "passages": set()}
    for article in data["data"]:
        for para in article["paragraphs"]:
            out["passages"].add(para["context"])
            for qa in para["qas"]:
                out["questions"].add(qa["question"])
                out["answers"].update(a["text"] for a in qa["answers"])
    return out


def _best(runs: list[tuple[dict, dict]]) -> tuple[dict, dict]:
    """Scores of the first run, fastest time per step over runs."""
    secs = {k: min(r[1][k] for r in runs) for k in runs[0][1]}
    return runs[0][0], secs


def _row(name: str, a: float, b: float, n: int, note: str = "") -> str:
    return f"{name:<22}{a:>11.3f}{b:>11.3f}{n / a:>16.0f}{n / b:>15.0f}{b / a:>9.1f}x{note}"


def run(args: argparse.Namespace) -> int:
    records = kpqa.load(args.dataset, root=args.data)
    if args.rows:
        records = records[:args.rows]
    n, reps = len(records), max(1, args.repeat)
    print(f"qascore-lab bench lexical: {n} rows of kpqa/{args.dataset}, {max(len(r.references) for r in records)} "
          f"reference column(s), max over references; both sides tokenise the raw text; best of {reps} runs")
    coco_side = _Coco(records)
    ours, ours_t = _best([_ours(records) for _ in range(reps)])
    coco, coco_t = _best([coco_side.run() for _ in range(reps)])
    steps = [("tokenize (PTB)", "tokenize"), ("bleu1-4", "bleu1-4"), ("rougeL", "rougeL"), ("cider", "cider")]
    if not args.no_meteor:
        ours["meteor"], ours_t["meteor-first"], ours_t["meteor-warm"] = _ours_meteor(records, reps)
        coco["meteor"], coco_t["meteor-first"], coco_t["meteor-warm"] = coco_side.meteor(reps)
        steps.append(("meteor (first call)", "meteor-first"))
    print(f"{'step':<22}{'qascore s':>11}{'pycoco s':>11}{'qascore rows/s':>16}{'pycoco rows/s':>15}"
          f"{'speed-up':>10}")
    for label, key in steps:
        print(_row(label, ours_t[key], coco_t[key], n))
    total_o = sum(ours_t[k] for _, k in steps)
    total_c = sum(coco_t[k] for _, k in steps)
    print(_row("total", total_o, total_c, n))
    if not args.no_meteor:
        print(_row("meteor (warm JVM)", ours_t["meteor-warm"], coco_t["meteor-warm"], n,
                   "   (not in the total: later calls on the running JVM)"))
    if not args.no_meteor:
        print(f"without METEOR: qascore {sum(ours_t[k] for _, k in steps[:4]):.3f} s, pycocoevalcap "
              f"{sum(coco_t[k] for _, k in steps[:4]):.3f} s, speed-up "
              f"{sum(coco_t[k] for _, k in steps[:4]) / sum(ours_t[k] for _, k in steps[:4]):.1f}x")
    worst = max(float(np.max(np.abs(ours[k] - coco[k]))) for k in ours)
    print(f"largest per-example difference from pycocoevalcap over {', '.join(ours)}: {worst:.3g}")
    same, total, diffs = tokenizer_agreement(args.data)
    print(f"PTB tokenizer agreement with the Java tokenizer on every distinct answer/reference of "
          f"kpqa_human_eval (both releases): {same}/{total} identical token lists ({100 * same / total:.2f}%)")
    for text, java_toks, py_toks in diffs[:5]:
        print(f"  differs: {text[:70]!r}: java {java_toks} vs python {py_toks}")
    if args.squad_agreement:
        for part, texts in _squad_texts(args.data).items():
            same, total, _ = _agreement(texts)
            print(f"PTB tokenizer agreement on SQuAD v2 dev {part}: {same}/{total} identical "
                  f"({100 * same / total:.2f}%)")
    return 0
