"""Per-token importance weights, one interface for lexical and embedding metrics.

"BLEU-1-KPQA" is BLEU-1 given keyphrase weights, not a second BLEU: a metric
asks a `TokenWeighter` for the weights of the tokens it already has.
"""

from qascore.weights.base import TokenWeighter, UniformWeighter

__all__ = ["TokenWeighter", "UniformWeighter"]
