"""KPQA metrics (Lee et al., NAACL 2021): BLEU-1, ROUGE-L and BERTScore weighted by KPW.

Each is its base metric given the KPW TokenWeighter (qascore.weights.kpw), not a
copy of it: KPW of the candidate (given the question) weighs precision, KPW of
the reference weighs recall (paper eqs. 1-8); each reference is scored alone
and the maximum taken. `kp-*` are the paper's "-KP" ablation (Table 4): the
same, with the tagger trained without the question.

Options: every option of the base metric except `weights` (and BERTScore's
`idf`), plus `tagger`: a delta file or checkpoint folder (default: the shipped
tagger), `device` and `dtype` (the tagger's, and BERTScore's encoder's). The
signature names the tagger delta by hash. Differences from the paper and from
the authors' code: docs/kpqa.md.

Long texts (docs/long-inputs.md): the tagger reads at most the first
`kpw.MAX_PIECES` WordPieces of a text; kpqa-bleu1 / kpqa-rougeL score the words
of that part (the rest is cut before matching, so the LCS stays bounded too),
kpqa-bertscore reads what its encoder reads; the tagger reads the first
`MAX_QUESTION` (64) WordPieces of the question; `details.truncated` marks the records.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from qascore.metrics import long_inputs
from qascore.metrics.bertscore import BertScore
from qascore.metrics.device_options import device_option
from qascore.metrics.lexical import Bleu1, RougeL
from qascore.metrics.options import Option, max_references_option
from qascore.metrics.tokens import TokenMetric
from qascore.metrics.verifiers import dtype_option
from qascore.records import Record
from qascore.weights.kpw import INT8, MAX_PIECES, KpwWeighter, question_pieces
from qascore.weights.kpw_model import MAX_QUESTION


class _Kpw:
    """Mixin: the base metric with KPW weights from a KPQA tagger."""

    tagger_kind: ClassVar[str] = "kpqa"
    requires: ClassVar[tuple[str, ...]] = ("question", "candidate", "references")
    refuses_many_references: ClassVar[bool] = True  # the tagger reads every reference (`max_references`)
    options: dict[str, Any]

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        # KPW replaces the base metric's `weights` (and BERTScore's `idf`): those are not options here.
        base = {k: o for k, o in super().option_specs().items() if k not in ("weights", "idf")}  # type: ignore[misc]
        extra = {"device": device_option(),  # BERTScore declares its own (and max_references)
                 "dtype": dtype_option("the keyphrase tagger's forward pass (int8: CPU only, over the tagger's "
                                       "calibrated ranges, 1.4-1.8x fp32 on short answers, filler words' weights "
                                       "move by up to 0.3)", "weights move slightly", extra=(INT8,)),
                 "max_references": max_references_option()}
        return {**base, **{k: o for k, o in extra.items() if k not in base},
                "tagger": Option("str", None, "keyphrase tagger: delta file or checkpoint folder",
                                 none="shipped", signed=False)}  # signed by hash in `weights`

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)  # type: ignore[call-arg]
        tagger = self.options["tagger"] if self.options["tagger"] is not None else self.tagger_kind
        dtype = self.options.get("dtype")
        self.options["weights"] = KpwWeighter(tagger, device=self.options.get("device"),
                                              **({"dtype": dtype} if dtype not in (None, "fp32") else {}))
        self._truncated: list[bool] = []

    def limit_tokens(self, toks: list[list[str]], records: Sequence[Record]) -> list[list[str]]:
        """Every text cut to the words whose WordPieces fit in MAX_PIECES; flags per record."""
        weighter = self.options["weights"]
        cut, out = [], []
        for t in toks:
            keep = _kept_tokens(weighter, t)
            cut.append(keep < len(t))
            out.append(t[:keep])
        flags, pos = cut[:len(records)], len(records)
        for i, rec in enumerate(records):
            flags[i] = flags[i] or any(cut[pos:pos + len(rec.references)])
            pos += len(rec.references)
        self._truncated = flags
        return out

    def cut_before_reading(self, records: Sequence[Record]) -> list[bool]:
        """Records whose question has more WordPieces than the tagger reads beside a text (`MAX_QUESTION`)."""
        weighter = self.options["weights"]
        if not getattr(weighter, "use_question", False):  # the -KP tagger (or a weighter given in Python)
            return [False] * len(records)
        tok = weighter.tagger.tokenizer
        return [len(r.question) > MAX_QUESTION and len(question_pieces(tok, r.question)) > MAX_QUESTION
                for r in records]  # a piece covers at least one character: short questions need no tokenizer

    def reading_rule(self) -> str:
        """What is read of each record: the words of MAX_PIECES WordPieces (kpqa-bertscore: its encoder's
        window), and MAX_QUESTION WordPieces of the question."""
        if isinstance(self, TokenMetric):
            read = f"the first {MAX_PIECES} WordPieces of each text"
        else:
            read = super().reading_rule()  # type: ignore[misc]
        return read + (f", {MAX_QUESTION} of the question" if getattr(self.options["weights"], "use_question", False)
                       else "")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[float]]]:
        main, details = super()._score(records)  # type: ignore[misc]
        if isinstance(self, TokenMetric):  # kpqa-bertscore: its encoder's rule, flagged by BertScore
            flags = [a or b for a, b in zip(self._truncated or [False] * len(records),
                                            self.cut_before_reading(records))]
            details[long_inputs.TRUNCATED] = long_inputs.flags_detail(flags)
            long_inputs.report(self.name, records, flags, self.reading_rule())  # type: ignore[attr-defined]
        return main, details

    def forget_memos(self) -> None:
        """Also the keyphrase weights memo (one per tagger per process; it has no bound)."""
        from qascore.runtime.cache import empty

        super().forget_memos()  # type: ignore[misc]
        empty("kpw-cache")


def _kept_tokens(weighter: KpwWeighter, tokens: list[str]) -> int:
    """How many leading tokens fit in MAX_PIECES WordPieces (a piece spans at least one character,
    so a text of at most MAX_PIECES characters fits without asking the tokenizer)."""
    if sum(map(len, tokens)) <= MAX_PIECES:
        return len(tokens)
    total = 0
    for i, p in enumerate(weighter.tagger.pieces(tokens[:MAX_PIECES])):
        total += len(p) if p else 0
        if total > MAX_PIECES:
            return i
    return min(len(tokens), MAX_PIECES)


class KpqaBleu1(_Kpw, Bleu1):
    name = "kpqa-bleu1"
    description = "BLEU-1-KPQA: unigram precision weighted by the candidate's KPW (KPQA eq. 1), COCO BP"


class KpqaRougeL(_Kpw, RougeL):
    name = "kpqa-rougeL"
    description = "ROUGE-L-KPQA: LCS P/R/F weighted by KPW (KPQA eqs. 2-5), beta 1.2 as rougeL"


class KpqaBertScore(_Kpw, BertScore):
    name = "kpqa-bertscore"
    description = "BERTScore-KPQA: BERTScore with KPW in place of IDF (KPQA eqs. 6-8)"


class KpBleu1(KpqaBleu1):
    name = "kp-bleu1"
    tagger_kind = "kp"
    description = "BLEU-1-KP: as kpqa-bleu1, tagger trained without the question (KPQA Table 4)"


class KpRougeL(KpqaRougeL):
    name = "kp-rougeL"
    tagger_kind = "kp"
    description = "ROUGE-L-KP: as kpqa-rougeL, tagger trained without the question (KPQA Table 4)"


class KpBertScore(KpqaBertScore):
    name = "kp-bertscore"
    tagger_kind = "kp"
    description = "BERTScore-KP: as kpqa-bertscore, tagger trained without the question (KPQA Table 4)"
