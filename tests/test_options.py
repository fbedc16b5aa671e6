"""Declared metric options: strict parsing of command-line text, ranges, unknown names, and `qascore list NAME`."""

from __future__ import annotations

import pytest

import qascore
from qascore.cli import main
from qascore.metrics.options import Option, OptionError, resolve
from qascore.metrics.registry import _REGISTRY, metric_class

BOOL = Option("bool", False, "a flag")


@pytest.mark.parametrize("text, want", [
    ("true", True), ("TRUE", True), ("yes", True), ("1", True),
    ("false", False), ("No", False), ("0", False), (" no ", False),
])
def test_booleans_parse_strictly(text, want):
    assert BOOL.check(text) is want


@pytest.mark.parametrize("text", ["maybe", "", "2", "on", "tru", "none"])
def test_anything_else_is_not_a_boolean(text):
    with pytest.raises(ValueError, match="expected a boolean"):
        BOOL.check(text)


@pytest.mark.parametrize("opt, text, want", [
    (Option("int", None, "", min=0, none="auto"), "4", 4),
    (Option("int", None, "", min=0, none="auto"), "auto", None),
    (Option("float", 1.2, "", min=0.0), "0.5", 0.5),
    (Option("float", 1.2, "", min=0.0), "3", 3.0),
    (Option("choice", "max", "", choices=("max", "mean")), "mean", "mean"),
    (Option("str", None, "", none="shipped"), "shipped", None),
])
def test_typed_values(opt, text, want):
    assert opt.check(text) == want


@pytest.mark.parametrize("opt, value, message", [
    (Option("int", None, "", min=0, none="auto"), "abc", "expected an integer >= 0"),
    (Option("int", None, "", min=0, none="auto"), "-1", "expected an integer >= 0"),
    (Option("int", 3, "", min=1), "2.5", "expected an integer"),
    (Option("int", 3, "", min=1), True, "expected int >= 1, got bool"),
    (Option("float", 1.0, "", min=0.0, max=1.0), "1.5", "expected a number in [0, 1]"),
    (Option("float", 1.0, ""), "nan", "expected a number"),
    (Option("float", 1.0, ""), "inf", "expected a number"),
    (Option("choice", "max", "", choices=("max", "mean")), "best", "expected one of max, mean"),
    (Option("int", 3, "", min=1), None, "expected int >= 1, got none"),
    (Option("object", None, "", python_only="use X"), "kpw", "cannot be given as text: use X"),
])
def test_bad_values_say_what_was_expected(opt, value, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        opt.check(value)


def test_resolve_fills_defaults_and_rejects_unknown_names():
    specs = {"idf": BOOL, "layer": Option("int", None, "", min=0, none="auto")}
    assert resolve("m", specs, {"idf": "yes"}) == {"idf": True, "layer": None}
    with pytest.raises(OptionError) as info:
        resolve("m", specs, {"nosuch": "1"})
    assert info.value.key == "nosuch" and "options of m: idf, layer" in str(info.value)


def test_idf_no_means_false_through_the_python_api():
    # The bug of issue 13: the string "no" is truthy, so idf=no turned IDF on.
    assert qascore.load("bertscore", idf="no").options["idf"] is False
    assert qascore.load("bertscore", idf="yes").options["idf"] is True


def test_every_registered_option_has_a_type_and_help_and_a_valid_default():
    for name in _REGISTRY:
        for key, opt in metric_class(name).option_specs().items():
            assert opt.help, f"{name}:{key} has no help"
            assert opt.check(opt.default) == opt.default or opt.type == "object", f"{name}:{key} default"


@pytest.mark.parametrize("spec, message", [
    ("bertscore:idf=maybe", "-m bertscore:idf=maybe: expected a boolean (true/false)"),
    ("bertscore:layer=abc", "-m bertscore:layer=abc: expected an integer >= 0 or auto"),
    ("bertscore:layer=-1", "-m bertscore:layer=-1: expected an integer >= 0"),
    ("bertscore:layer=4,nosuch=1", "-m bertscore:nosuch=1: unknown option (options of bertscore: model,"),
    ("bertscore:weights=kpw", "use the metrics kpqa-bleu1, kpqa-rougeL or kpqa-bertscore"),
    ("kpqa-bertscore:idf=true", "-m kpqa-bertscore:idf=true: unknown option"),
    ("rougeL:agg=best", "-m rougeL:agg=best: expected one of max, mean, joint"),
    ("f1:agg", "-m f1:agg: metric option 'agg' must look like key=value"),
    ("em:tokenizer=ptb", "-m em:tokenizer=ptb: expected one of squad"),
    ("qrelscore:layers=top", "-m qrelscore:layers=top: expected one of all, first, middle, last, specific"),
    ("ava:threshold=2", "-m ava:threshold=2: expected a number in [0, 1]"),
    (":x=1", "the metric name is empty"),
])
def test_cli_option_errors_quote_the_spec(spec, message, tmp_path, capsys):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "a", "references": ["a"], "question": "q", "context": "c"}\n')
    assert main(["score", str(p), "-m", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qascore: error: ") and message in err and "Traceback" not in err


def test_list_name_prints_options_with_types_and_defaults(capsys):
    assert main(["list", "bertscore"]) == 0
    out = capsys.readouterr().out
    assert "idf" in out and "boolean (true/false)" in out and "default false" in out
    assert "layer" in out and "int >= 0 or auto" in out


def test_list_verbose_prints_every_metrics_options(capsys):
    assert main(["list", "-v"]) == 0
    out = capsys.readouterr().out
    assert "beta" in out and "sigma" in out and "tagger" in out


def test_list_unknown_name(capsys):
    assert main(["list", "nosuch"]) == 2
    assert "unknown metric 'nosuch'" in capsys.readouterr().err
