"""AVA system-wise evaluation (paper sections 6.2 and 6.4) on WikiQA.

Several answer-sentence rankers order the candidates of each question. Their
P@1, MAP and MRR are computed twice: from the gold labels, and from AVA's
judgment of every candidate (the candidate as t, the question's *other* gold
answers as references, AVA probabilities averaged over references, then a
threshold). The threshold is tuned on WikiQA dev to minimise the RMSE of P@1
across systems and applied unchanged to test. Agreement = RMSE (± std of the
absolute errors) and Kendall tau-b of the system ranking.

As in the paper (Table 7: 11 dev / 32 test questions), only questions with at
least two correct and one incorrect candidate are used: a candidate is never
its own reference, so a question needs a second correct answer to judge its
correct candidates at all.

Rankers: the two WikiQA-paper systems shipped as `.rank` files (CNN,
CNN-Cnt), BM25, word overlap, MiniLM embedding cosine, a (q, t) cross-encoder
trained on WikiQA train with the verifier machinery, article order, sentence
length and random.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qascore_lab.datasets.as2 import AS2Question

Ranker = Callable[[Sequence[AS2Question], str], list[list[float]]]


def evaluable(q: AS2Question) -> bool:
    return len(q.positives) >= 2 and len(q.negatives) >= 1


# -- rankers -----------------------------------------------------------------

def rank_file_ranker(data: Path, system: str) -> Ranker:
    from qascore_lab.datasets.as2 import read_rank

    def rank(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
        # .rank files index every question of the full split in file order
        return read_rank(data / "wikiqa" / "emnlp-table" / f"WikiQA.{system}.{split}.rank", list(questions))
    rank.full_split = True  # type: ignore[attr-defined]
    return rank


def bm25_ranker(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
    """Okapi BM25 (rank-bm25) with statistics from every candidate sentence of the split."""
    from rank_bm25 import BM25Okapi

    from qascore.text.squad import squad_tokens

    docs, spans = [], []
    for q in questions:
        spans.append((len(docs), len(docs) + len(q.candidates)))
        docs.extend(squad_tokens(c) or ["<empty>"] for c in q.candidates)
    bm25 = BM25Okapi(docs)
    return [[float(x) for x in bm25.get_batch_scores(squad_tokens(q.question), list(range(a, b)))]
            for q, (a, b) in zip(questions, spans)]


bm25_ranker.full_split = True  # type: ignore[attr-defined]


def overlap_ranker(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
    """Count of question words (SQuAD-normalised, set) found in the candidate."""
    from qascore.text.squad import squad_tokens

    out = []
    for q in questions:
        qs = set(squad_tokens(q.question))
        out.append([float(len(qs & set(squad_tokens(c)))) for c in q.candidates])
    return out


def embedding_ranker(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
    """Cosine of mean-pooled last-layer states of the default encoder (MiniLM sentence embeddings)."""
    import torch

    from qascore.runtime.encoder import get_encoder

    enc = get_encoder()
    texts = [q.question for q in questions] + [c for q in questions for c in q.candidates]
    vecs = {}
    for e in enc.embed(texts):
        pos = e.content()
        v = e.hidden[pos].mean(0) if pos else e.hidden.mean(0)
        vecs[e.text] = torch.nn.functional.normalize(v.float(), dim=0)
    return [[float(vecs[q.question] @ vecs[c]) for c in q.candidates] for q in questions]


def order_ranker(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
    """Article order: the first summary sentence first."""
    return [[-float(i) for i in range(len(q.candidates))] for q in questions]


def length_ranker(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
    return [[float(len(c.split())) for c in q.candidates] for q in questions]


def random_ranker(seed: int) -> Ranker:
    def rank(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
        rng = np.random.default_rng([seed, zlib.crc32(split.encode())])
        return [rng.random(len(q.candidates)).tolist() for q in questions]
    return rank


def cross_encoder_ranker(data: Path, out: Path, *, seed: int, threads: int, neg_ratio: float = 2.0,
                         log: Callable[[str], None] = print) -> Ranker:
    """A (q, t) cross-encoder trained on WikiQA train pairs with the verifier machinery (cached in `out`)."""
    from qascore_lab.datasets.as2 import read_wikiqa
    from qascore.records import Record
    from qascore.runtime import ava_layouts
    from qascore.runtime.verifier import Verifier, VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    layout = ava_layouts.make_layout("q,t")
    path = out / "as2-qt.safetensors"
    if path.exists():
        ver = Verifier.load(path, layout, layout_name="q,t")
    else:
        def pairs(split: str, ratio: float | None) -> tuple[list[Record], list[int]]:
            rng = np.random.default_rng(seed)
            recs, ys = [], []
            for q in read_wikiqa(data / "wikiqa", split):
                if not q.positives:
                    continue
                negs = q.negatives
                if ratio is not None and len(negs) > ratio * len(q.positives):
                    negs = sorted(rng.choice(negs, int(ratio * len(q.positives)), replace=False).tolist())
                for i in q.positives + negs:
                    recs.append(Record(question=q.question, candidate=q.candidates[i]))
                    ys.append(q.labels[i])
            return recs, ys

        spec = VerifierSpec(layout="q,t", n_views=1, train_layers=2, max_len=96)
        recs, ys = pairs("train", neg_ratio)
        ver = train(spec, layout, recs, ys, TrainConfig(epochs=2, batch_size=16, seed=seed, threads=threads),
                    dev=pairs("dev", None), log=lambda s: log(f"[as2-qt] {s}"))
        out.mkdir(parents=True, exist_ok=True)
        ver.save(path, {"name": "as2-qt", "purpose": "WikiQA AS2 reranker for AVA system-wise evaluation"})

    def rank(questions: Sequence[AS2Question], split: str) -> list[list[float]]:
        recs = [Record(question=q.question, candidate=c) for q in questions for c in q.candidates]
        p = ver.predict(recs)
        out_, k = [], 0
        for q in questions:
            out_.append(p[k:k + len(q.candidates)].tolist())
            k += len(q.candidates)
        return out_
    return rank


# -- AVA judgments -------------------------------------------------------------

def ava_judgments(questions: Sequence[AS2Question], score: Callable[[list[Any]], np.ndarray]) -> list[np.ndarray]:
    """Per question, per candidate: mean AVA probability over the other gold answers as references."""
    from qascore.records import Record

    recs, owner = [], []
    for qi, q in enumerate(questions):
        for ci, cand in enumerate(q.candidates):
            refs = [q.candidates[j] for j in q.positives
                    if j != ci and q.candidates[j].strip() != cand.strip()]
            for r in refs:
                recs.append(Record(question=q.question, candidate=cand, references=[r]))
                owner.append((qi, ci))
    probs = score(recs)
    sums = [np.zeros(len(q.candidates)) for q in questions]
    counts = [np.zeros(len(q.candidates)) for q in questions]
    for (qi, ci), p in zip(owner, probs):
        sums[qi][ci] += p
        counts[qi][ci] += 1
    return [np.divide(s, np.maximum(c, 1)) for s, c in zip(sums, counts)]


def measures(rankings: Sequence[Sequence[float]], labels: Sequence[np.ndarray]) -> dict[str, float]:
    """P@1 / MAP / MRR over questions; a question with no positive label scores 0 (AVA may find none)."""
    from qascore.meta.ranking import average_precision, precision_at_1, ranked_labels, reciprocal_rank

    p1, ap, rr = [], [], []
    for s, y in zip(rankings, labels):
        r = ranked_labels(np.asarray(s, dtype=float), np.asarray(y, dtype=bool))
        p1.append(precision_at_1(r))
        ap.append(average_precision(r))
        rr.append(reciprocal_rank(r))
    return {"P@1": float(np.mean(p1)), "MAP": float(np.mean(ap)), "MRR": float(np.mean(rr))}


def tune_system_threshold(ava: Sequence[np.ndarray], rankings: dict[str, list[list[float]]],
                          gold: dict[str, dict[str, float]]) -> float:
    """Threshold minimising the RMSE of P@1 across systems; the middle of the best run of candidates."""
    from qascore.meta.classification import candidate_thresholds

    cands = candidate_thresholds(np.concatenate(list(ava)))
    errs = []
    for thr in cands:
        labels = [a >= thr for a in ava]
        e = [measures(rankings[s], labels)["P@1"] - gold[s]["P@1"] for s in rankings]
        errs.append(float(np.sqrt(np.mean(np.square(e)))))
    errs_arr = np.array(errs)
    best = np.flatnonzero(errs_arr <= errs_arr.min() + 1e-12)
    return float(cands[best[len(best) // 2]])


def evaluate(systems: dict[str, Ranker], score: Callable[[list[Any]], np.ndarray], data: Path,
             log: Callable[[str], None] = print) -> dict[str, Any]:
    from qascore_lab.datasets.as2 import read_wikiqa
    from qascore.meta.system import system_agreement

    result: dict[str, Any] = {"splits": {}}
    ava_by_split, rank_by_split, gold_by_split, labels_by_split = {}, {}, {}, {}
    for split in ("dev", "test"):
        allq = read_wikiqa(data / "wikiqa", split)
        keep = [i for i, q in enumerate(allq) if evaluable(q)]
        qs = [allq[i] for i in keep]
        rankings = {}
        for name, ranker in systems.items():
            t0 = time.time()
            if getattr(ranker, "full_split", False):  # needs the whole split (rank files, corpus statistics)
                full = ranker(allq, split)
                rankings[name] = [full[i] for i in keep]
            else:
                rankings[name] = ranker(qs, split)
            log(f"{split}: ranked with {name} ({time.time() - t0:.1f}s)")
        gold_labels = [np.array(q.labels, dtype=bool) for q in qs]
        gold = {s: measures(r, gold_labels) for s, r in rankings.items()}
        t0 = time.time()
        ava = ava_judgments(qs, score)
        log(f"{split}: AVA judged {sum(len(q.candidates) for q in qs)} candidates of {len(qs)} questions "
            f"({time.time() - t0:.1f}s)")
        ava_by_split[split], rank_by_split[split], gold_by_split[split] = ava, rankings, gold
        labels_by_split[split] = np.concatenate(gold_labels)
    thr = tune_system_threshold(ava_by_split["dev"], rank_by_split["dev"], gold_by_split["dev"])
    result["threshold"] = thr
    for split in ("dev", "test"):
        labels = [a >= thr for a in ava_by_split[split]]
        est = {s: measures(r, labels) for s, r in rank_by_split[split].items()}
        gold = gold_by_split[split]
        summary = {}
        for m in ("P@1", "MAP", "MRR"):
            e = {s: est[s][m] for s in est}
            g = {s: gold[s][m] for s in gold}
            agree = system_agreement(e, g)
            abs_err = np.abs([e[s] - g[s] for s in g])
            summary[m] = {"rmse": agree.rmse, "std": float(np.std(abs_err)), "kendall_tau_b": agree.kendall_tau_b,
                          "kendall_p": agree.kendall_p, "pearson": agree.pearson}
        point = np.concatenate(ava_by_split[split])
        result["splits"][split] = {"questions": len(ava_by_split[split]), "gold": gold, "ava": est,
                                   "summary": summary,
                                   "candidate_accuracy": float(np.mean((point >= thr) == labels_by_split[split]))}
    return result


def format_tables(result: dict[str, Any]) -> str:
    """Markdown: per-system gold vs AVA (paper Table 7) and the summary (Table 5)."""
    lines = [f"threshold (tuned on dev, min P@1 RMSE): {result['threshold']:.4f}", ""]
    for split, r in result["splits"].items():
        systems = list(r["gold"])
        lines.append(f"WikiQA-{split} ({r['questions']} questions)")
        lines.append("| | metric | " + " | ".join(systems) + " |")
        lines.append("|---|---|" + "---|" * len(systems))
        for who in ("gold", "ava"):
            for m in ("P@1", "MAP", "MRR"):
                lines.append(f"| {who} | {m} | " + " | ".join(f"{r[who][s][m]:.3f}" for s in systems) + " |")
        lines.append("")
        lines.append("| metric | RMSE ± std | Kendall tau-b | p |")
        lines.append("|---|---|---|---|")
        for m, s in r["summary"].items():
            lines.append(f"| {m} | {s['rmse']:.3f} ± {s['std']:.3f} | {s['kendall_tau_b']:.3f} | {s['kendall_p']:.3f} |")
        lines.append("")
    return "\n".join(lines)


# -- command ------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", default=None,
                   help="AVA model file (default: the shipped `ava` model); .safetensors delta or SVM .json; "
                        "or `judge` for the shipped judge")
    p.add_argument("--data", default=None, help="folder holding wikiqa/ (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--out", default="runs/ava", help="folder for the reranker cache and the report")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1)


def default_systems(data: Path, out: Path, seed: int, threads: int,
                    log: Callable[[str], None] = print) -> dict[str, Ranker]:
    return {"CNN": rank_file_ranker(data, "CNN"), "CNN-Cnt": rank_file_ranker(data, "CNN-Cnt"),
            "BM25": bm25_ranker, "overlap": overlap_ranker, "embedding": embedding_ranker,
            "cross-encoder": cross_encoder_ranker(data, out, seed=seed, threads=threads, log=log),
            "article-order": order_ranker, "length": length_ranker, "random": random_ranker(seed)}


def model_scorer(model: str | None) -> tuple[Callable[[list[Any]], np.ndarray], str]:
    """P(correct) for single-reference records from a verifier delta, the SVM JSON, or `judge`."""
    from qascore.runtime.ava_layouts import AVA_DIR, load_verifier

    if model == "judge":
        import qascore

        judge = qascore.load("judge")
        return (lambda recs: np.asarray(judge.score(recs).scores)), "judge"
    path = Path(model) if model else AVA_DIR / "ava.safetensors"
    if path.suffix == ".json":
        from qascore_lab.train.svm import LinearAVA, features

        lin = LinearAVA.load(path)
        return (lambda recs: lin.predict_proba(np.array([features(r.question, r.references[0], r.candidate)
                                                         for r in recs]))), str(path)
    ver = load_verifier(path)
    return (lambda recs: ver.predict(recs)), str(path)


def run(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    from qascore_lab.datasets import data_root

    data, out = data_root(args.data), Path(args.out)
    score, name = model_scorer(args.model)
    t0 = time.time()
    result = evaluate(default_systems(data, out, args.seed, args.threads), score, data)
    result["model"] = name
    result["seconds"] = round(time.time() - t0, 1)
    out.mkdir(parents=True, exist_ok=True)
    stem = Path(name).stem
    (out / f"system-{stem}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    table = format_tables(result)
    (out / f"system-{stem}.md").write_text(table + "\n", encoding="utf-8")
    print(f"model: {name}\n{table}")
    return 0
