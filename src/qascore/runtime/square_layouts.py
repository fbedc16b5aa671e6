"""SQuArE's input layouts and its AVA baselines' (a Record -> views of `runtime.verifier`).

SQuArE reads one input, "Question: q Target: a Pos_Ref: c+ ... Neg_Ref: c- ...";
the verifier's truncation keeps the question, the target and the
Pos_Ref/Neg_Ref markers whole and trims the references evenly. `references`
are the positive references, `negatives` the incorrect ones.
"""

from __future__ import annotations

from qascore.records import Record
from qascore.runtime.verifier import Layout, Part, View, view

POS_PROMPT, NEG_PROMPT = "Pos_Ref:", "Neg_Ref:"
LAYOUTS = ("square", "qt", "tr", "tqr")


def _refs(rec: Record, marked: bool) -> list[Part]:
    """References as trimmable parts, each after its kept Pos_Ref/Neg_Ref marker."""
    out: list[Part] = []
    for prompt, texts in ((POS_PROMPT, rec.references), (NEG_PROMPT, rec.negatives)):
        for c in texts:
            if marked:
                out.append(Part(prompt, keep=True))
            out.append(Part(c))
    return out


def square_layout(rec: Record) -> list[View]:
    """The paper's single input: "Question: q Target: a Pos_Ref: c+ ... Neg_Ref: c- ..."."""
    head = [Part("Question:", True), Part(rec.question, True), Part("Target:", True), Part(rec.candidate, True)]
    return [view(head + _refs(rec, marked=True))]


def qt_layout(rec: Record) -> list[View]:
    """AVA-QT: the sentence pair (question, target)."""
    return [view(Part(rec.question, True), Part(rec.candidate, True))]


def tr_layout(rec: Record) -> list[View]:
    """AVA-TR: the sentence pair (target, reference); B is empty when there is no reference."""
    return [view(Part(rec.candidate, True), _refs(rec, marked=False))]


def tqr_layout(rec: Record) -> list[View]:
    """AVA-TQR: AVA's A1 pair (t, q o r); the reference keeps its Pos_Ref/Neg_Ref marker so
    one layout serves AVA-TQR (a positive) and AVA-TQR(-) (a negative)."""
    return [view(Part(rec.candidate, True), [Part(rec.question, True)] + _refs(rec, marked=True))]


LAYOUT_FUNCS: dict[str, Layout] = {"square": square_layout, "qt": qt_layout, "tr": tr_layout, "tqr": tqr_layout}


def layout_func(name: str) -> Layout:
    if name not in LAYOUT_FUNCS:
        raise ValueError(f"unknown layout {name!r}; choose from {LAYOUTS}")
    return LAYOUT_FUNCS[name]
