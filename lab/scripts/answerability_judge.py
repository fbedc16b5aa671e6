"""Issue 66, item 1: `answerability`'s rules with the `judge` as the span judge (`judge_expected`) beside the
others, on the bad-question check (dev: it chooses) and on QGEval-SQuAD (reported only), as
lab/results/reader.md records them.

The dev rows are `qascore-lab train reader`'s bad-question check (`train.reader.qg_rows` on the held-out
answerable questions of its split: 1,000 own questions and their look-alikes) and its figures
`train.reader.qg_figures` (the `logistic` rule cross-fitted by article; `choose` picks). The shipped reader
reads every row (fp32, every window), the shipped `ava` verifier and the shipped `judge` judge each window's
top 5 spans against the answer (`runtime.reader.verify`). Each stage is cached in OUT (readings, the two
judges' judgments, in chunks), so a stopped run resumes; `report` leaves out the verifier's rules where its
cache is not complete. Reported only: `judge_expected` on each window's top 1, 2 or 3 spans (fewer judge
calls), P(answerable) x the judge's P of the best span, and a logistic regression on log-odds of P(answerable)
and `judge_expected` (cross-fitted as the `logistic` rule is; the shipped `Logistic` takes no judged signal).
QGEval: Pearson with the annotators' mean over all 1,500 rows.

Usage, from the repo root (CPU, one thread):
    PYTHONPATH=src:lab/src python lab/scripts/answerability_judge.py dev|qgeval|report [OUT (default runs/h66)]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from scipy.stats import pearsonr

from qascore.metrics.answerability import span_judge, verifier_path
from qascore.runtime.ava_layouts import load_verifier
from qascore.runtime.reader import RULES, VERIFIED, Reading, load_shared, log_odds, rule_score, verify
from qascore_lab.datasets import qgeval
from qascore_lab.meta.qgeval_benchmarks import TABLE_DIMENSIONS
from qascore_lab.train import qg_corruptions as qc
from qascore_lab.train.reader import _auroc, load_data, qg_figures, qg_rows, scores_of

CHUNK = 300


def dev_rows() -> list[qc.Row]:
    args = argparse.Namespace(data_root=None, seed=13, split_salt="reader", dev_percent=5.0, max_questions=0,
                              wrong_passage_share=0.0)
    d = load_data(args)
    return qg_rows(d["dev11"] + [e for e in d["dev2"] if e.answer is not None], 1000)


def triples(which: str) -> tuple[list[str], list[str], list[str]]:
    if which == "dev":
        rows = dev_rows()
        return [r.question for r in rows], [r.context for r in rows], [r.answer for r in rows]
    recs = qgeval.load()
    return [r.candidate for r in recs], [r.context for r in recs], [r.answer for r in recs]


def readings(path: Path, qs: list[str], cs: list[str]) -> list[Reading]:
    if not path.exists():
        t0 = time.time()
        reads = load_shared(device="cpu").read(qs, cs, batch_size=16, max_windows=None)
        path.write_text(json.dumps([{"w": r.windows, "t": r.truncated} for r in reads]))
        print(f"{path.name}: {len(qs)} rows read in {time.time() - t0:.0f} s", flush=True)
    return [Reading([(p, [(t, q) for t, q in sp]) for p, sp in d["w"]], d["t"]) for d in json.loads(path.read_text())]


def judged(path: Path, predict: Callable[[list[Any]], Any], qs: list[str], reads: list[Reading],
           ans: list[str]) -> list[dict[str, float]]:
    """`verify`'s judgments, in chunks of CHUNK rows appended to a JSONL cache."""
    done = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    t0 = time.time()
    with open(path, "a", encoding="utf-8") as fh:
        for a in range(len(done), len(qs), CHUNK):
            part = verify(predict, qs[a:a + CHUNK], reads[a:a + CHUNK], ans[a:a + CHUNK])
            for j in part:
                fh.write(json.dumps(j) + "\n")
            fh.flush()
            done.extend(part)
            print(f"{path.name}: {len(done)}/{len(qs)} rows, {time.time() - t0:.0f} s", flush=True)
    return done


def stage(which: str, out: Path, ava_cached_only: bool = False) -> dict[str, list[float]]:
    """Every rule's scores of one set; the judge's judgments before the verifier's. With `ava_cached_only`,
    the verifier's rules only where its cache is complete (left out otherwise)."""
    qs, cs, ans = triples(which)
    reads = readings(out / f"readings_{which}.json", qs, cs)
    judge = judged(out / f"judge_{which}.jsonl", span_judge("cpu", None), qs, reads, ans)
    cache = out / f"ava_{which}.jsonl"
    if ava_cached_only and (not cache.exists() or len(cache.read_text().splitlines()) < len(qs)):
        matches = [rd.match(a, None, g) for rd, a, g in zip(reads, ans, judge)]
        scores = {rule: [rule_score(rd, m, rule) for rd, m in zip(reads, matches)] for rule in RULES
                  if rule not in VERIFIED}
    else:
        ver = load_verifier(verifier_path(), "cpu")
        ava = judged(cache, lambda recs: ver.predict(recs, batch_size=16), qs, reads, ans)
        scores = scores_of(reads, ans, ava, judge)
    scores["p_answer_x_judge"] = [p * g.get(r.best[0], 0.0) for p, g, r in
                                  zip(scores["p_answer"], judge, reads)]
    for k in (1, 2, 3):   # the judge on fewer spans (faster): each window's top k
        scores[f"judge_expected_top{k}"] = [max((sum(p * g[t] for t, p in sp[:k]) for _, sp in r.windows), default=0.0)
                                            for g, r in zip(judge, reads)]
    return scores


def crossed_logistic(x: np.ndarray, y: np.ndarray, use: np.ndarray, half: np.ndarray) -> tuple[np.ndarray, Any]:
    from sklearn.linear_model import LogisticRegression

    z = np.vectorize(log_odds)(x)
    out = np.zeros(len(x))
    for fold in (half, ~half):
        out[fold] = LogisticRegression(C=1.0, max_iter=1000).fit(z[~fold & use], y[~fold & use]).predict_proba(z[fold])[:, 1]
    return out, LogisticRegression(C=1.0, max_iter=1000).fit(z[use], y[use])


def report(out: Path) -> None:
    rows = dev_rows()
    dev = stage("dev", out, ava_cached_only=True)
    test = stage("qgeval", out, ava_cached_only=True)
    extra = {r: dev.pop(r) for r in ("p_answer_x_judge", "judge_expected_top1", "judge_expected_top2",
                                     "judge_expected_top3")}
    figures = qg_figures(rows, dev)
    kinds = np.array([r.kind for r in rows])
    titles = sorted({r.title for r in rows})
    half = np.array([r.title in set(titles[::2]) for r in rows])
    use = np.isin(kinds, ("own", *qc.NEGATIVE_KINDS))
    y = (kinds == "own").astype(int)
    x = np.stack([dev["p_answer"], dev["judge_expected"]], axis=1)
    crossed, fitted = crossed_logistic(x, y, use, half)
    extra["logistic_p_answer_judge"] = crossed.tolist()
    xt = np.vectorize(log_odds)(np.stack([test["p_answer"], test["judge_expected"]], axis=1))
    test["logistic_p_answer_judge"] = fitted.predict_proba(xt)[:, 1].tolist()
    for rule, vals in extra.items():   # reported only: not among the shipped rules `choose` picks from
        pos = [v for v, k in zip(vals, kinds) if k == "own"]
        figures[rule] = {kind: round(_auroc(pos, [v for v, k in zip(vals, kinds) if k == kind]), 4)
                         for kind in (*qc.NEGATIVE_KINDS, "copied_cut")}
        figures[rule]["mean"] = round(float(np.mean([figures[rule][k] for k in qc.NEGATIVE_KINDS])), 4)
    figures["logistic_p_answer_judge_weights"] = {"coef": np.round(fitted.coef_[0], 4).tolist(),
                                                  "intercept": round(float(fitted.intercept_[0]), 4)}
    recs = qgeval.load()
    lg = figures["logistic_weights"]
    xl = np.stack([test[s] for s in lg["signals"]], axis=1)
    test["logistic"] = [1 / (1 + np.exp(-(lg["intercept"] + sum(c * log_odds(v) for c, v in zip(lg["coef"], row)))))
                        for row in xl]
    for rule, vals in test.items():
        figures.setdefault(rule, {})
        for dim in TABLE_DIMENSIONS:
            h = np.array([r.extra[dim] for r in recs])
            figures[rule][f"qgeval {dim}"] = round(float(pearsonr(vals, h)[0]), 3)
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    heads = [*qc.NEGATIVE_KINDS, "copied_cut", "mean", *[f"qgeval {d}" for d in TABLE_DIMENSIONS]]
    print(f"{'rule':26}" + "".join(f"{h.replace('qgeval ', '')[:13]:>14}" for h in heads))
    ranked = sorted((r for r in figures if isinstance(figures[r], dict) and "mean" in figures[r]),
                    key=lambda r: -figures[r]["mean"])
    for r in ranked:
        print(f"{r:26}" + "".join(f"{figures[r].get(h, float('nan')):>14.4f}" for h in heads))
    print("chosen:", figures["chosen"])


def main() -> None:
    torch.set_num_threads(1)
    which = sys.argv[1]
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "runs/h66")
    out.mkdir(parents=True, exist_ok=True)
    if which == "report":
        report(out)
    else:
        stage(which, out)


if __name__ == "__main__":
    main()
