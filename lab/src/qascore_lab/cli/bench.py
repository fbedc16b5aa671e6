"""`qascore-lab bench TARGET`: speed against a reference implementation, in one run."""

from __future__ import annotations

import argparse

from qascore_lab.cli.dispatch import add_targets, run_target

TARGETS: dict[str, tuple[str, str]] = {
    "models": ("qascore_lab.bench.models", "every model metric's rows/s on short and long rows, threads/device/dtype, "
                                           "ratios to bert-score and to QRelScore's uncached path, in one run"),
    "gpu": ("qascore_lab.bench.gpu", "everything a lent GPU is for, in one bounded run: pytest -m cuda, every model "
                                     "metric's rows/s at fp32 and bf16 with bert-score's in the same run, GPU vs "
                                     "CPU scores; writes gpu.json and gpu.md"),
    "qrelscore": ("qascore_lab.bench.qrelscore", "QRelScore batched vs one example at a time (examples/s, ratio)"),
    "verifier": ("qascore_lab.bench.verifier", "AVA verifier scoring throughput (pairs/s) vs a plain encoder pass"),
    "verifier-eval": ("qascore_lab.bench.verifier_eval", "answer-correctness judges (verifiers, F1, ...) on the corpus dev "
                                                         "split, WikiQA/TREC-QA triples, KPQA sets"),
    "square-refs": ("qascore_lab.bench.square_refs", "the SQuArE paper's Table 5 on WikiQA test with one model: 1/3/5 "
                                                     "positive, negative or mixed references (accuracy, AUROC)"),
    "probes": ("qascore_lab.bench.probes", "answer judges on the behavioural probe suite, per family (right member higher, "
                                           "wrong member accepted, right member accepted)"),
    "blind": ("qascore_lab.bench.blind", "answer judges on the blind hand-written set (lab/blind/), per kind: wrong "
                                         "accepted, right rejected, AUROC, right above wrong in pairs"),
    "lexical": ("qascore_lab.bench.lexical", "COCO BLEU/ROUGE-L/CIDEr/METEOR vs pycocoevalcap on KPQA MS-MARCO rows"),
    "kpqa": ("qascore_lab.bench.kpqa", "BERTScore-KPQA (tagger included) vs bert_score, same model and layer"),
    "bertscore": ("qascore_lab.bench.bertscore", "bertscore vs bert_score (pairs/s, with and without IDF), same model, layer, rows"),
    "stream": ("qascore_lab.bench.stream", "peak RSS and time per record of score --chunk-size on 1k..1M synthetic records"),
    "serve": ("qascore_lab.bench.serve", "load test of qascore serve on loopback: throughput, p50/p99, batching on/off"),
    "ray": ("qascore_lab.bench.ray", "score --engine ray records/s with 1 vs 2 workers, and the local engine"),
    "bertscore-layers": ("qascore_lab.bench.bertscore_layers", "bertscore Pearson/Spearman with KPQA human scores per layer"),
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_targets(p, TARGETS)


def run(args: argparse.Namespace) -> int:
    return run_target(args)
