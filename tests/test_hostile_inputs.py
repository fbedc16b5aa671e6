"""Hostile but valid-looking input (issue 27): every bad record is refused where it is read, naming the
file, line and field, by the reader, the Python API and the metrics alike; nothing reaches a writer."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import qascore
from qascore.cli import main
from qascore.records import MAX_DEPTH, InputError, Record, read_records


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_a_deeply_nested_pass_through_field_is_refused_when_read(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"candidate": "a", "references": ["a"]}) + "\n"
                   + json.dumps({"candidate": "a", "references": ["a"], "extra": nested(600)}) + "\n")
    out = tmp_path / "out.jsonl"
    rc, _, err = run_cli(["score", str(src), "-m", "f1", "-o", str(out)])
    assert rc == 2 and not out.exists()
    assert err.strip() == (f"qascore: error: {src}:2: field 'extra': nested deeper than {MAX_DEPTH} levels "
                           f"(lists and objects inside one another)")


def test_nesting_up_to_the_limit_passes_through_untouched(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    row = {"candidate": "a", "references": ["a"], "extra": nested(MAX_DEPTH - 1)}
    src.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out.jsonl"
    assert run_cli(["score", str(src), "-m", "f1", "-o", str(out)])[0] == 0
    assert json.loads(out.read_text())["extra"] == row["extra"]


@pytest.mark.parametrize("row, field", [
    ('{"candidate": "\\ud800 x", "references": ["a"]}', "candidate"),
    ('{"candidate": "a", "references": ["ok", "\\udfff"]}', "references"),
    ('{"candidate": "a", "references": ["a"], "note": {"k": "\\ud800"}}', "note"),
    ('{"candidate": "a", "references": ["a"], "\\ud800key": 1}', "\\ud800key"),
])
def test_a_lone_surrogate_is_refused_when_read_naming_line_and_field(tmp_path: Path, row: str, field: str) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"candidate": "a", "references": ["a"]}\n' + row + "\n")
    with pytest.raises(InputError) as err:
        read_records(src)
    assert err.value.line == 2
    assert "lone surrogate" in str(err.value)
    if not field.startswith("\\"):
        assert err.value.field == field


def test_a_lone_surrogate_never_reaches_stdout(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text('{"candidate": "a", "references": ["a"]}\n{"candidate": "\\ud800 x", "references": ["a"]}\n')
    for extra in ([], ["--chunk-size", "1"]):
        rc, out, err = run_cli(["score", str(src), "-m", "f1", "-o", "-", *extra])
        assert rc == 2 and out == "", (extra, out)
        assert f"{src}:2: field 'candidate':" in err and "lone surrogate" in err


def test_malformed_json_says_at_once() -> None:
    with pytest.raises(InputError) as err:
        qascore.records.json_value('{"candidate": "abc', "f.jsonl", 3)
    assert "at at" not in str(err.value)
    assert str(err.value) == "f.jsonl:3: malformed JSON (Unterminated string starting at column 15)"


def test_an_unclosed_csv_quote_is_named_as_such(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text('candidate,references,question\n"a,b,c\nd,e,f\ng,h,i\n')
    with pytest.raises(InputError) as err:
        read_records(src)
    assert "unclosed quote" in str(err.value) and err.value.line == 2, str(err.value)


# -- the Python API trusts nothing ----------------------------------------------------------
@pytest.mark.parametrize("kwargs, field", [
    ({"candidate": "a", "references": "abc"}, "references"),
    ({"candidate": None, "references": ["a"]}, "candidate"),
    ({"candidate": "a", "references": [1]}, "references"),
    ({"candidate": "a", "references": ["a"], "question": 5}, "question"),
    ({"candidate": "\ud800", "references": ["a"]}, "candidate"),
    ({"candidate": "a", "references": ["a"], "extra": {"deep": nested(100)}}, "deep"),
])
def test_record_validates_its_own_fields(kwargs: dict, field: str) -> None:
    with pytest.raises(InputError) as err:
        Record(**kwargs)
    assert err.value.field == field, str(err.value)


def test_record_built_directly_scores_as_its_dict_does() -> None:
    f1 = qascore.load("f1")
    direct = f1.score([Record(candidate="x y", references=["x z"])]).scores
    assert direct == f1.score([{"candidate": "x y", "references": ["x z"]}]).scores == [0.5]


@pytest.mark.parametrize("bad, named", [
    ({"candidate": "a", "references": ["a"]}, "one dict"),
    (None, "NoneType"),
    ("candidate", "str"),
    (5, "int"),
    ([{"candidate": "a", "references": ["a"]}, 7], "int"),
])
def test_score_names_what_it_got_when_it_is_not_records(bad: object, named: str) -> None:
    with pytest.raises(TypeError) as err:
        qascore.load("f1").score(bad)  # type: ignore[arg-type]
    assert named in str(err.value) and "list" in str(err.value), str(err.value)


def test_score_accepts_any_iterable_of_records_or_dicts() -> None:
    rows = [{"candidate": "a", "references": ["a"]}, Record(candidate="b", references=["c"])]
    f1 = qascore.load("f1")
    assert f1.score(iter(rows)).scores == f1.score(tuple(rows)).scores == [1.0, 0.0]
