"""The KPQA paper's meta-evaluation tables as benchmarks (Lee et al., NAACL 2021).

table3: Pearson/Spearman on MS-MARCO, AVSD, NarrativeQA, SemEval (Table 3).
table4: the ablation rows on MS-MARCO (Table 4).
table6: the same on 100 multi-sentence MS-MARCO answers (Table 6).
table7: rank-pair (win-lose) agreement between two systems' answers to the
        same question, MS-MARCO (UniLM vs MHPGM) and AVSD (AMF vs MTN) (Table 7).
Data comes from qascore_lab.datasets.kpqa (the current release, which reproduces
the paper's Table 3 baselines); its records carry extra["system"].
"""

from __future__ import annotations

import os
from typing import Hashable

from qascore_lab.datasets import kpqa
from qascore_lab.meta.benchmarks import Benchmark, paper_numbers
from qascore.records import Record

RESOURCE = "kpqa_paper.json"
LABELS = {"marco": "MS-MARCO", "avsd": "AVSD", "narrativeqa": "NarrativeQA", "semeval": "SemEval",
          "marco-multi": "MS-MARCO multi-sentence"}
Root = str | os.PathLike[str] | None


def table3(root: Root = None) -> Benchmark:
    return Benchmark(
        name="kpqa", title="KPQA Table 3: correlation with human judgments of correctness",
        kind="correlation", datasets={ds: kpqa.load(ds, root=root) for ds in kpqa.TABLE3},
        labels=LABELS, paper=paper_numbers(RESOURCE, "table3"), paper_label="KPQA Table 3")


def table4(root: Root = None) -> Benchmark:
    return Benchmark(
        name="kpqa-ablation", title="KPQA Table 4: ablations on MS-MARCO (KP = keyphrase tagger without the question)",
        kind="correlation", datasets={"marco": kpqa.load("marco", root=root)},
        labels=LABELS, paper=paper_numbers(RESOURCE, "table4"), paper_label="KPQA Table 4")


def table6(root: Root = None) -> Benchmark:
    return Benchmark(
        name="kpqa-multi", title="KPQA Table 6: correlation on multi-sentence MS-MARCO answers",
        kind="correlation", datasets={"marco-multi": kpqa.load("marco-multi", root=root)},
        labels=LABELS, paper=paper_numbers(RESOURCE, "table6"), paper_label="KPQA Table 6")


def question_key(rec: Record) -> Hashable:
    """Two systems answered the same item when question and every reference agree
    (AVSD repeats questions such as "that 's it ?" across videos)."""
    return (rec.question, tuple(rec.references), tuple(rec.extra.get("unused_references", ())))


def table7(root: Root = None) -> Benchmark:
    return Benchmark(
        name="kpqa-pairs", title="KPQA Table 7: rank-pair (win-lose) matches with human judgments, %",
        kind="pairs", datasets={ds: kpqa.load(ds, root=root) for ds in ("marco", "avsd")},
        labels=LABELS, paper=paper_numbers(RESOURCE, "table7"), paper_label="KPQA Table 7",
        systems={"marco": ("mhpgm", "unilm"), "avsd": ("amf", "mtn")}, pair_key=question_key,
        notes=["pairs: the same question (and references) answered by both systems; kept when the "
               "human scores differ by >= 2 (the paper's counts, 93 and 193, follow >= 2; its text says > 2)",
               "paper's AVSD count (193) is reproduced only by pairing rows by position "
               "(--pair-by position), which pairs answers to different questions; see docs/meta.md"])
