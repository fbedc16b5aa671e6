"""Classic lexical metrics: SQuAD EM and token F1, COCO BLEU-1..4 and ROUGE-L.

BLEU and ROUGE-L follow pycocoevalcap exactly (per-sentence BLEU with its
1e-15/1e-9 smoothing and 'closest' brevity penalty; ROUGE-L with beta 1.2) on
COCO's PTB tokens (`qascore.text.ptb`). With `weights=` a TokenWeighter (for
example KPQA's keyphrase weights) precision uses the candidate's weights and
recall the reference's; the uniform weighter gives the classic numbers exactly.
Formulas: docs/lexical.md.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar, Sequence

from qascore.metrics.lcs import lcs_length, lcs_weights
from qascore.metrics.ngrams import bleu_sentence, bleu_sentence_weighted
from qascore.metrics.options import Option
from qascore.metrics.tokens import TokenMetric
from qascore.records import Record
from qascore.text import normalize_answer


# beta 1e155 squared overflows to inf and F became NaN (issue 42); at 1000, F is recall to 6 digits already.
MAX_BETA = 1000.0


def _prf(p: float, r: float, beta: float = 1.0) -> float:
    if p == 0 or r == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * p * r / (r + b2 * p)


def _collect(parts: list[dict[str, float]], main: str) -> tuple[list[float], dict[str, list[float]]]:
    keys = list(parts[0]) if parts else [main]
    return [p[main] for p in parts], {k: [p[k] for p in parts] for k in keys}


class ExactMatch(TokenMetric):
    """SQuAD exact match: 1 if the normalised candidate equals a normalised reference."""

    name = "em"
    scores_empty_candidates = True  # SQuAD v2's script: an empty answer to an empty reference is a match
    description = "SQuAD exact match after answer normalisation (max over references)"
    default_tokenizer = "squad"
    tokenizers = ("squad",)  # exact match is defined on SQuAD's answer normalisation only
    weighted = False
    main_part = "em"

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        parts = []
        for rec in records:
            c = normalize_answer(rec.candidate)
            parts.append(self.combine([{"em": float(c == normalize_answer(r))} for r in rec.references]))
        main, _ = _collect(parts, "em")
        return main, {}


class TokenF1(TokenMetric):
    """SQuAD token F1 (bag of normalised tokens), with P/R/F details."""

    name = "f1"
    scores_empty_candidates = True  # SQuAD v2's script: an empty answer to an empty reference scores 1
    description = "SQuAD token F1 (P/R/F) after answer normalisation (max over references)"
    default_tokenizer = "squad"
    main_part = "f"

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        tk = self.tokenized(records)
        refs_w = tk.refs_w or []  # set whenever cand_w is
        parts = []
        for i in range(len(records)):
            per_ref = []
            for j, ref in enumerate(tk.refs[i]):
                if tk.cand_w is None:
                    per_ref.append(_bag_f1(tk.cand[i], ref))
                else:
                    per_ref.append(_bag_f1_weighted(tk.cand[i], ref, tk.cand_w[i], refs_w[i][j]))
            parts.append(self.combine(per_ref))
        return _collect(parts, "f")


def _bag_f1(cand: list[str], ref: list[str]) -> dict[str, float]:
    """SQuAD's F1; when either side is empty the script scores 1 if both are, else 0."""
    if not cand or not ref:
        v = float(cand == ref)
        return {"p": v, "r": v, "f": v}
    common = sum((Counter(cand) & Counter(ref)).values())
    if common == 0:
        return {"p": 0.0, "r": 0.0, "f": 0.0}
    p, r = common / len(cand), common / len(ref)
    return {"p": p, "r": r, "f": 2 * p * r / (p + r)}


def _bag_f1_weighted(cand, ref, wc, wr) -> dict[str, float]:
    """Weighted bag F1: each shared type contributes min(c, r) occurrences at its mean weight."""
    if not cand or not ref:
        v = float(cand == ref)
        return {"p": v, "r": v, "f": v}
    cc, rc = Counter(cand), Counter(ref)
    mc: dict[str, float] = {}
    mr: dict[str, float] = {}
    for t, w in zip(cand, wc):
        mc[t] = mc.get(t, 0.0) + float(w)
    for t, w in zip(ref, wr):
        mr[t] = mr.get(t, 0.0) + float(w)
    hit_c = sum(mc[t] * min(cc[t], rc[t]) / cc[t] for t in cc if t in rc)
    hit_r = sum(mr[t] * min(cc[t], rc[t]) / rc[t] for t in rc if t in cc)
    tot_c, tot_r = sum(mc.values()), sum(mr.values())
    p = hit_c / tot_c if tot_c > 0 else 0.0
    r = hit_r / tot_r if tot_r > 0 else 0.0
    return {"p": p, "r": r, "f": _prf(p, r)}


class _Bleu(TokenMetric):
    """COCO BLEU-n per sentence. agg='joint' clips against all references at once (COCO's own
    multi-reference BLEU); 'max'/'mean' score each reference alone (the KPQA protocol)."""

    n: ClassVar[int] = 4
    aggregations = ("max", "mean", "joint")
    main_part = "bleu"

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        tk = self.tokenized(records)
        n, joint = self.n, self.options["agg"] == "joint"
        main = []
        for i in range(len(records)):
            cand, refs = tk.cand[i], tk.refs[i]
            if tk.cand_w is None:
                if joint:
                    main.append(bleu_sentence(cand, refs, n)[-1])
                else:
                    per_ref = [{"bleu": bleu_sentence(cand, [r], n)[-1]} for r in refs]
                    main.append(self.combine(per_ref)["bleu"])
            else:
                w = tk.cand_w[i]
                if joint:
                    main.append(bleu_sentence_weighted(cand, w, refs, n)[-1])
                else:
                    per_ref = [{"bleu": bleu_sentence_weighted(cand, w, [r], n)[-1]} for r in refs]
                    main.append(self.combine(per_ref)["bleu"])
        # COCO's score is exactly 0 only through the brevity penalty; an empty candidate gets 0.
        main = [0.0 if not tk.cand[i] else s for i, s in enumerate(main)]
        return main, {}


class Bleu1(_Bleu):
    name = "bleu1"
    n = 1
    description = "BLEU-1, COCO per-sentence convention (optionally token-weighted, e.g. KPQA)"


class Bleu2(_Bleu):
    name = "bleu2"
    n = 2
    description = "BLEU-2, COCO per-sentence convention"


class Bleu3(_Bleu):
    name = "bleu3"
    n = 3
    description = "BLEU-3, COCO per-sentence convention"


class Bleu4(_Bleu):
    name = "bleu4"
    n = 4
    description = "BLEU-4, COCO per-sentence convention"


class RougeL(TokenMetric):
    """COCO ROUGE-L (LCS F-measure, beta 1.2) with P/R/F details. agg='joint' is COCO's own
    multi-reference rule (max precision and max recall over references, then F)."""

    name = "rougeL"
    description = "ROUGE-L F (beta 1.2, COCO), P/R/F details (optionally token-weighted, e.g. KPQA)"
    aggregations = ("max", "mean", "joint")
    main_part = "f"
    split_glued = False

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {**super().option_specs(),
                "beta": Option("float", 1.2, "weight of recall in F (COCO: 1.2)", min=0.0, max=MAX_BETA)}

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        tk = self.tokenized(records)
        beta = float(self.options["beta"])
        parts = []
        for i in range(len(records)):
            cand = tk.cand[i]
            per_ref = []
            for j, ref in enumerate(tk.refs[i]):
                if tk.cand_w is None:
                    lcs = lcs_length(cand, ref)
                    p = lcs / len(cand) if cand else 0.0
                    r = lcs / len(ref) if ref else 0.0
                else:
                    wc, wr = tk.cand_w[i], (tk.refs_w or [])[i][j]  # refs_w is set whenever cand_w is
                    _, hit_c, hit_r = lcs_weights(cand, ref, wc, wr)
                    tot_c, tot_r = float(sum(wc)), float(sum(wr))
                    p = hit_c / tot_c if tot_c > 0 else 0.0
                    r = hit_r / tot_r if tot_r > 0 else 0.0
                per_ref.append({"p": p, "r": r, "f": _prf(p, r, beta)})
            if self.options["agg"] == "joint":
                p, r = max(x["p"] for x in per_ref), max(x["r"] for x in per_ref)
                parts.append({"p": p, "r": r, "f": _prf(p, r, beta)})
            else:
                parts.append(self.combine(per_ref))
        return _collect(parts, "f")
