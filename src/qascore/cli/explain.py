"""`qascore explain`: per-token KPW and IDF of candidate and references (KPQA Table 5).

Terminal: each word with its weight, shaded when the terminal takes colour,
`word[.93]` otherwise. --html writes a heat map like the paper's Table 5.
Words are the encoder tokenizer's words (WordPiece pre-tokenisation); a word's
KPW and IDF are the means over its WordPieces (the same rule the KPQA metrics
use). IDF is bert_score's: over the references of all records given (one
document per reference, WordPieces, log((M+1)/(df+1))); with a single record it
says little, so --idf-from names a file whose references to count instead.
Shading is normalised per row to [0, 1] (divide by the row's maximum), as in
the paper's heat map; the printed numbers are the raw weights.
"""

from __future__ import annotations

import argparse
import html
import sys
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from qascore.cli.output import check_writable, write_whole
from qascore.records import InputError, Record, parse_mapping, read_records


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="JSONL/CSV/TSV of records (question, candidate, references)")
    p.add_argument("--question", "-q", help="one example instead of a file: the question")
    p.add_argument("--candidate", "-c", help="... the generated answer")
    p.add_argument("--reference", "-r", action="append", help="... a reference answer (repeatable)")
    p.add_argument("--html", metavar="OUT.html", help="also write an HTML heat map")
    p.add_argument("--limit", type=int, default=20, help="explain at most N records of a file (default 20; 0 = all)")
    p.add_argument("--tagger", default=None, help="KPQA tagger delta (default: the shipped one; 'kp' = -KP ablation)")
    p.add_argument("--idf-from", metavar="FILE", help="count IDF over this file's references (default: the input's)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN", help="column mapping (as in `score`)")
    p.add_argument("--input-format", choices=("jsonl", "csv", "tsv"))


@dataclass
class Row:
    label: str
    words: list[str]
    kpw: np.ndarray
    idf: np.ndarray


def run(args: argparse.Namespace) -> int:
    check_writable(args.html, "--html")
    records = _records(args)
    idf_docs = records if not args.idf_from else read_records(args.idf_from, mapping=parse_mapping(args.map),
                                                              fmt=args.input_format)
    explainer = Explainer(args.tagger, [r for rec in idf_docs for r in rec.references])
    shown = records[:args.limit] if args.limit else records
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    blocks = [explainer.explain(rec) for rec in shown]
    for rec, rows in zip(shown, blocks):
        print(terminal(rec, rows, colour))
    print(f"KPW: {explainer.kpw.signature()}   IDF: {explainer.idf.signature()} over "
          f"{explainer.idf.num_docs} references")
    if args.html:
        page = to_html(list(zip(shown, blocks)), explainer)
        write_whole(args.html, lambda fh: fh.write(page))
        print(f"wrote {args.html}", file=sys.stderr)
    return 0


def _records(args: argparse.Namespace) -> list[Record]:
    if args.input:
        if args.question or args.candidate or args.reference:
            raise InputError("give either INPUT or --question/--candidate/--reference, not both")
        records = read_records(args.input, mapping=parse_mapping(args.map), fmt=args.input_format)
    else:
        if args.question is None or args.candidate is None or not args.reference:
            raise InputError("give INPUT, or all of --question, --candidate and --reference")
        records = [Record(id="1", question=args.question, candidate=args.candidate, references=args.reference,
                          present=frozenset({"id", "question", "candidate", "references"}))]
    for rec in records:
        rec.require("question", "candidate", "references",
                    needed_by="explain (keyphrase weights of candidate and references given the question)")
    return records


class Explainer:
    """KPW and IDF for the words of a text, as the KPQA metrics see them."""

    def __init__(self, tagger: str | None, idf_references: Sequence[str]) -> None:
        from qascore.weights.idf import IdfWeighter
        from qascore.weights.kpw import KpwWeighter, shipped_delta

        delta = shipped_delta("kp") if tagger == "kp" else tagger
        self.kpw = KpwWeighter(delta)
        self.tok = self.kpw.tagger.tokenizer
        self.idf = IdfWeighter.from_documents(self.tok.tokenize(r) for r in idf_references)

    def words(self, text: str) -> list[str]:
        return [w for w, _ in self.tok.backend_tokenizer.pre_tokenizer.pre_tokenize_str(text)]

    def row(self, label: str, question: str, text: str) -> Row:
        words = self.words(text)
        kpw = self.kpw.weigh(question, words)
        idf = np.array([self.word_idf(question, w) for w in words])
        return Row(label, words, kpw, idf)

    def word_idf(self, question: str, word: str) -> float:
        """A word's IDF: the mean over its WordPieces (as its KPW is), 0 for a word with none."""
        pieces = self.tok.tokenize(word)
        return float(np.mean(self.idf.weigh(question, pieces))) if pieces else 0.0

    def explain(self, rec: Record) -> list[Row]:
        rows = [self.row(f"reference {i + 1}" if len(rec.references) > 1 else "reference", rec.question, r)
                for i, r in enumerate(rec.references)]
        rows.append(self.row("candidate", rec.question, rec.candidate))
        return rows


def _norm(v: np.ndarray) -> np.ndarray:
    top = float(v.max()) if len(v) else 0.0
    return v / top if top > 0 else np.zeros_like(v)


def _shade(word: str, level: float) -> str:
    # 256-colour background from white (0) to red (1): 231 white ... 196 red
    ramp = [231, 224, 217, 210, 203, 196]
    code = ramp[min(len(ramp) - 1, int(round(level * (len(ramp) - 1))))]
    return f"\x1b[48;5;{code}m\x1b[38;5;16m{word}\x1b[0m"


def terminal(rec: Record, rows: Sequence[Row], colour: bool) -> str:
    lines = [f"[{rec.id}] Q: {rec.question}"]
    for row in rows:
        for name, vals in (("KPW", row.kpw), ("IDF", row.idf)):
            if colour:
                body = " ".join(_shade(w, lv) for w, lv in zip(row.words, _norm(vals)))
            else:
                body = " ".join(f"{w}[{v:.2f}]" for w, v in zip(row.words, vals))
            lines.append(f"  {row.label:<12} {name}: {body}")
    return "\n".join(lines) + "\n"


_CSS = """body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}
td{padding:2px 4px;border:1px solid #eee}td.h{font-weight:bold;white-space:nowrap;border:none;padding-right:1em}
caption{text-align:left;font-weight:bold;padding:4px 0}"""


def to_html(items: Sequence[tuple[Record, list[Row]]], ex: "Explainer") -> str:
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>qascore explain</title>",
           f"<style>{_CSS}</style></head><body>",
           "<p>Heat maps of IDF and KPW per word (each row normalised to [0, 1] by its maximum, as in KPQA "
           "Table 5; hover a word for the raw weight).<br>"
           f"KPW: {html.escape(ex.kpw.signature())}; IDF: {html.escape(ex.idf.signature())}.</p>"]
    for rec, rows in items:
        out.append(f"<table><caption>[{html.escape(rec.id)}] Question: {html.escape(rec.question)}</caption>")
        for row in rows:
            out.append(_html_row(row.label.capitalize(), row.words, None))
            out.append(_html_row("IDF", row.words, row.idf))
            out.append(_html_row("KPW", row.words, row.kpw))
        out.append("</table>")
    out.append("</body></html>\n")
    return "\n".join(out)


def _html_row(head: str, words: Sequence[str], vals: np.ndarray | None) -> str:
    cells = [f"<td class='h'>{html.escape(head)}</td>"]
    levels = _norm(vals) if vals is not None else None
    for i, w in enumerate(words):
        if vals is None:
            cells.append(f"<td>{html.escape(w)}</td>")
        else:
            cells.append(f"<td style='background:rgba(220,20,20,{levels[i]:.3f})' title='{vals[i]:.3f}'>"
                         f"{html.escape(w)}</td>")
    return "<tr>" + "".join(cells) + "</tr>"
