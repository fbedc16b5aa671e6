"""`qascore explain`: rendering (no model) and the command end to end (slow: shipped tagger)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from qascore.cli import explain as ex
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
    assert "\x1b[48;5;" in text and "[0.90]" not in text


@pytest.mark.parametrize("vals,expected", [([0.2, 0.9, 0.6], [0.2 / 0.9, 1.0, 0.6 / 0.9]),
                                           ([0.0, 0.0], [0.0, 0.0]), ([], [])])
def test_row_normalisation(vals, expected):
    assert ex._norm(np.array(vals, dtype=float)) == pytest.approx(expected)


def test_html_heat_map_escapes_and_shades():
    class K:
        def signature(self):
            return "kpw(x)"

    class I:
        def signature(self):
            return "idf(docs=1)"

    e = ex.Explainer.__new__(ex.Explainer)
    e.kpw, e.idf = K(), I()
    page = ex.to_html([(REC, ROWS)], e)
    assert "&lt;b&gt;" in page and "<b>" not in page.split("<body>")[1].replace("<br>", "")
    assert "rgba(220,20,20,1.000)' title='0.900'>5</td>" in page     # max of the KPW row
    assert page.count("<tr>") == 6                                    # text, IDF, KPW x 2


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
    assert out.read_text(encoding="utf-8").count("<table>") == 1
