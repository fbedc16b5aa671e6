"""SQuArE (Gabburo et al.): P(candidate correct | question, positive and negative references).

The shipped model (resources/square/square.json, `qascore-lab train square-head`) reads every
reference on its own: the `ava` verifier reads (question, reference, candidate) for each positive
reference and for each negative one, and a head fitted on dev rows pools the reads of both kinds
into one probability (`pooled_features`, `pooled_probability`). It is one model that sees the
positives and the negatives together, as the paper's; unlike the paper's single input ("Question: q
Target: a Pos_Ref: c+ ... Neg_Ref: c- ..."), no reference is cut to make room for the others. A
delta of the paper's single input (`qascore-lab train verifier --model square`) is read with
`model=FILE.safetensors` (`runtime.square_layouts`). lab/results/square.md holds both designs'
figures. Of many references, the `max_references` positives with the largest token recall in the
target and the first `max_negatives` negatives are read (`details.truncated` marks the rest).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from qascore.metrics import long_inputs
from qascore.metrics.base import Metric, blank
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option
from qascore.metrics.verifiers import dtype_field, temperature_field, window_rule, windowed_predict, windows_option
from qascore.records import InputError, Record
from qascore.runtime import defaults
from qascore.runtime.delta import file_sha256, read_meta
from qascore.runtime.encoder import DTYPES
from qascore.text.answer_match import best_references

DEFAULT_MODEL = defaults.RESOURCES / "square" / "square.json"
# Each reference costs one verifier read; four is the judge's reference budget, not tuned for `square`.
MAX_REFERENCES = 4
MAX_NEGATIVES = 4
POOLED_FEATURES = ("mean_positive", "has_positive", "max_negative_beside_positive", "max_negative_alone",
                   "has_negative")


def default_dtype(device: str | None) -> str | None:
    """The `dtype` option's auto: "bf16" on a CPU with bf16 units, else None (fp32). `square` reads one pair
    per kept reference and negative where `ava` reads one per record; bf16 keeps it near `ava`'s speed, its
    AUROC on WikiQA and TREC-QA within 0.0003 of fp32's (lab/results/square.md)."""
    from qascore.runtime.devices import pick_device
    from qascore.runtime.encoder import cpu_has_bf16

    return "bf16" if pick_device(device).startswith("cpu") and cpu_has_bf16() else None


def pooled_features(positive: Sequence[float], negative: Sequence[float]) -> list[float]:
    """What the head reads of one record (`POOLED_FEATURES`): the mean log-odds of the positive reads, whether
    there is one, the largest log-odds of the negative reads (how well the candidate reads as an answer beside
    a known-wrong one) in its own column with and without positives (the verifier reads a good answer as good
    even beside a wrong reference: alone, that read says the opposite of what it says beside a positive),
    and whether there is a negative."""
    top = float(max(negative)) if negative else 0.0
    return [float(np.mean(positive)) if positive else 0.0, float(bool(positive)), top if positive else 0.0,
            0.0 if positive else top, float(bool(negative))]


def pooled_probability(card: dict[str, Any], features: Sequence[float]) -> float:
    """The head: a logistic function of `pooled_features`."""
    z = float(card["bias"]) + sum(float(w) * f for w, f in zip(card["weights"], features))
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def log_odds(p: float) -> float:
    """The verifier's probability as log-odds, clipped so a 0 or 1 stays finite."""
    q = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(q / (1 - q))


def verifier_reads(records: Sequence[Record], max_references: int, max_negatives: int, ava: Metric
                   ) -> tuple[list[tuple[list[float], list[float]]], list[int], list[bool]]:
    """`ava`'s log-odds for each record's kept positive and negative references, each read on its own with
    the question and the candidate; also the windows read and whether `ava` left some text unread (its own
    warning names the records). The head's input, for the metric and for `qascore-lab train square-head`."""
    flat: list[Record] = []
    owner: list[tuple[int, bool]] = []   # (record, is positive) of each read
    for i, r in enumerate(records):
        for positive, texts in ((True, best_references(r.candidate, r.references, max_references)),
                                (False, r.negatives[:max_negatives])):
            flat.extend(Record(id=r.id, question=r.question, candidate=r.candidate, references=[t]) for t in texts)
            owner.extend([(i, positive)] * len(texts))
    reads: list[tuple[list[float], list[float]]] = [([], []) for _ in records]
    windows = [0] * len(records)
    unread = [False] * len(records)
    if flat:
        res = ava.score(flat)
        for j, (i, positive) in enumerate(owner):
            reads[i][0 if positive else 1].append(log_odds(float(res.scores[j])))
            windows[i] = max(windows[i], int(res.details["windows"][j]))
            unread[i] = unread[i] or bool(res.details[long_inputs.TRUNCATED][j])
    return reads, windows, unread


@lru_cache(maxsize=4)
def read_card(path: str) -> dict[str, Any]:
    """The pooled head's card, checked: its features are this module's and its weights one per feature."""
    card = json.loads(Path(path).read_text(encoding="utf-8"))
    if card.get("features") != list(POOLED_FEATURES) or len(card.get("weights", [])) != len(POOLED_FEATURES):
        raise ValueError(f"square: {path} is not a pooled-head card (features {POOLED_FEATURES}, one weight each)")
    if not all(math.isfinite(float(v)) for v in [*card["weights"], card["bias"], card["threshold"]]) \
            or not 0.0 <= float(card["threshold"]) <= 1.0:
        raise ValueError(f"square: {path}: weights, bias and threshold must be finite, the threshold in [0, 1]")
    return card


def load_verifier(path: str | Path, device: str | None = None) -> Any:
    """A single-input SQuArE delta at `path`, created once per process and device."""
    from qascore.runtime.square_layouts import layout_func
    from qascore.runtime.verifier import load_shared

    if not Path(path).is_file():
        raise FileNotFoundError(f"SQuArE model {path} not found; train one with `qascore-lab train verifier "
                                f"--model square`")
    return load_shared(path, layout_func, device)


class Square(Metric):
    name = "square"
    requires = ("question", "candidate")
    description = "SQuArE: P(correct) given the question and several positive/negative references, read together"
    _ava_metric: Metric | None = None

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"model": Option("str", None, "pooled-head card (`qascore-lab train square-head`) or a single-input "
                                "delta (`qascore-lab train verifier --model square`)", none="shipped"),
                "batch_size": Option("int", defaults.VERIFIER_BATCH, "inputs per model batch", min=1, signed=False),
                "device": device_option(),
                "dtype": Option("choice", None, "precision of the verifier's forward passes (auto: bf16 on a CPU "
                                "with bf16 units, 2-3x faster, probabilities within ~0.02; else fp32)",
                                choices=DTYPES, none="auto"),
                "max_windows": windows_option(),
                "max_references": Option("int", MAX_REFERENCES, "positive references read at most: those with the "
                                         "largest token recall in the target", min=1, max=64, signed=False),
                "max_negatives": Option("int", MAX_NEGATIVES, "negative references read at most (the first ones)",
                                        min=0, max=64, signed=False)}

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        # the precision that runs, named here for the signature and `bench`; fp32 as None, as other metrics
        dtype = self.options["dtype"] or default_dtype(self.options["device"])
        self.options["dtype"] = None if dtype == "fp32" else dtype

    def _model(self) -> Path:
        """The model file: the option's, else the shipped card."""
        return Path(self.options["model"]) if self.options["model"] else DEFAULT_MODEL

    def _ava(self) -> Metric:
        """The `ava` metric that reads each reference, built once per `square` object (its model is shared)."""
        if self._ava_metric is None:
            from qascore.metrics.registry import load  # the registry, not the package API above the metrics

            self._ava_metric = load("ava", batch_size=self.options["batch_size"], dtype=self.options["dtype"],
                                    device=self.options["device"], max_windows=self.options["max_windows"])
        return self._ava_metric

    def _pooled(self) -> bool:
        return self._model().suffix == ".json"

    def validate(self, records: Sequence[Record]) -> None:
        super().validate(records)
        path = self._model()
        if not path.is_file():
            raise FileNotFoundError(f"square: model file {path} not found")
        layout = "pooled" if self._pooled() else read_meta(path)["spec"]["layout"]
        for rec in records:
            if layout != "qt" and not [t for t in (*rec.references, *rec.negatives) if not blank(t)]:
                raise InputError("needs at least one reference or negative (both are empty)",
                                 source=rec.source, line=rec.line, field="references")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        # a blank reference or negative (`blank`: nothing visible) would be read as one: left out
        records = [replace(r, references=[t for t in r.references if not blank(t)],
                           negatives=[t for t in r.negatives if not blank(t)]) for r in records]
        return self._score_pooled(records) if self._pooled() else self._score_single(records)

    def _score_pooled(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        """Each kept reference read by `ava` on its own; the head pools the reads of each record."""
        from qascore.runtime.ava_layouts import installed_ava

        card = read_card(str(self._model()))
        if card.get("ava_model") != installed_ava():
            raise ValueError(f"square: the card {self._model()} was fitted on {card.get('ava_model')}, but the "
                             f"installed verifier is {installed_ava()}; refit it with `qascore-lab train square-head`")
        k, m = int(self.options["max_references"]), int(self.options["max_negatives"])
        reads, windows, unread = verifier_reads(records, k, m, self._ava())
        capped = [len(r.references) > k or len(r.negatives) > m for r in records]
        probs = [pooled_probability(card, pooled_features(*r)) for r in reads]
        thr = float(card["threshold"])
        details: dict[str, Any] = {"correct": [p >= thr for p in probs], "windows": windows,
                                   "positive": [round(1 / (1 + math.exp(-np.mean(p))), 4) if p else None
                                                for p, _ in reads],
                                   "negative": [round(1 / (1 + math.exp(-max(n))), 4) if n else None for _, n in reads],
                                   long_inputs.TRUNCATED: long_inputs.flags_detail([a or b for a, b in zip(capped, unread)])}
        long_inputs.report(self.name, records, capped, f"at most {k} positive and {m} negative references, each read "
                           f"by ava")
        return probs, details

    def _score_single(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        """The paper's single input over the question, the target and every kept reference."""
        ver = load_verifier(str(self._model()), self.options["device"])
        k = int(self.options["max_references"])
        capped = [replace(r, references=best_references(r.candidate, r.references, k)) for r in records]
        probs, windows, cut = windowed_predict(ver, capped,
                                               reference=lambda r: " ".join([*r.references, *r.negatives]),
                                               batch_size=int(self.options["batch_size"]),
                                               dtype=self.options["dtype"], desc=self.name,
                                               max_windows=int(self.options["max_windows"]))
        cut = [c or len(r.references) > k for c, r in zip(cut, records)]  # left-out references were not read
        details: dict[str, Any] = {"correct": [bool(p >= ver.threshold) for p in probs], "windows": windows,
                                   long_inputs.TRUNCATED: long_inputs.flags_detail(cut)}
        long_inputs.report(self.name, records, cut, window_rule(ver.spec.max_len, self.options["max_windows"])
                           + f", at most {k} positive references")
        return [float(p) for p in probs], details

    def decision_threshold(self) -> float | None:
        """The threshold stored with the model, which `details.correct` applies (square has no option for it)."""
        path = self._model()
        if not path.is_file():
            return None
        return float(read_card(str(path))["threshold"]) if self._pooled() else \
            float(read_meta(path).get("threshold", 0.5))

    def signature_fields(self) -> dict[str, Any]:
        from qascore.runtime.encoder import model_id

        path = self._model()
        fields: dict[str, Any] = {"model": f"{path.stem}@{file_sha256(path) if path.is_file() else 'missing'}"}
        if self._pooled():
            card = read_card(str(path)) if path.is_file() else {}
            fields.update(ava=card.get("ava_model", "?"), layout="pooled",
                          negs=int(self.options["max_negatives"]))
        else:
            meta = read_meta(path) if path.is_file() else {}
            spec = meta.get("spec", {})
            fields.update(base=model_id(spec.get("encoder", defaults.ENCODER)), layout=spec.get("layout", "?"),
                          max_len=spec.get("max_len", "?"), **temperature_field(meta))
        return {**fields, "windows": int(self.options["max_windows"]), "refs": int(self.options["max_references"]),
                **dtype_field(self.options["dtype"])}
