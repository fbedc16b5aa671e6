"""`qascore explain`: rendering (no model) and the command end to end (slow: shipped tagger)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from qascore.cli import explain as ex
from qascore.cli import heatmap as hm
from qascore.records import InputError, Record

REC = Record(id="7", question="how long?", candidate="5 to 20 hours", references=["walk 5 hours"])
ROWS = [ex.Row("reference", ["walk", "5", "hours"], np.array([0.2, 0.9, 0.6]), np.array([1.0, 2.0, 0.0])),
        ex.Row("candidate", ["5", "<b>", "hours"], np.array([0.8, 0.0, 0.4]), np.array([0.5, 0.5, 0.5]))]


def test_terminal_brackets_raw_weights():
    text = ex.terminal(REC, ROWS, colour=False)
    assert "[7] Q: how long?" in text
    assert "KPW: walk[0.20] 5[0.90] hours[0.60]" in text
    assert "IDF: walk[1.00] 5[2.00] hours[0.00]" in text


def test_terminal_colour_uses_ansi():
    text = ex.terminal(REC, ROWS, colour=True)
    # the KPW maximum "5" (0.9) on the darkest shade #081d58 = (8, 29, 88), in white
    assert "\x1b[48;2;8;29;88m\x1b[38;2;255;255;255m5\x1b[0m" in text and "[0.90]" not in text


@pytest.mark.parametrize("vals,expected", [([0.2, 0.9, 0.6], [0.2 / 0.9, 1.0, 0.6 / 0.9]),
                                           ([0.0, 0.0], [0.0, 0.0]), ([], [])])
def test_row_normalisation(vals, expected):
    assert hm.normalise(np.array(vals, dtype=float)) == pytest.approx(expected)


def _wcag_contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours (written out here, independently of heatmap.py)."""
    def lum(h):
        ch = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        ch = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in ch]
        return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("bg", hm.SCALE)
def test_every_shade_has_readable_text(bg):
    assert _wcag_contrast(bg, hm.text_colour(bg)) >= 4.5  # WCAG AA for normal text


def test_html_heat_map_escapes_wraps_shades_and_shows_weights_legend_and_scores():
    page = hm.page([hm.Example("7", "how long?", ROWS, {"rougeL": 0.25, "kpqa-rougeL": 0.5})],
                   "kpw(x)", "over 1 documents, the references of in.jsonl")
    body = page.split("<body>")[1]
    assert "&lt;b&gt;" in body and "<b>" not in body.replace("<br>", "")
    # the KPW row's maximum (0.9, the word "5") takes the darkest shade, white text, its raw weight beneath
    assert "style='background:#081d58;color:#ffffff' title='0.900'>5<small>0.90</small></span>" in body
    # a weight of 0 takes the lightest shade with black text
    assert "style='background:#ffffd9;color:#000000' title='0.000'>hours<small>0.00</small></span>" in body
    assert body.count("class='row'") == 6                              # text, IDF, KPW x 2
    assert "display:inline-block" in page and "<td" not in body.split("class='scores'")[0]  # words wrap
    assert body.count("class='legend'") == 1 and all(c in body.split("class='legend'")[1] for c in hm.SCALE)
    assert "<td>kpqa-rougeL</td><td>0.500</td>" in body
    assert "the references of in.jsonl" in body


def test_idf_note_says_where_and_warns_when_too_few_documents(capsys):
    from qascore import messages

    messages.reset()
    note = ex.idf_note(1, "in.jsonl")
    assert "over 1 documents, the references of in.jsonl" in note
    assert "qascore: warning: explain: IDF is counted over only 1 reference(s)" in capsys.readouterr().err
    ex.idf_note(ex.IDF_MIN_DOCS, "big.jsonl")
    assert capsys.readouterr().err == ""


def _args(**kw):
    base = dict(input=None, question=None, candidate=None, reference=None, map=None, input_format=None)
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize("kw", [dict(), dict(question="q", candidate="c"),
                                dict(input="x.jsonl", question="q", candidate="c", reference=["r"])])
def test_bad_arguments(kw):
    with pytest.raises(InputError):
        ex._records(_args(**kw))


def test_flags_make_one_record():
    (rec,) = ex._records(_args(question="q", candidate="c", reference=["r1", "r2"]))
    assert rec.references == ["r1", "r2"] and rec.candidate == "c"


@pytest.mark.slow
def test_command_end_to_end(tmp_path, capsys):
    from qascore.cli import main
    from qascore.weights.kpw import shipped_delta

    try:
        shipped_delta("kpqa")
    except FileNotFoundError as err:
        pytest.skip(str(err))
    out = tmp_path / "x.html"
    rc = main(["explain", "-q", "How long do i need to walk in order to loose a pound ?",
               # "reheating" is several WordPieces: its IDF is their mean
               "-c", "You need to walk for 5 to 20 hours reheating in order to loose a pound .",
               "-r", "Walk for 5 to 20 hours to lose 1 pound .", "--html", str(out), "--color", "never"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "candidate    KPW: You[" in text and "kpqa-tagger@" in text
    assert out.read_text(encoding="utf-8").count("<section>") == 1


@pytest.mark.slow
def test_idf_reads_a_word_over_the_tokenizer_limit_in_pieces():
    """A 120-letter word is not one [UNK]: in a reference it has the reference's IDF, and another such word that
    no reference holds has the unseen IDF log(M + 1), where both read as [UNK] would share one value."""
    from qascore.weights.kpw import shipped_delta

    try:
        shipped_delta("kpqa")
    except FileNotFoundError as err:
        pytest.skip(str(err))
    seen, other = "x" * 120, "q" * 120
    e = ex.Explainer(None, [f"the code {seen}", "walk for an hour", "a pound"])
    assert "[UNK]" not in e.pieces(seen)
    assert e.word_idf("q?", other) == pytest.approx(np.log(4))
    assert e.word_idf("q?", seen) < e.word_idf("q?", other)
