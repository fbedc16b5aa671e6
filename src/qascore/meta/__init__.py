"""Statistics for judging metrics against humans (numpy/scipy only; no models).

correlation: Pearson / Spearman / Kendall tau-b with p-values and bootstrap CIs.
compare: is metric A better correlated than metric B (Williams, paired bootstrap)?
classification: accuracy / P / R / F1 at a dev-tuned threshold; AUROC.
pairs: KPQA's rank-pair (win-lose match) agreement.
ranking: AS2 P@1, MAP, MRR.  system: system-level correlation, Kendall and RMSE.
benchmarks: public meta-evaluation benchmarks (KPQA tables) as data, run with a scorer.
"""

from qascore.meta.classification import auroc, binary_scores, dev_test_scores, tune_threshold
from qascore.meta.compare import Comparison, compare_correlations, paired_bootstrap, williams_test
from qascore.meta.correlation import (Correlation, bootstrap_indices, correlate, correlate_all, kendall, pearson,
                                      spearman)
from qascore.meta.pairs import PairAgreement, rank_pair_agreement
from qascore.meta.ranking import RankingScores, ranking_scores
from qascore.meta.system import SystemAgreement, system_agreement, system_means

__all__ = ["Correlation", "correlate", "correlate_all", "pearson", "spearman", "kendall", "bootstrap_indices",
           "Comparison", "compare_correlations", "williams_test", "paired_bootstrap",
           "binary_scores", "tune_threshold", "dev_test_scores", "auroc",
           "PairAgreement", "rank_pair_agreement", "RankingScores", "ranking_scores",
           "SystemAgreement", "system_agreement", "system_means"]
