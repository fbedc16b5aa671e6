"""KPQA metrics (Lee et al., NAACL 2021): BLEU-1, ROUGE-L and BERTScore weighted by KPW.

Each is its base metric given the KPW TokenWeighter (qascore.weights.kpw), not a
copy of it: KPW of the candidate (given the question) weighs precision, KPW of
the reference weighs recall (paper eqs. 1-8); each reference is scored alone
and the maximum taken. `kp-*` are the paper's "-KP" ablation (Table 4): the
same, with the tagger trained without the question.

Options: every option of the base metric except `weights` (and BERTScore's
`idf`), plus `tagger`: a delta file or checkpoint folder (default: the shipped
tagger). The signature names the tagger delta by hash. Differences from the
paper and from the authors' code: docs/kpqa.md.
"""

from __future__ import annotations

from typing import Any, ClassVar

from qascore.metrics.bertscore import BertScore
from qascore.metrics.lexical import Bleu1, RougeL
from qascore.metrics.options import Option
from qascore.weights.kpw import KpwWeighter


class _Kpw:
    """Mixin: the base metric with KPW weights from a KPQA tagger."""

    tagger_kind: ClassVar[str] = "kpqa"
    requires: ClassVar[tuple[str, ...]] = ("question", "candidate", "references")
    options: dict[str, Any]

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        # KPW replaces the base metric's `weights` (and BERTScore's `idf`): those are not options here.
        base = {k: o for k, o in super().option_specs().items() if k not in ("weights", "idf")}  # type: ignore[misc]
        return {**base, "tagger": Option("str", None, "keyphrase tagger: delta file or checkpoint folder",
                                         none="shipped", signed=False)}  # signed by hash in `weights`

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)  # type: ignore[call-arg]
        tagger = self.options["tagger"] if self.options["tagger"] is not None else self.tagger_kind
        device = self.options.get("device")
        self.options["weights"] = KpwWeighter(tagger, device=device)

    def forget_memos(self) -> None:
        """Also the keyphrase weights memo (one per tagger per process; it has no bound)."""
        from qascore.runtime.cache import empty

        super().forget_memos()  # type: ignore[misc]
        empty("kpw-cache")


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
