"""`qascore explain`: per-token KPW and IDF of candidate and references (KPQA Table 5).

Terminal: each word with its weight, shaded when the terminal takes colour,
`word[.93]` otherwise. --html writes a heat map like the paper's Table 5
(qascore.cli.heatmap: colour-blind-safe scale, legend, wrapping rows, raw weights,
and each record's ROUGE-L / BLEU-1 with and without KPW).
Words are the encoder tokenizer's words (WordPiece pre-tokenisation); a word's
KPW and IDF are the means over its WordPieces (the same rule the KPQA metrics
use). IDF is bert_score's, log((M+1)/(df+1)) over WordPieces, one document per
reference; the documents are the references of the input (or of --idf-from
FILE), and the output says which and how many. With one reference every IDF is
log(2/2) = 0, so fewer than IDF_MIN_DOCS references draw a warning.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import numpy as np

from qascore.cli.heatmap import Example, Row, ansi, normalise, page
from qascore.cli.output import check_output, write_whole
from qascore.errors import UsageError
from qascore.messages import warn
from qascore.record_checks import terminal_safe
from qascore.records import InputError, Record, parse_mapping, read_records
from qascore.runtime.windows import split_long_words


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


IDF_MIN_DOCS = 10  # below this many reference documents IDF is mostly 0 or log(2): warn
SCORED = ("rougeL", "kpqa-rougeL", "bleu1", "kpqa-bleu1")  # what KPW does to each record's scores


def run(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise UsageError(f"--limit must be >= 0, 0 for every record (got {args.limit})")
    check_output(args.html, [args.input, args.idf_from, args.tagger], "--html")
    check_tagger(args.tagger)
    records = _records(args)
    idf_docs = records if not args.idf_from else read_records(args.idf_from, mapping=parse_mapping(args.map),
                                                              fmt=args.input_format)
    explainer = Explainer(args.tagger, [r for rec in idf_docs for r in rec.references])
    note = idf_note(explainer.idf.num_docs, args.idf_from or args.input)
    shown = records[:args.limit] if args.limit else records
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    blocks = [explainer.explain(rec) for rec in shown]
    for rec, rows in zip(shown, blocks):
        print(terminal(rec, rows, colour))
    print(f"KPW: {explainer.kpw.signature()}\nIDF: {note}")
    if args.html:
        scores = example_scores(shown, args.tagger)
        examples = [Example(rec.id, rec.question, rows, sc) for rec, rows, sc in zip(shown, blocks, scores)]
        text = page(examples, explainer.kpw.signature(), note)
        write_whole(args.html, lambda fh: fh.write(text))
        print(f"wrote {args.html}", file=sys.stderr)
    return 0


def check_tagger(tagger: str | None) -> None:
    """`--tagger` names a keyphrase tagger delta (or a shipped one), checked before anything is read: a text
    file, a FIFO or a verifier delta is one line naming it (issue 42), as `-m kpqa-rougeL:tagger=` is."""
    if tagger is None:
        return
    from qascore.metrics.model_paths import TAGGER, WHAT, path_problem

    if not tagger.strip():
        raise UsageError(f"--tagger is empty; expected {WHAT[TAGGER]} (leave it out for the shipped one)")
    problem = path_problem(TAGGER, tagger)
    if problem:
        raise UsageError(f"--tagger {tagger}: {problem}; expected {WHAT[TAGGER]}")


def idf_note(num_docs: int, source: str | None) -> str:
    """Where IDF was counted, in words; a warning when too few documents make it meaningless."""
    where = f"the references of {source}" if source else "the --reference texts given"
    if num_docs < IDF_MIN_DOCS:
        warn(f"explain: IDF is counted over only {num_docs} reference(s) ({where}), so it is near 0 for every "
             f"word; pass --idf-from FILE with the references of a whole data set")
    return f"log((M+1)/(df+1)) over {num_docs} documents, {where} (--idf-from FILE counts another file's)"


def example_scores(records: Sequence[Record], tagger: str | None) -> list[dict[str, float]]:
    """ROUGE-L and BLEU-1 of each record with and without KPW (the KPQA metrics load the same tagger)."""
    import qascore

    out: list[dict[str, float]] = [{} for _ in records]
    for name in SCORED:
        options = {"tagger": tagger} if name.startswith("kpqa-") and tagger else {}
        for i, value in enumerate(qascore.load(name, **options).score(records).scores):
            out[i][name] = value
    return out


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
        self.idf = IdfWeighter.from_documents(self.pieces(r) for r in idf_references)

    def pieces(self, text: str) -> list[str]:
        """WordPieces as the metrics read them: a word over the tokenizer's limit in pieces, not one [UNK]."""
        return self.tok.tokenize(split_long_words(self.tok, text)[0])

    def words(self, text: str) -> list[str]:
        return [w for w, _ in self.tok.backend_tokenizer.pre_tokenizer.pre_tokenize_str(text)]

    def row(self, label: str, question: str, text: str) -> Row:
        words = self.words(text)
        kpw = self.kpw.weigh(question, words)
        idf = np.array([self.word_idf(question, w) for w in words])
        return Row(label, words, kpw, idf)

    def word_idf(self, question: str, word: str) -> float:
        """A word's IDF: the mean over its WordPieces (as its KPW is), 0 for a word with none."""
        pieces = self.pieces(word)
        return float(np.mean(self.idf.weigh(question, pieces))) if pieces else 0.0

    def explain(self, rec: Record) -> list[Row]:
        rows = [self.row(f"reference {i + 1}" if len(rec.references) > 1 else "reference", rec.question, r)
                for i, r in enumerate(rec.references)]
        rows.append(self.row("candidate", rec.question, rec.candidate))
        return rows


def terminal(rec: Record, rows: Sequence[Row], colour: bool) -> str:
    lines = [f"[{terminal_safe(rec.id)}] Q: {terminal_safe(rec.question)}"]  # a record's text never drives the terminal
    for row in rows:
        for name, vals in (("KPW", row.kpw), ("IDF", row.idf)):
            if colour:
                body = " ".join(ansi(terminal_safe(w), lv) for w, lv in zip(row.words, normalise(vals)))
            else:
                body = " ".join(f"{terminal_safe(w)}[{v:.2f}]" for w, v in zip(row.words, vals))
            lines.append(f"  {row.label:<12} {name}: {body}")
    return "\n".join(lines) + "\n"
