"""BERTScore (Zhang et al., ICLR 2020): greedy cosine matching of contextual token embeddings.

Each candidate token is matched to its most similar reference token (precision)
and each reference token to its most similar candidate token (recall), by the
cosine of one encoder layer's hidden states; F is their harmonic mean. Token
importance comes from one TokenWeighter: uniform (default), IDF over the
references being scored (`idf=True`, as bert_score), or any other weighter
(`weights=`, e.g. KPQA's keyphrase weights), candidate weights for P and
reference weights for R.

Conventions kept identical to the `bert_score` package (tests check 1e-4
agreement): [CLS]/[SEP] take part in the matching but weigh 0; a candidate
or reference without content tokens scores P = R = F = 0; IDF documents are
the references as given (one per candidate-reference pair); rescaling is
(x - b) / (1 - b) with b the mean score of random sentence pairs.
"""

from __future__ import annotations

import csv
import math
import json
import os
import warnings
from itertools import islice
from pathlib import Path
from typing import Any, ClassVar, Iterable, Iterator, Sequence

import numpy as np
import torch

from qascore.metrics.base import AGGREGATIONS, Metric, MetricResult, aggregate, join_signature, version_fields
from qascore.metrics import long_inputs
from qascore.metrics.device_options import device_option
from qascore.metrics.options import WEIGHTS_OPTION, Option, OptionError, max_references_option
from qascore.records import Record, as_records
from qascore.runtime import defaults
from qascore.runtime.encoder import DTYPES, Encoded, Encoder, TruncationWarning, get_encoder
from qascore.weights.base import TokenWeighter, UniformWeighter
from qascore.weights.idf import IdfWeighter

# Default layer per model spec. MiniLM-L6: layer 6, the best Pearson with MS-MARCO human judgments
# (without IDF; also with IDF) among layers 0-6; `qascore-lab bench bertscore-layers`, lab/results/bertscore.md.
DEFAULT_LAYERS: dict[str, int] = {defaults.ENCODER: 6}
BASELINES = defaults.RESOURCES / "bertscore"
PARTS = ("P", "R", "F")  # column names of a baseline CSV (bert_score's layout)
DETAILS = ("p", "r", "f")  # names of the parts in results, as every other metric with P/R/F
_MATCH_CHUNK = 256  # candidate-reference pairs per batched similarity computation


def default_layer(spec: str, num_layers: int) -> int:
    """The documented layer for known models, else the last layer."""
    return DEFAULT_LAYERS.get(spec, num_layers)


class BertScore(Metric):
    name = "bertscore"
    requires: ClassVar[tuple[str, ...]] = ("candidate", "references")
    description = "BERTScore F (greedy cosine matching of encoder token states; P/R/F in details)"
    refuses_many_references: ClassVar[bool] = True

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {
            "model": Option("str", defaults.ENCODER, "encoder: package spec, local directory or Hugging Face id"),
            "layer": Option("int", None, "encoder layer whose states are matched (0 = embeddings)", min=0,
                            none="auto"),
            "idf": Option("bool", False, "weigh tokens by IDF over the references being scored"),
            "weights": WEIGHTS_OPTION,
            "rescale": Option("bool", False, "rescale with the baseline of random pairs: (x - b) / (1 - b)"),
            "baseline": Option("str", None, "baseline CSV for rescale (LAYER,P,R,F)", none="shipped"),
            "agg": Option("choice", "max", "several references: best (max) or mean", choices=AGGREGATIONS),
            "batch_size": Option("int", 64, "texts per encoder batch", min=1, signed=False),
            "max_references": max_references_option(),
            "device": device_option(),
            "dtype": Option("choice", None, "encoder precision", choices=DTYPES, none="fp32"),
        }

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        o = self.options
        if o.get("weights") is not None and not isinstance(o["weights"], TokenWeighter):
            raise TypeError(f"{self.name}: weights must be a qascore.weights.TokenWeighter "
                            f"(use idf=true for IDF, or the kpqa-bertscore metric for keyphrase weights)")
        if o.get("weights") is not None and o.get("idf"):
            raise ValueError(f"{self.name}: give either idf=true or weights=..., not both")
        layers = defaults.config_layers(o["model"]) if o["layer"] is not None else None
        if layers is not None and o["layer"] > layers:  # checked now, before any input is read (issue 42)
            raise OptionError(self.name, "layer", o["layer"], f"expected an integer in 0..{layers} ({o['model']} has "
                                                              f"{layers} layers)")
        self._encoder: Encoder | None = None
        self._baseline: dict[int, np.ndarray] | None = None
        if o["baseline"]:  # a file that is not a baseline: said now, naming it, before any input is read
            if os.path.exists(o["baseline"]) and not os.path.isfile(o["baseline"]):  # a FIFO would block
                raise OptionError(self.name, "baseline", o["baseline"], f"{o['baseline']}: is not a regular file; "
                                                                        f"expected a CSV LAYER,P,R,F")
            try:
                self._baseline = read_baseline(o["baseline"])
            except OSError as err:
                raise OptionError(self.name, "baseline", o["baseline"],
                                  f"{o['baseline']}: cannot be read ({err.strerror or err})") from None
            except ValueError as err:
                raise OptionError(self.name, "baseline", o["baseline"], str(err)) from None
        self._corpus_idf: IdfWeighter | None = None  # two-pass scoring: IDF fitted on the whole file

    # -- model ----------------------------------------------------------
    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            o = self.options
            self._encoder = get_encoder(o["model"], batch_size=o["batch_size"], device=o["device"], dtype=o["dtype"])
        return self._encoder

    @property
    def layer(self) -> int:
        enc = self.encoder
        layer = self.options["layer"]
        return enc.check_layer(default_layer(self.options["model"], enc.num_layers) if layer is None else layer)

    # -- weighting ------------------------------------------------------
    def weighter(self, records: Sequence[Record], ref_tokens: Sequence[Sequence[str]]) -> TokenWeighter:
        """The TokenWeighter for this call; IDF is fitted on the references of the call."""
        if self.options.get("weights") is not None:
            return self.options["weights"]
        if self.options.get("idf"):
            return self._corpus_idf or IdfWeighter.from_documents(ref_tokens)
        return UniformWeighter()

    def weights_name(self) -> str:
        w = self.options.get("weights")
        return w.signature() if w is not None else ("idf" if self.options.get("idf") else "uniform")

    def _idf_from_call(self) -> bool:
        return bool(self.options.get("idf")) and self.options.get("weights") is None and self._corpus_idf is None

    def _ref_documents(self, refs: Iterable[str], chunk: int = 1024) -> Iterator[list[str]]:
        """IDF documents: the content WordPieces of each reference, tokenised `chunk` at a time."""
        it = iter(refs)
        while batch := list(islice(it, chunk)):
            yield from ([t.tokens[k] for k in t.content()] for t in self.encoder.tokenize(batch, warn=False))

    def corpus_dependence(self) -> str | None:
        if self.options.get("idf") and self.options.get("weights") is None:
            return "bertscore:idf=true fits IDF on the references of every record"
        return None

    def fit_corpus(self, records: Iterable[Record]) -> IdfWeighter:
        """IDF over every reference of the file, one pass, tokeniser only (no forward pass)."""
        return IdfWeighter.from_documents(self._ref_documents(r for rec in records for r in rec.references))

    def use_corpus(self, state: IdfWeighter) -> None:
        self._corpus_idf = state

    # -- scoring --------------------------------------------------------
    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        details = self._score_layers(records, [self.layer], chunk=None)[self.layer]
        return details["f"], details

    def score_layers(self, examples: Sequence[Record | dict], layers: Sequence[int], *, chunk: int = 512
                     ) -> dict[int, MetricResult]:
        """Scores at several layers from one encoder pass per chunk (for choosing a layer).

        The signature of each result names its layer. Records are encoded
        `chunk` at a time so all-layer states of a large set never sit in memory at once.
        """
        records = as_records(examples)
        self.validate(records)
        layers = [self.encoder.check_layer(x) for x in layers]
        out = {}
        for layer, details in self._score_layers(records, layers, chunk=chunk).items():
            sig = self.signature.replace(f"|layer:{self.layer}|", f"|layer:{layer}|")
            out[layer] = MetricResult(self.name, details["f"], float(np.mean(details["f"])) if records else 0.0,
                                      sig, details)
        return out

    def _score_layers(self, records: Sequence[Record], layers: list[int], chunk: int | None
                      ) -> dict[int, dict[str, list[float]]]:
        pairs = [(i, r) for i, rec in enumerate(records) for r in range(len(rec.references))]
        refs = [records[i].references[r] for i, r in pairs]
        if self._idf_from_call():  # IDF needs every reference first
            ref_tokens = list(self._ref_documents(refs))
        else:
            ref_tokens = []
        weighter = self.weighter(records, ref_tokens)
        prf: dict[int, list[Any]] = {layer: [] for layer in layers}  # per pair, in pair order
        truncated = self.cut_before_reading(records)
        step = chunk or len(records) or 1
        for s in range(0, len(records), step):
            sub = [(i, r) for i, r in pairs if s <= i < s + step]
            cands = [records[i].candidate for i in range(s, min(s + step, len(records)))]
            sub_refs = [records[i].references[r] for i, r in sub]
            with warnings.catch_warnings():  # reported once below, per record, with ids
                warnings.simplefilter("ignore", TruncationWarning)
                if len(layers) == 1:
                    encoded = self.encoder.embed(cands + sub_refs, layer=layers[0])
                else:
                    encoded = self.encoder.embed(cands + sub_refs, all_layers=True)
            enc_c, enc_r = encoded[: len(cands)], encoded[len(cands):]
            c_of_pair = [enc_c[i - s] for i, _ in sub]
            w_c = self._weigh(weighter, [(records[i].question, e) for (i, _), e in zip(sub, c_of_pair)])
            w_r = self._weigh(weighter, [(records[i].question, e) for (i, _), e in zip(sub, enc_r)])
            for (i, _), c, r in zip(sub, c_of_pair, enc_r):
                truncated[i] = truncated[i] or c.truncated or r.truncated
            for layer in layers:
                cc, rr = (c_of_pair, enc_r) if len(layers) == 1 else (_at(c_of_pair, layer), _at(enc_r, layer))
                prf[layer].extend(greedy_match(cc, rr, w_c, w_r))
        long_inputs.report(self.name, records, truncated, self.reading_rule())
        return {layer: self._finish(records, pairs, prf[layer], layer, truncated) for layer in layers}

    def cut_before_reading(self, records: Sequence[Record]) -> list[bool]:
        """Records whose text was cut before the encoder (none here; a weighter's question, in kpqa-bertscore)."""
        return [False] * len(records)

    def reading_rule(self) -> str:
        """What the metric reads of each record, for its warning line (docs/long-inputs.md)."""
        return f"the first {self.encoder.max_length} tokens of each text"

    def _finish(self, records: Sequence[Record], pairs: list[tuple[int, int]], prf: list[tuple[float, float, float]],
                layer: int, truncated: list[bool]) -> dict[str, list[float]]:
        """Aggregate over references, rescale, and flag truncation."""
        per_record: list[list[dict[str, float]]] = [[] for _ in records]
        for (i, _), (p, r, f) in zip(pairs, prf):
            per_record[i].append({"p": p, "r": r, "f": f})
        base = self.baseline(layer) if self.options["rescale"] else None
        details: dict[str, list[float]] = {k: [] for k in DETAILS}
        for parts in per_record:
            agg = aggregate(parts, "f", self.options["agg"])
            for j, k in enumerate(DETAILS):
                v = agg[k]
                details[k].append((v - base[j]) / (1 - base[j]) if base is not None else v)
        details[long_inputs.TRUNCATED] = long_inputs.flags_detail(truncated)  # type: ignore[assignment]
        return details

    def _weigh(self, weighter: TokenWeighter, items: list[tuple[str, Encoded]]) -> list[np.ndarray]:
        """Weights of every token (0 for special tokens), each distinct (question, text) weighed once."""
        keys = [(q, e.text) for q, e in items]
        unique = list(dict.fromkeys(keys))
        first = {k: e for k, (_, e) in zip(keys, items)}
        got = weighter.weigh_many([(q, [first[(q, t)].tokens[k] for k in first[(q, t)].content()])
                                   for q, t in unique])
        full: dict[tuple[str, Any], np.ndarray] = {}
        for key, w in zip(unique, got):
            e = first[key]
            pos = e.content()
            w = np.asarray(w, dtype=np.float64)
            if w.shape != (len(pos),):
                raise ValueError(f"{weighter.signature()} returned {w.shape[0]} weights for {len(pos)} tokens")
            out = np.zeros(len(e.ids), dtype=np.float64)
            out[pos] = w
            full[key] = out
        return [full[k] for k in keys]

    # -- rescaling ------------------------------------------------------
    def baseline_path(self) -> Path:
        if self.options["baseline"]:
            return Path(self.options["baseline"])
        return BASELINES / f"{self.encoder.model_id}.csv"

    def baseline(self, layer: int | None = None) -> np.ndarray:
        """b for P, R, F at `layer` (default: this metric's layer)."""
        layer = self.layer if layer is None else layer
        if self._baseline is None:
            path = self.baseline_path()
            if not path.is_file():
                raise FileNotFoundError(
                    f"no BERTScore baseline for {self.encoder.model_id} at {path}; make one with "
                    f"`qascore-lab train bertscore-baseline --model {self.options['model']}` or pass baseline=<file>")
            self._baseline = read_baseline(path)
        if layer not in self._baseline:
            raise ValueError(f"baseline file {self.baseline_path()} has no row for layer {layer}")
        return self._baseline[layer]

    # -- signature ------------------------------------------------------
    def signature_fields(self) -> dict[str, Any]:
        o = self.options
        resc = self.baseline_path().name if o["rescale"] else False
        return {"model": self.encoder.model_id, "layer": self.layer, "weights": self.weights_name(),
                "rescale": resc, "agg": o["agg"], "dtype": str(self.encoder.dtype).replace("torch.", ""),
                "tokenizer": "wordpiece" if "bert" in type(self.encoder.tokenizer).__name__.lower()
                else type(self.encoder.tokenizer).__name__}

    @property
    def signature(self) -> str:
        return join_signature({"metric": self.name, **self.signature_fields(), **version_fields()})


def greedy_match(cands: Sequence[Encoded], refs: Sequence[Encoded], w_c: Sequence[np.ndarray],
                 w_r: Sequence[np.ndarray]) -> list[tuple[float, float, float]]:
    """P, R, F of each (candidate, reference) pair from unit-normalised token vectors.

    Padded positions never win a max (their similarity is -inf), unlike
    bert_score, whose zero-filled padding can lift a negative maximum to 0
    (only possible when every similarity of a token is negative).
    """
    if not cands:
        return []
    device = cands[0].hidden.device
    unit: dict[int, torch.Tensor] = {}

    def norm(e: Encoded) -> torch.Tensor:
        key = id(e)
        if key not in unit:
            unit[key] = torch.nn.functional.normalize(e.hidden.float(), dim=-1)
        return unit[key]

    out: list[tuple[float, float, float]] = []
    with torch.inference_mode():
        for s in range(0, len(cands), _MATCH_CHUNK):
            cc, rr = cands[s: s + _MATCH_CHUNK], refs[s: s + _MATCH_CHUNK]
            h = torch.nn.utils.rnn.pad_sequence([norm(e) for e in cc], batch_first=True)
            r = torch.nn.utils.rnn.pad_sequence([norm(e) for e in rr], batch_first=True)
            wh = _pad_weights(w_c[s: s + _MATCH_CHUNK], h.shape[1], device)
            wr = _pad_weights(w_r[s: s + _MATCH_CHUNK], r.shape[1], device)
            mh = _mask([len(e.ids) for e in cc], h.shape[1], device)
            mr = _mask([len(e.ids) for e in rr], r.shape[1], device)
            ch, cr = _content(cc, h.shape[1], device), _content(rr, r.shape[1], device)
            sim = torch.bmm(h, r.transpose(1, 2))
            sim = sim.masked_fill(~(mh[:, :, None] & mr[:, None, :]), float("-inf"))
            best_c = sim.max(dim=2).values.masked_fill(~mh, 0.0)  # each candidate token's best match
            best_r = sim.max(dim=1).values.masked_fill(~mr, 0.0)
            p = _weighted_mean(best_c, wh, ch)
            r_ = _weighted_mean(best_r, wr, cr)
            f = torch.where(p + r_ != 0, 2 * p * r_ / (p + r_), torch.zeros_like(p))
            empty = ~ch.any(1) | ~cr.any(1)  # no content tokens: 0, as bert_score
            p, r_, f = (x.masked_fill(empty, 0.0) for x in (p, r_, f))
            out.extend(zip(p.tolist(), r_.tolist(), f.tolist()))
    return out


def _at(items: Sequence[Encoded], layer: int) -> list[Encoded]:
    """Views of all-layer results holding one layer's states as `hidden` (same object for duplicates)."""
    seen: dict[int, Encoded] = {}
    out = []
    for e in items:
        if id(e) not in seen:
            seen[id(e)] = Encoded(e.text, e.ids, e.tokens, e.special, e.segments, e.truncated, e.length,
                                  hidden=e.layers[layer])  # type: ignore[index]
        out.append(seen[id(e)])
    return out


def _pad_weights(ws: Sequence[np.ndarray], width: int, device: Any) -> torch.Tensor:
    out = torch.zeros((len(ws), width), dtype=torch.float64)
    for j, w in enumerate(ws):
        out[j, : len(w)] = torch.from_numpy(np.asarray(w, dtype=np.float64))
    return out.to(device)


def _mask(lengths: list[int], width: int, device: Any) -> torch.Tensor:
    return torch.arange(width, device=device)[None, :] < torch.tensor(lengths, device=device)[:, None]


def _content(items: Sequence[Encoded], width: int, device: Any) -> torch.Tensor:
    """True at non-special, non-padded positions."""
    out = torch.zeros((len(items), width), dtype=torch.bool)
    for j, e in enumerate(items):
        out[j, : len(e.special)] = ~torch.tensor(e.special, dtype=torch.bool)
    return out.to(device)


_ZERO_WEIGHT_WARNED = False


def _weighted_mean(best: torch.Tensor, w: torch.Tensor, content: torch.Tensor) -> torch.Tensor:
    """Sum of w * best / sum of w; where all content weights are 0, the plain mean over content tokens.

    bert_score returns NaN there (e.g. IDF fitted on a single reference gives
    every reference token weight 0); a uniform fallback keeps the score usable.
    """
    global _ZERO_WEIGHT_WARNED
    total = w.sum(1)
    zero = (total <= 0) & content.any(1)
    if bool(zero.any()):
        w = torch.where(zero[:, None], content.to(w.dtype), w)
        total = w.sum(1)
        if not _ZERO_WEIGHT_WARNED:
            warnings.warn("some texts had zero total token weight (e.g. IDF fitted on one reference); "
                          "their tokens were weighted uniformly", RuntimeWarning, stacklevel=3)
            _ZERO_WEIGHT_WARNED = True
    return (best.double() * w).sum(1) / total.clamp_min(1e-300)


# ---------------------------------------------------------------------------
# Baselines for rescaling
# ---------------------------------------------------------------------------

def read_baseline(path: str | Path) -> dict[int, np.ndarray]:
    """A baseline file: CSV with header LAYER,P,R,F (bert_score's layout), one row per layer.

    A file that is not one is a ValueError naming it and the line: not UTF-8 text, no such columns, a value
    that is not a number, or b that is not finite or not below 1 (rescaling divides by 1 - b)."""
    out: dict[int, np.ndarray] = {}
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            header = reader.fieldnames or []
            if not {"LAYER", *PARTS} <= set(header):
                raise ValueError(f"{path}: not a BERTScore baseline (expected a CSV header LAYER,P,R,F; got "
                                 f"{','.join(header)[:80] or 'nothing'})")
            for row in reader:
                out[_layer_row(path, reader.line_num, row)] = _b_row(path, reader.line_num, row)
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a BERTScore baseline (byte 0x{err.object[err.start]:02x} is not UTF-8 "
                         f"text; expected a CSV LAYER,P,R,F)") from None
    except csv.Error as err:
        raise ValueError(f"{path}: not a BERTScore baseline ({err})") from None
    if not out:
        raise ValueError(f"{path}: a BERTScore baseline with no rows (expected LAYER,P,R,F, one row per layer)")
    return out


def _layer_row(path: str | Path, line: int, row: dict[str, Any]) -> int:
    try:
        return int(row["LAYER"])
    except (TypeError, ValueError):
        raise ValueError(f"{path}:{line}: LAYER is {row['LAYER']!r}, not a whole number") from None


def _b_row(path: str | Path, line: int, row: dict[str, Any]) -> np.ndarray:
    values = []
    for k in PARTS:
        try:
            b = float(row[k])
        except (TypeError, ValueError):
            raise ValueError(f"{path}:{line}: {k} is {row[k]!r}, not a number") from None
        if not math.isfinite(b) or b >= 1:
            raise ValueError(f"{path}:{line}: {k} is {row[k]}; a baseline b is a finite number below 1 "
                             f"(rescaling divides by 1 - b)")
        values.append(b)
    return np.array(values)


def write_baseline(path: str | Path, table: dict[int, Sequence[float]], meta: dict[str, Any]) -> None:
    """Write the CSV and, next to it, a JSON file saying how it was made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["LAYER", *PARTS])
        for layer in sorted(table):
            w.writerow([layer, *(f"{v:.6f}" for v in table[layer])])
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def compute_baseline(pairs: Sequence[tuple[str, str]], spec: str = defaults.ENCODER, *, batch_size: int = 64,
                     device: str | None = None, dtype: str | None = None) -> dict[int, list[float]]:
    """Mean unweighted P, R, F of unrelated (candidate, reference) pairs, for every layer."""
    from qascore.progress import progress

    enc = get_encoder(spec, batch_size=batch_size, device=device, dtype=dtype)
    sums = np.zeros((enc.num_layers + 1, 3))
    step = 512  # pairs per chunk: all-layer states of a chunk stay in memory, not of the whole set
    for s in progress(range(0, len(pairs), step), total=-(-len(pairs) // step), desc="baseline", min_total=2):
        chunk = pairs[s: s + step]
        n = len(chunk)
        encoded = enc.embed([a for a, _ in chunk] + [b for _, b in chunk], all_layers=True)
        w = [np.array([0.0 if sp else 1.0 for sp in e.special]) for e in encoded]
        for layer in range(enc.num_layers + 1):
            view = _at(encoded, layer)
            sums[layer] += np.array(greedy_match(view[:n], view[n:], w[:n], w[n:])).sum(axis=0)
    return {layer: (sums[layer] / len(pairs)).tolist() for layer in range(enc.num_layers + 1)}
