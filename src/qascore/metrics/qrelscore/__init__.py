"""QRelScore (Wang et al., 2022): reference-free relevance of a generated question to its context.

`metric` holds the registered metrics; `engine` runs the models; `lrm` and
`grg` hold the two parts' maths; `rescale` the shipped baselines.
"""

from qascore.metrics.qrelscore.metric import QRelGRG, QRelLRM, QRelScore, RefQRelScore, harmonic_mean

__all__ = ["QRelScore", "QRelLRM", "QRelGRG", "RefQRelScore", "harmonic_mean"]
