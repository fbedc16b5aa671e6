"""SQuArE (Gabburo et al.): P(candidate correct | question, positive and negative references).

One cross-encoder reads "Question: q Target: a Pos_Ref: c+ ... Neg_Ref: c- ..."
(`runtime.square_layouts.square_layout`): `references` are the positive
references, `negatives` the optional incorrect ones. The default model is
the delta trained here by `qascore-lab train verifier --model square` (MiniLM-L6
base, LoRA on every layer + head, on the verification corpus) and shipped in
resources/square/; see lab/results/square.md for how it was trained and how well it
does. A long target is read in overlapping windows (`runtime.windows`) and its
most confident window counts (`details.windows`); references that do not fit
beside the question and a window are cut evenly (`details.truncated`). Of a long
list of positive references (aliases) only the `max_references` with the largest
token recall in the target are read, a departure from the paper (whose records
hold a few references): every reference costs a marker the input never trims.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from qascore.metrics import long_inputs
from qascore.metrics.base import Metric, blank
from qascore.metrics.options import Option
from qascore.metrics.device_options import device_option
from qascore.metrics.verifiers import (VERIFIER_DTYPE, dtype_field, dtype_option, temperature_field, window_rule,
                                      windowed_predict, windows_option)
from qascore.records import InputError, Record
from qascore.runtime import defaults
from qascore.runtime.delta import file_sha256, read_meta
from qascore.text.answer_match import best_references

DEFAULT_MODEL = defaults.RESOURCES / "square" / "square.safetensors"
# Every positive reference gets its own never-trimmed "Pos_Ref:" marker: a dozen aliases fill the 128
# WordPieces with markers alone. Four is the judge's reference budget, not tuned for `square`.
MAX_REFERENCES = 4



def load_verifier(path: str | Path, device: str | None = None) -> Any:
    """The trained verifier at `path`, created once per process and device."""
    from qascore.runtime.square_layouts import layout_func
    from qascore.runtime.verifier import load_shared

    if not Path(path).is_file():
        raise FileNotFoundError(f"SQuArE model {path} not found; train one with `qascore-lab train square`")
    return load_shared(path, layout_func, device)


class Square(Metric):
    name = "square"
    requires = ("question", "candidate")
    description = "SQuArE: cross-encoder P(correct) given the question and several positive/negative references"

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"model": Option("str", None, "verifier delta written by `qascore-lab train square`", none="shipped"),
                "batch_size": Option("int", defaults.VERIFIER_BATCH, "inputs per model batch", min=1, signed=False),
                "device": device_option(), "dtype": dtype_option(*VERIFIER_DTYPE), "max_windows": windows_option(),
                "max_references": Option("int", MAX_REFERENCES, "positive references read at most: those with the "
                                         "largest token recall in the target (an alias list overflows the input)",
                                         min=1, signed=False)}

    def _model(self) -> Path:
        """The verifier delta: the option's file, else the shipped one."""
        return Path(self.options["model"]) if self.options["model"] else DEFAULT_MODEL

    def validate(self, records: Sequence[Record]) -> None:
        super().validate(records)
        layout = read_meta(self._model())["spec"]["layout"] if self._model().is_file() else ""
        for rec in records:
            if layout != "qt" and not [t for t in (*rec.references, *rec.negatives) if not blank(t)]:
                raise InputError("needs at least one reference or negative (both are empty)",
                                 source=rec.source, line=rec.line, field="references")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        ver = load_verifier(str(self._model()), self.options["device"])
        k = int(self.options["max_references"])
        # a blank reference or negative (`blank`: nothing visible) would be read as one: left out
        records = [replace(r, references=[t for t in r.references if not blank(t)],
                           negatives=[t for t in r.negatives if not blank(t)]) for r in records]
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
        """The threshold stored with the verifier, which `details.correct` applies (square has no option for
        it, and its signature does not name it)."""
        path = self._model()
        return float(read_meta(path).get("threshold", 0.5)) if path.is_file() else None

    def signature_fields(self) -> dict[str, Any]:
        from qascore.runtime.encoder import model_id

        path = self._model()
        meta = read_meta(path) if path.is_file() else {}
        spec = meta.get("spec", {})
        return {"model": f"{path.stem}@{file_sha256(path) if path.is_file() else 'missing'}",
                "base": model_id(spec.get("encoder", defaults.ENCODER)),
                "layout": spec.get("layout", "?"), "max_len": spec.get("max_len", "?"), **temperature_field(meta),
                "windows": int(self.options["max_windows"]), "refs": int(self.options["max_references"]),
                **dtype_field(self.options["dtype"])}
