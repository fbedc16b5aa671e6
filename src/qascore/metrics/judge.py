"""`judge`: one calibrated answer-correctness probability, stacked over cheap features and the AVA verifier.

Features of a (question, candidate, references) record:
- `ava_logit`: logit of the `ava` verifier's probability (mean over references);
- `f1`: token F1 (max over references);
- `kpqa_rougeL`: keyphrase-weighted ROUGE-L (max over references);
- `contains`: 1 if a normalised reference occurs inside the normalised candidate;
- `len_ratio`: log((1 + candidate words) / (1 + mean reference words)).
A card (`qascore-lab train judge`) names the features it stacks (the shipped one: `ava_logit` and
`kpqa_rougeL`, the subset chosen on the corpus dev split; lab/results/verifiers.md) and holds a logistic
regression over them, standardised, fitted on the verification corpus dev split (calibrated there);
`details.correct` compares the probability with the dev-tuned threshold.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from qascore.metrics.base import Metric
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option
from qascore.metrics.verifiers import dtype_field, dtype_option
from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.delta import file_sha256
from qascore.text.squad import normalize_answer

DEFAULT_MODEL = defaults.RESOURCES / "judge" / "judge.json"
FEATURES = ("ava_logit", "f1", "kpqa_rougeL", "contains", "len_ratio")
# The shipped card's `kpqa_rougeL` coefficients were fitted on the first KPQA tagger's scores: pinned, so
# shipping a newer tagger (lab/results/kpqa.md, v2) leaves the judge's numbers as they were until it is refitted.
JUDGE_TAGGER = "kpqa-v1"


def contains(candidate: str, references: Sequence[str]) -> float:
    """1.0 if some reference, SQuAD-normalised, occurs as whole words inside the normalised candidate."""
    c = f" {normalize_answer(candidate)} "
    return float(any(normalize_answer(r) and f" {normalize_answer(r)} " in c for r in references))


def features(records: Sequence[Record], ava_model: str | None = None, batch_size: int = 32,
             device: str | None = None, dtype: str | None = None) -> np.ndarray:
    """The (n, len(FEATURES)) feature matrix, each feature computed by its qascore metric
    (the model ones on `device`, at `dtype`)."""
    from qascore.metrics.registry import load  # the registry, not the package API above the metrics

    ava = load("ava", **({"model": ava_model} if ava_model else {}), batch_size=batch_size, device=device, dtype=dtype)
    f1 = load("f1").score(records)
    kp = load("kpqa-rougeL", tagger=JUDGE_TAGGER, device=device, dtype=dtype).score(records)
    p = np.clip(np.asarray(ava.score(records).scores), 1e-6, 1 - 1e-6)
    rows = []
    for i, rec in enumerate(records):
        ref_words = float(np.mean([len(r.split()) for r in rec.references]))
        ratio = math.log((1 + len(rec.candidate.split())) / (1 + ref_words))
        rows.append([math.log(p[i] / (1 - p[i])), f1.scores[i], kp.scores[i], contains(rec.candidate, rec.references),
                     ratio])
    return np.array(rows, dtype=np.float64)


class Judge(Metric):
    name: ClassVar[str] = "judge"
    requires: ClassVar[tuple[str, ...]] = ("question", "candidate", "references")
    description: ClassVar[str] = ("stacked answer-correctness judge: logistic regression over the AVA verifier, "
                                  "token F1, KPQA ROUGE-L, containment and length ratio, calibrated on a dev split")

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"model": Option("str", None, "judge card written by `qascore-lab train judge`", none="shipped"),
                "batch_size": Option("int", 32, "pairs per verifier batch", min=1, signed=False),
                "device": device_option(), "dtype": dtype_option()}

    def _model(self) -> Path:
        return Path(self.options["model"]) if self.options["model"] else DEFAULT_MODEL

    def _card(self) -> dict[str, Any]:
        path = self._model()
        if not path.is_file():
            raise FileNotFoundError(f"judge: model file {path} not found (fit one with `qascore-lab train judge`)")
        return json.loads(path.read_text(encoding="utf-8"))

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        card = self._card()
        ava = f"ava@{file_sha256(defaults.RESOURCES / 'ava' / 'ava.safetensors')}"
        if card.get("ava_model") != ava:
            raise ValueError(f"judge: the card {self._model()} was fitted with {card.get('ava_model')}, but the "
                             f"installed verifier is {ava}; refit it with `qascore-lab train judge`")
        x = features(records, batch_size=int(self.options["batch_size"]), device=self.options["device"],
                     dtype=self.options["dtype"])
        probs = predict(card, x)
        return [float(p) for p in probs], {"correct": [bool(p >= card["threshold"]) for p in probs]}

    def signature_fields(self) -> dict[str, Any]:
        path = self._model()
        card = self._card()
        tagger = defaults.RESOURCES / "kpqa" / f"{JUDGE_TAGGER}.safetensors"
        return {"model": f"{path.stem}@{file_sha256(path)}", "stacks": "+".join(card["features"]),
                "ava": card.get("ava_model", "?"), "kpqa": f"{JUDGE_TAGGER}@{file_sha256(tagger)}",
                "threshold": f"{card['threshold']:.4f}", **dtype_field(self.options["dtype"])}


def predict(card: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """Calibrated P(correct) from a feature matrix (every column of FEATURES, or just the card's) and a card."""
    if x.shape[1] != len(card["features"]):
        x = x[:, [FEATURES.index(f) for f in card["features"]]]
    z = (x - np.asarray(card["mean"])) / np.asarray(card["scale"])
    logit = z @ np.asarray(card["coef"]) + card["intercept"]
    return 1.0 / (1.0 + np.exp(-(card["platt"][0] * logit + card["platt"][1])))
