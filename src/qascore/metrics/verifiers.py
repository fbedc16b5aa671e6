"""AVA as a metric: P(candidate correct | question, reference), per reference, aggregated.

`ava` loads the shipped verifier (resources/ava/ava.safetensors); `model=PATH`
loads any delta written by `qascore-lab train ava`. A search-query-style question
("who wrote hamlet") is read with its question mark (`answer_match.as_question`).
Each reference is judged separately and the probabilities are combined by
`aggregate` (mean, as the AVA paper does for several references in its
system-wise evaluation, or max). `details.correct` is 1 where the aggregated
probability reaches the model's dev-tuned threshold (the point-wise AVA
decision); the corpus score is the mean probability and `details` also carries
the estimated accuracy via `correct`. A candidate longer than the model's
max_len (a paragraph answer) is read in overlapping windows (`runtime.windows`,
at most `max_windows`) and its most confident window counts;
`details.windows` says how many were read, `details.truncated` whether some of
the record's text lay beyond what was read.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
import torch

from qascore.metrics import long_inputs
from qascore.metrics.base import Metric, aggregate
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option, max_references_option
from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.ava_layouts import AVA_DIR, load_verifier
from qascore.runtime.delta import file_sha256
from qascore.runtime.encoder import DTYPES, pick_dtype
from qascore.text import answer_match as am


class AVA(Metric):
    name: ClassVar[str] = "ava"
    requires: ClassVar[tuple[str, ...]] = ("question", "candidate", "references")
    description: ClassVar[str] = ("AVA verifier A1((r, q∘t)), MiniLM-L6 with LoRA on every layer, trained on the "
                                  "verification corpus (AE pairs, SQuAD, WikiQA, SelQA, TREC-QA, EVOUNA-TQ LLM answers): "
                                  "P(candidate correct | question, reference); long candidates in windows")
    resource: ClassVar[str] = "ava.safetensors"
    needs_reference_text: ClassVar[bool] = True
    refuses_many_references: ClassVar[bool] = True

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"aggregate": Option("choice", "mean", "several references: mean or max probability",
                                    choices=("mean", "max")),
                "batch_size": Option("int", defaults.VERIFIER_BATCH, "pairs per model batch", min=1, signed=False),
                "model": Option("str", None, "verifier delta written by `qascore-lab train ava`", none="shipped"),
                "threshold": Option("float", None, "P(correct) at which `correct` is true", min=0.0, max=1.0,
                                    none="stored"),
                "device": device_option(), "dtype": dtype_option(*VERIFIER_DTYPE), "max_windows": windows_option(),
                "max_references": max_references_option()}

    def _path(self) -> Path:
        p = Path(self.options["model"]) if self.options["model"] else AVA_DIR / self.resource
        if not p.exists():
            raise FileNotFoundError(f"{self.name}: model file {p} not found (train one with `qascore-lab train ava`)")
        return p

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        ver = load_verifier(self._path(), self.options["device"])
        # a search-query-style question is read with its question mark (`as_question`): the verifier was trained
        # mostly on questions that end in one (WikiQA dev AUROC 0.692 -> 0.738 with it; docs/ava.md)
        flat = [Record(question=am.as_question(rec.question), candidate=rec.candidate, references=[ref])
                for rec in records for ref in rec.references]
        owner = [i for i, rec in enumerate(records) for _ in rec.references]
        decided: list[int] = []
        probs, windows, unread = windowed_predict(ver, flat, reference=lambda r: r.references[0],
                                                  batch_size=int(self.options["batch_size"]),
                                                  dtype=self.options["dtype"], desc=self.name,
                                                  max_windows=int(self.options["max_windows"]), best_window=decided)
        per: list[list[dict[str, float]]] = [[] for _ in records]
        rows_of: list[list[int]] = [[] for _ in records]  # each record's rows of `flat`, one per reference
        read = [0] * len(records)
        truncated = [False] * len(records)
        for k, i in enumerate(owner):
            per[i].append({"ava": float(probs[k])})
            rows_of[i].append(k)
            read[i] = max(read[i], windows[k])
            truncated[i] = truncated[i] or unread[k]
        thr = self.options["threshold"]
        thr = float(ver.threshold if thr is None else thr)
        main = [aggregate(p, "ava", self.options["aggregate"])["ava"] for p in per]
        details: dict[str, Any] = {"ava": main, "correct": [bool(m >= thr) for m in main], "windows": read,
                                   long_inputs.TRUNCATED: long_inputs.flags_detail(truncated)}
        if self.options["aggregate"] == "max":  # which reference and which of its windows decided (0-based)
            best = [int(np.argmax(probs[ks])) if ks else -1 for ks in rows_of]  # the first best, as `aggregate`
            details["reference"] = best
            details["window"] = [decided[ks[b]] if b >= 0 else -1 for ks, b in zip(rows_of, best)]
        long_inputs.report(self.name, records, truncated, window_rule(ver.spec.max_len, self.options["max_windows"]))
        return main, details

    def signature_fields(self) -> dict[str, Any]:
        from qascore.runtime.delta import read_meta
        from qascore.runtime.encoder import model_id

        path = self._path()
        meta = read_meta(path)
        thr = self.options["threshold"]
        return {"model": f"{path.stem}@{file_sha256(path)}", "base": model_id(meta["spec"]["encoder"]),
                "layout": meta["spec"]["layout"], "max_len": meta["spec"]["max_len"],
                "threshold": f"{meta.get('threshold', 0.5) if thr is None else thr:.4f}", **temperature_field(meta),
                "question": "as-question",
                "windows": int(self.options["max_windows"]), **dtype_field(self.options["dtype"])}


def windowed_predict(ver: Any, records: Sequence[Record], *, reference: Any, batch_size: int, dtype: str | None,
                     desc: str, max_windows: int, best_window: list[int] | None = None
                     ) -> tuple[np.ndarray, list[int], list[bool]]:
    """P(correct) of each record, a long candidate read in overlapping windows (`runtime.windows`) and its
    most confident window kept; also the windows read and whether some text stayed unread (beyond the
    last window, or a reference cut to fit beside the question and a window). A candidate with no WordPiece
    the model knows has no window (`candidate_windows`): 0.0, no windows read. `best_window`, when given,
    gets each record's deciding window (0-based; -1 where none was read), so a decision can be explained."""
    from qascore.progress import progress
    from qascore.runtime.windows import candidate_windows

    flat: list[Record] = []
    owner: list[int] = []
    windows: list[int] = []
    unread: list[bool] = []
    for i, rec in enumerate(records):
        parts, cut = candidate_windows(ver.tokenizer, rec.question, reference(rec), rec.candidate, ver.spec.max_len,
                                       max_windows)
        flat.extend(replace(rec, candidate=w) for w in parts)
        owner.extend([i] * len(parts))
        windows.append(len(parts))
        unread.append(cut)
    probs = np.zeros(len(flat))
    trimmed: list[bool] = []
    chunk = 256
    for start in progress(range(0, len(flat), chunk), total=(len(flat) + chunk - 1) // chunk, desc=desc,
                          min_total=4):
        probs[start:start + chunk] = ver.predict(flat[start:start + chunk], batch_size=batch_size, dtype=dtype,
                                                 truncated=trimmed)
    best = np.zeros(len(records))
    if flat:
        np.maximum.at(best, np.asarray(owner, dtype=int), probs)
        for k in np.flatnonzero(trimmed):
            unread[owner[k]] = True
    if best_window is not None:
        first = np.cumsum([0] + windows[:-1])
        best_window.extend(int(np.argmax(probs[f:f + w])) if w else -1 for f, w in zip(first, windows))
    return best, windows, unread


def windows_option() -> Option:
    """How many overlapping windows of a long candidate a verifier reads (1: the first, cut to fit)."""
    return Option("int", 16, "windows of a long candidate read at most (1: the first window only)", min=1,
                  max=64, signed=False)


def window_rule(max_len: int, max_windows: int) -> str:
    """What a windowed verifier reads, for the long-input report."""
    return f"{max_len} WordPieces per input, the candidate in at most {int(max_windows)} overlapping windows"


# what a verifier's dtype option says: ava and square
VERIFIER_DTYPE = ("the verifier's forward pass", "probabilities within ~0.02")


def dtype_option(models: str = "its models' forward passes", moves: str = "scores move slightly",
                 extra: tuple[str, ...] = ()) -> Option:
    """The model metrics' precision option: exact fp32 unless bf16 is asked for (speed, scores move slightly);
    `extra`: precisions beyond `DTYPES` a metric offers (the KPQA tagger's int8)."""
    return Option("choice", None, f"precision of {models} (bf16: autocast, 2-3x faster on CPUs with bf16 units, "
                  f"{moves})", choices=(*DTYPES, *extra), none="fp32")


def dtype_field(dtype: str | None) -> dict[str, str]:
    """Signature field for a non-default precision (none for fp32, so exact runs keep their signature)."""
    return {} if pick_dtype(dtype, "cpu") == torch.float32 else {"dtype": str(dtype)}


def temperature_field(meta: dict[str, Any]) -> dict[str, str]:
    """The calibration temperature a delta's probabilities use, for signatures; none for uncalibrated deltas."""
    t = float(meta.get("temperature", 1.0))
    return {} if t == 1.0 else {"temperature": f"{t:.3f}"}
