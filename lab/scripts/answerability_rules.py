"""Issue 45, round 2: every candidate main-score rule of `answerability` on the bad-question check (dev) and
on QGEval-SQuAD (reported only), as lab/results/reader.md records them.

The dev rows are `qascore-lab train reader`'s (`qg_corruptions.build` on the held-out answerable questions of
its split, seed 45, 1,000 own questions); the shipped reader reads them and the shipped `ava` verifier
judges each window's top 5 spans against the answer (cached in OUT as signals_dev.npz / signals_qgeval.npz).
Candidates: the fixed and verified rules of runtime/reader.py, `ava_f1_expected` (sum of P(span) x max(F1,
ava)), `p_answer_x_expected_f1`, the best span's F1, ava and probability alone, and logistic regressions
(sklearn, C = 1) on raw scores or their log-odds, with and without the verifier's signals; a logistic's dev
AUROCs come from fits on the other half of the articles, its QGEval scores from a fit on all dev rows.
QGEval Pearson with the annotators' mean, on all 1,500 rows and on the 1,095 whose passage the reader never
read in training. Usage, from the repo root (CPU, about 35 min on one core):
    PYTHONPATH=src:lab/src python lab/scripts/answerability_rules.py [OUT (default runs/h45)]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr
from sklearn.linear_model import LogisticRegression

from qascore.metrics.answerability import verifier_path
from qascore.runtime.ava_layouts import load_verifier
from qascore.runtime.reader import JUDGED_K, load_shared, log_odds, verify
from qascore.text.squad import squad_f1
from qascore_lab.datasets import qgeval, squad
from qascore_lab.meta.qgeval_benchmarks import TABLE_DIMENSIONS
from qascore_lab.train import qg_corruptions as qc
from qascore_lab.train.reader import _auroc, _bucket, load_data

FULL = ["p_answer", "expected_f1", "mass", "span_prob", "f1", "ava_best", "ava_expected"]
NOAVA = FULL[:5]
COMBOS = (("logistic", FULL, False), ("logistic_noava", NOAVA, False), ("logistic_logodds", FULL, True),
          ("logistic_logodds_noava", NOAVA, True), ("logistic_logodds_2", ["p_answer", "expected_f1"], True))


def dev_rows() -> list[qc.Row]:
    args = argparse.Namespace(data_root=None, seed=13, split_salt="reader", dev_percent=5.0, max_questions=0,
                              wrong_passage_share=0.0)
    d = load_data(args)
    held = d["dev11"] + [e for e in d["dev2"] if e.answer is not None]
    return qc.build([qc.Source(e.question, e.context, e.context[e.answer[0]:e.answer[1]], e.title) for e in held], 1000)


def signals(path: Path, qs: list[str], cs: list[str], ans: list[str]) -> dict[str, np.ndarray]:
    """Every rule's signal per row: the reader's readings and the verifier's judgments of their spans,
    reduced to numbers and cached at `path` (.npz of plain arrays)."""
    if path.exists():
        with np.load(path, allow_pickle=False) as cached:
            return {k: cached[k] for k in cached.files}
    reads = load_shared().read(qs, cs, batch_size=16)
    ver = load_verifier(verifier_path(), "cpu")
    judged = verify(lambda recs: ver.predict(recs, batch_size=16), qs, reads, ans)
    rows = []
    for a, rd, j in zip(ans, reads, judged):
        m = rd.match(a, j)
        mix = max((sum(p * max(j[t], squad_f1(t, a)) for t, p in sp[:JUDGED_K]) for _, sp in rd.windows), default=0.0)
        rows.append({"p_answer": rd.p_answer, "expected_f1": m["expected_f1"], "mass": m["mass"], "f1": m["f1"],
                     "span_prob": rd.best[1], "p_answer_x_f1": rd.p_answer * m["f1"], "ava_best": m["ava_best"],
                     "p_answer_x_ava": rd.p_answer * m["ava_best"], "ava_expected": m["ava_expected"],
                     "ava_f1_expected": mix, "p_answer_x_expected_f1": rd.p_answer * m["expected_f1"]})
    out = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    np.savez(path, **out)
    return out


def features(s: dict[str, np.ndarray], cols: list[str], logodds: bool) -> np.ndarray:
    x = np.stack([s[c] for c in cols], axis=1)
    return np.vectorize(log_odds)(x) if logodds else x


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/h45")
    out.mkdir(parents=True, exist_ok=True)
    rows = dev_rows()
    dev = signals(out / "signals_dev.npz", [r.question for r in rows], [r.context for r in rows],
                  [r.answer for r in rows])
    recs = qgeval.load()
    test = signals(out / "signals_qgeval.npz", [r.candidate for r in recs], [r.context for r in recs],
                   [r.answer for r in recs])
    kinds = np.array([r.kind for r in rows])
    titles = np.array([r.title for r in rows])
    use = np.isin(kinds, ("own", *qc.NEGATIVE_KINDS))
    y = (kinds == "own").astype(int)
    half = np.isin(titles, sorted(set(titles))[::2])
    weights = {}
    for name, cols, lg in COMBOS:
        x, xt = features(dev, cols, lg), features(test, cols, lg)
        crossed = np.zeros(len(rows))
        for fold in (half, ~half):
            crossed[fold] = LogisticRegression(C=1.0, max_iter=1000).fit(x[~fold & use], y[~fold & use]) \
                .predict_proba(x[fold])[:, 1]
        m = LogisticRegression(C=1.0, max_iter=1000).fit(x[use], y[use])
        weights[name] = {"signals": cols, "coef": np.round(m.coef_[0], 3).tolist(),
                         "intercept": round(float(m.intercept_[0]), 3)}
        dev[name], test[name] = crossed, m.predict_proba(xt)[:, 1]
    v2 = squad.load()
    title = {" ".join(q.context.split()): q.title for q in v2}
    order = sorted({q.title for q in v2}, key=lambda t: _bucket("reader", t))
    seen = np.array([title.get(" ".join(r.context.split())) in set(order[:len(order) // 2]) for r in recs])
    table = {}
    for c in dev:
        pos = list(dev[c][kinds == "own"])
        row = {k: round(_auroc(pos, list(dev[c][kinds == k])), 4) for k in (*qc.NEGATIVE_KINDS, "copied_cut")}
        row["mean"] = round(float(np.mean([row[k] for k in qc.NEGATIVE_KINDS])), 4)
        for part, mask in (("all", np.ones(len(recs), bool)), ("unseen", ~seen)):
            for dim in TABLE_DIMENSIONS:
                h = np.array([r.extra[dim] for r in recs])[mask]
                row[f"qgeval {part} {dim}"] = round(float(pearsonr(test[c][mask], h)[0]), 3)
        table[c] = row
    with open(out / "rules.json", "w") as fh:
        json.dump({"counts": {k: int((kinds == k).sum()) for k in qc.KINDS}, "table": table, "weights": weights},
                  fh, indent=1)
    heads = [*qc.NEGATIVE_KINDS, "copied_cut", "mean", "qgeval all answerability", "qgeval all answer_consistency",
             "qgeval unseen answerability", "qgeval unseen answer_consistency"]
    print(f"{'candidate':24}" + "".join(f"{h.replace('qgeval ', '')[:14]:>15}" for h in heads))
    for c, row in sorted(table.items(), key=lambda kv: -kv[1]["mean"]):
        print(f"{c:24}" + "".join(f"{row[h]:>15.3f}" for h in heads))
    print(json.dumps(weights))


if __name__ == "__main__":
    main()
