"""The values a model file stores, checked before it scores anything.

Why: a verifier delta or a judge card holds numbers the scores depend on: a
temperature of 0 scored everything 1.0 or 0.0, -1 turned every score over, a
`max_len` of 0 gave one value for every record, a threshold of NaN or 5 made
`details.correct` meaningless. Each is refused, naming the field and what it
must be. Torch-free: the metrics' option checks (`model_paths`) call it too.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

MIN_LEN, MAX_LEN = 16, 4096  # WordPieces a verifier input may hold: room for [CLS], [SEP] and text


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def probability_problem(name: str, value: Any) -> str | None:
    """A stored threshold: a finite number in [0, 1]."""
    x = _number(value)
    if x is None or not math.isfinite(x) or not 0.0 <= x <= 1.0:
        return f"its {name} is {value!r}; expected a probability in [0, 1]"
    return None


def verifier_problem(meta: Mapping[str, Any]) -> str | None:
    """What is wrong with a verifier delta's metadata (threshold, temperature, max_len), or None."""
    if "threshold" in meta:
        problem = probability_problem("threshold", meta["threshold"])
        if problem:
            return problem
    if "temperature" in meta:
        t = _number(meta["temperature"])
        if t is None or not math.isfinite(t) or t <= 0:
            return (f"its temperature is {meta['temperature']!r}; expected a number > 0 (probabilities are "
                    f"sigmoid(logit / temperature))")
    spec = meta.get("spec")
    if isinstance(spec, Mapping) and "max_len" in spec:
        n = spec["max_len"]
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_LEN <= n <= MAX_LEN:
            return f"its max_len is {n!r}; expected a whole number of WordPieces in [{MIN_LEN}, {MAX_LEN}]"
    return None
