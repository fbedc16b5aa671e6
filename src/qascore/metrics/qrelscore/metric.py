"""The QRelScore metrics: `qrelscore`, `qrelscore-lrm`, `qrelscore-grg`, `ref-qrelscore`.

Input decisions (tested): an empty or blank candidate scores 0 on every part
(a system that generated nothing asked nothing relevant; raising would break
reward loops); an empty context, or an empty reference for ref-qrelscore, is
an InputError naming the line and field, since no score means anything then.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar, Sequence

import numpy as np

from qascore.metrics import long_inputs
from qascore.metrics.base import Metric, blank
from qascore.metrics.qrelscore import rescale
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option, OptionError, max_references_option
from qascore.metrics.qrelscore.engine import MAX_CONTEXT, Engine, QuestionTooLong
from qascore.metrics.qrelscore.grg import GAINS
from qascore.metrics.qrelscore.lrm import AGGS, WEIGHTINGS, check_layers, select_layers
from qascore.records import InputError, Record
from qascore.runtime import defaults
from qascore.runtime.encoder import DTYPES


def harmonic_mean(a: float, b: float) -> float:
    """Eq. 1 on parts clipped at 0 (a rescaled part can dip below 0); 0 when both are 0."""
    a, b = max(a, 0.0), max(b, 0.0)
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def _below_one(b: float) -> None:
    """A baseline rescales as (x - b) / (1 - b): b = 1 divides by zero, b > 1 turns the scale over."""
    if b >= 1:
        raise ValueError("expected a number < 1 (rescaling divides by 1 - b)")


class _QRel(Metric):
    requires: ClassVar[tuple[str, ...]] = ("candidate", "context")
    parts: tuple[str, ...] = ("lrm", "grg")

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {
            "encoder": Option("str", defaults.ENCODER, "LRM encoder (paper: bert-base-cased)", signed=False),
            "lm": Option("str", defaults.CAUSAL_LM, "GRG causal LM (paper: gpt2)", signed=False),
            "layers": Option("str", "all", "LRM layers: all, first, middle, last, specific, or indices "
                             "joined by + (0+3+7+11)", validate=check_layers),
            "agg": Option("choice", "max", "LRM token aggregation (paper: max)", choices=AGGS),
            "weighting": Option("choice", "attention", "LRM match weights: attention (eq. 4), argmax "
                                "(authors' code) or none", choices=WEIGHTINGS),
            "p": Option("float", 1.0, "power-mean exponent over layers", min=-100.0, max=100.0),
            "gain": Option("choice", "relative", "GRG gain: relative (eq. 9) or absolute (M9)", choices=GAINS),
            "rescale": Option("bool", True, "rescale with the shipped baselines b_LRM / b_GRG"),
            "b_lrm": Option("float", None, "override the LRM baseline", none="shipped", validate=_below_one),
            "b_grg": Option("float", None, "override the GRG baseline", none="shipped", validate=_below_one),
            "device": device_option(),
            "lrm_max_length": Option("int", None, "LRM input limit in tokens", min=32, none="auto"),
            "grg_max_length": Option("int", None, "GRG input limit in tokens", min=32, none="auto"),
            "max_context": Option("int", MAX_CONTEXT, "passage tokens each model reads, in chunks (the rest is cut "
                                  "and flagged in details.truncated)", min=32, max=8192),
            "batch_tokens": Option("int", None, "LM batch size in padded tokens (auto: one sequence on CPU, "
                                   "2048 on GPU)", min=1, none="auto"),
            "dtype": Option("choice", None, "precision of both models (bf16: autocast)", choices=DTYPES,
                            none="fp32"),
        }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        self.engine = Engine(encoder=o["encoder"], lm=o["lm"], layers=o["layers"], agg=o["agg"],
                             weighting=o["weighting"], p=float(o["p"]), gain=o["gain"], device=o["device"],
                             lrm_max_length=o["lrm_max_length"], grg_max_length=o["grg_max_length"],
                             lm_max_tokens=None if o["batch_tokens"] is None else int(o["batch_tokens"]),
                             dtype=o["dtype"], max_context=int(o["max_context"]))
        self._b: dict[str, float | None] = {}
        layers = defaults.config_layers(o["encoder"])
        if layers is not None:  # a layer the encoder lacks: said now, before any input is read (issue 42)
            try:
                select_layers(o["layers"], layers)
            except ValueError as err:
                raise OptionError(self.name, "layers", o["layers"], f"{err} ({o['encoder']})") from None

    # -- baselines ---------------------------------------------------------
    def baseline(self, part: str) -> float | None:
        if part in self._b:
            return self._b[part]
        b = None
        if self.options["rescale"]:
            b = self.options[f"b_{part}"]
            if b is None:
                model, config = self._model_and_config(part)
                b = rescale.lookup(part, model, config)
                if b is None:
                    warnings.warn(f"{self.name}: no shipped b_{part.upper()} for {model} [{config}]; "
                                  f"scores are not rescaled (run `qascore-lab train qrel-baselines` or pass b_{part})",
                                  stacklevel=3)
        self._b[part] = None if b is None else float(b)
        return self._b[part]

    def _model_and_config(self, part: str) -> tuple[str, str]:
        if part == "lrm":
            from qascore.runtime.encoder import model_id

            return model_id(self.options["encoder"]), self.engine.lrm_config()
        from qascore.runtime.causal_lm import causal_lm_id

        return causal_lm_id(self.options["lm"]), self.engine.grg_config()

    def signature_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in self.parts:
            model, config = self._model_and_config(part)
            out[f"{part}_model"] = model
            b = self.baseline(part)
            out[f"b_{part}"] = "none" if b is None else f"{b:.4f}"
        from qascore.runtime.encoder import pick_dtype

        out["dtype"] = str(pick_dtype(self.options["dtype"], "cpu")).removeprefix("torch.")
        if self.options["batch_tokens"] is None:
            out["batch_tokens"] = "auto"
        return out

    # -- validation --------------------------------------------------------
    def validate(self, records: Sequence[Record]) -> None:
        super().validate(records)
        for rec in records:
            if blank(rec.context):
                raise InputError("is empty; QRelScore needs the passage the question was generated from",
                                 source=rec.source, line=rec.line, field="context")

    # -- scoring -----------------------------------------------------------
    def pair_parts(self, records: Sequence[Record], questions: Sequence[str], contexts: Sequence[str],
                   field: str = "candidate") -> dict[str, np.ndarray]:
        """Rescaled parts for pairs; blank questions score 0 without running a model."""
        n = len(questions)
        live = [i for i, q in enumerate(questions) if not blank(q)]
        out: dict[str, np.ndarray] = {}
        cut = np.zeros(n, dtype=bool)
        for part in self.parts:
            vals = np.zeros(n)
            raw = np.zeros(n)
            if live:
                fn = self.engine.lrm_raw if part == "lrm" else self.engine.grg_raw
                self.engine.cut = []
                try:
                    got = fn([questions[i] for i in live], [contexts[i] for i in live])
                except QuestionTooLong as err:
                    rec = records[live[err.index]]
                    raise InputError(str(err), source=rec.source, line=rec.line, field=field) from None
                raw[live] = got
                if self.engine.cut:  # the engine's flags for this call (an engine that cuts nothing leaves none)
                    cut[live] |= np.array(self.engine.cut, dtype=bool)
                b = self.baseline(part)
                vals[live] = [rescale.apply(x, b) for x in got]
            out[part] = vals
            out[f"{part}_raw"] = raw
        if len(self.parts) == 2:
            out["qrelscore"] = np.array([harmonic_mean(a, b) for a, b in zip(out["lrm"], out["grg"])])
        out[long_inputs.TRUNCATED] = cut
        return out

    def _flag(self, records: Sequence[Record], cut: np.ndarray) -> list[bool]:
        flags = long_inputs.flags_detail(cut.tolist())
        long_inputs.report(self.name, records, flags, f"the first {self.engine.max_context} tokens of each passage"
                           + (" and reference" if isinstance(self, RefQRelScore) else "") + ", in chunks")
        return flags

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        parts = self.pair_parts(records, [r.candidate for r in records], [r.context for r in records])
        main_key = "qrelscore" if len(self.parts) == 2 else self.parts[0]
        cut = parts.pop(long_inputs.TRUNCATED)
        details: dict[str, Any] = {k: v.tolist() for k, v in parts.items()}
        details[long_inputs.TRUNCATED] = self._flag(records, cut)
        return parts[main_key].tolist(), details


class QRelScore(_QRel):
    name = "qrelscore"
    description = "reference-free QG relevance: harmonic mean of LRM (BERT cross-attention matching) and GRG (LM prompt gain)"


class QRelLRM(_QRel):
    name = "qrelscore-lrm"
    description = "QRelScore's local relevance matching part alone (layer-wise attention-weighted token matching)"
    parts = ("lrm",)


class QRelGRG(_QRel):
    name = "qrelscore-grg"
    description = "QRelScore's global relevance generation part alone (relative LM confidence gain from the question prompt)"
    parts = ("grg",)


class RefQRelScore(_QRel):
    name = "ref-qrelscore"
    description = ("QRelScore with references: mean of QRelScore(candidate, context) and max over references of "
                   "QRelScore(candidate, reference)")
    requires = ("candidate", "context", "references")
    refuses_many_references = True  # each reference is a pass of both models (`max_references`)

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {**super().option_specs(), "max_references": max_references_option(16)}

    def validate(self, records: Sequence[Record]) -> None:
        super().validate(records)
        for rec in records:
            if any(blank(r) for r in rec.references):
                raise InputError("contains an empty reference", source=rec.source, line=rec.line, field="references")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        ctx = self.pair_parts(records, [r.candidate for r in records], [r.context for r in records])
        owner = [i for i, r in enumerate(records) for _ in r.references]
        refs = [ref for r in records for ref in r.references]
        by_ref = self.pair_parts([records[i] for i in owner], [records[i].candidate for i in owner], refs)
        best = np.full(len(records), -np.inf)
        for j, i in enumerate(owner):
            best[i] = max(best[i], by_ref["qrelscore"][j])
        main = 0.5 * (ctx["qrelscore"] + best)
        # its two halves only: the parts of each half are `qrelscore`'s details (score with it to see them)
        details: dict[str, Any] = {"qrelscore": ctx["qrelscore"].tolist(), "qrelscore_ref": best.tolist()}
        cut = ctx[long_inputs.TRUNCATED].copy()
        for j, i in enumerate(owner):
            cut[i] |= by_ref[long_inputs.TRUNCATED][j]
        details[long_inputs.TRUNCATED] = self._flag(records, cut)
        return main.tolist(), details
