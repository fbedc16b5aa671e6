"""`qascore meta --html`: the report's content (hand-made data, scipy as the reference) and, where
Chromium is installed, that it renders headless with no console message and no network request."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from qascore.cli import main

pytest.importorskip("matplotlib")

HUMAN = [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 2, 4]
GOOD = [0.1, 0.22, 0.31, 0.38, 0.52, 0.12, 0.19, 0.33, 0.41, 0.49, 0.2, 0.43]   # close to human / 10
NOISE = [0.5, 0.1, 0.9, 0.3, 0.2, 0.8, 0.4, 0.6, 0.1, 0.7, 0.3, 0.5]


@pytest.fixture
def report(tmp_path) -> Path:
    p = tmp_path / "judged.jsonl"
    p.write_text("".join(json.dumps({"candidate": "x", "human": h, "good": g, "noise": n}) + "\n"
                         for h, g, n in zip(HUMAN, GOOD, NOISE)))
    out = tmp_path / "report.html"
    assert main(["meta", str(p), "--human", "human", "--score-field", "good", "--score-field", "noise",
                 "--html", str(out), "--resamples", "200"]) == 0
    return out


def test_report_holds_table_plots_and_matrix(report):
    page = report.read_text(encoding="utf-8")
    r_good = stats.pearsonr(HUMAN, GOOD).statistic
    r_noise = stats.pearsonr(HUMAN, NOISE).statistic
    assert f"<td class='l'>good</td><td>{r_good:.3f}</td>" in page
    assert f"<td class='l'>noise</td><td>{r_noise:.3f}</td>" in page
    images = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)
    assert len(images) == 2 and all(base64.b64decode(i).startswith(b"\x89PNG\r\n\x1a\n") for i in images)
    # good (r ~ 0.99) beats noise (r ~ -0.3) significantly; noise does not beat good
    rows = dict(re.findall(r"<tr><th class='l'>(\w+)</th>(.*?)</tr>", page))
    assert "class='sig'" in rows["good"] and "class='sig'" not in rows["noise"]
    assert "http://" not in page and "https://" not in page and "<script" not in page


def test_html_needs_input_and_human(tmp_path, capsys):
    assert main(["meta", "-m", "f1", "--html", str(tmp_path / "r.html")]) == 2
    assert "--html needs INPUT and --human" in capsys.readouterr().err


def _chromium() -> str | None:
    return next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)


def render(page: Path, shot: Path) -> list[str]:
    """Screenshot `page` in headless Chromium; return the console lines it logged (messages, failed loads)."""
    done = subprocess.run([_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", f"--screenshot={shot}", "--window-size=1200,2400", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    return [ln for ln in done.stderr.splitlines() if ":CONSOLE" in ln]


needs_chromium = pytest.mark.skipif(_chromium() is None, reason="Chromium not installed (apt-get install chromium)")


@needs_chromium
def test_the_console_check_catches_a_console_message(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!doctype html><p>x</p><script>console.error('boom')</script>")
    assert any("boom" in ln for ln in render(bad, tmp_path / "bad.png"))


@needs_chromium
def test_report_renders_in_headless_chromium(report, tmp_path):
    from matplotlib.image import imread

    shot = tmp_path / "shot.png"
    assert render(report, shot) == []
    pixels = imread(str(shot))[..., :3]
    assert pixels.std() > 0.01  # not a blank page
    # the significant cell's shade #1d91c0 = (29, 145, 192) is drawn somewhere
    target = np.array([29, 145, 192]) / 255
    assert (np.abs(pixels - target).max(axis=-1) < 0.02).any()


def test_report_says_when_there_are_few_items(report):
    assert "<strong>Only 12 items:</strong> below 30" in report.read_text(encoding="utf-8")


# -- issue 43 item 13: the signature wraps, p-values as the terminal prints them, no lone "-" matrix -----------
def test_signatures_wrap_inside_the_page(report):
    page = report.read_text(encoding="utf-8")
    css = page[page.index("<style>"):page.index("</style>")]
    assert re.search(r"li code\{[^}]*overflow-wrap:anywhere", css)


def test_p_values_in_the_page_are_the_terminals(report, tmp_path, capsys):
    from qascore.cli.report import p_text

    # the terminal table of the same run: its p column for `good` (pearson, spearman, kendall)
    p = report.parent / "judged.jsonl"
    assert main(["meta", str(p), "--human", "human", "--score-field", "good", "--resamples", "200"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("good "))
    terminal_ps = re.findall(r"\]\s+(\S+)", line)
    page = report.read_text(encoding="utf-8")
    row = re.search(r"<tr><td class='l'>good</td>(.*?)</tr>", page).group(1)
    page_ps = re.findall(r"<td>([^<]*)</td>", row)[2::3]  # value, CI, p per method
    assert len(terminal_ps) == 3 and page_ps == terminal_ps
    # and the format itself, by hand: 3 decimals, scientific below 0.001
    assert [p_text(x) for x in (0.00912, 0.0456, 0.00042, 0.0, None)] == ["0.009", "0.046", "4.2e-04", "0", "n/a"]


def test_one_metric_has_no_comparison_matrix(tmp_path):
    p = tmp_path / "judged.jsonl"
    p.write_text("".join(json.dumps({"candidate": "x", "human": h, "good": g}) + "\n" for h, g in zip(HUMAN, GOOD)))
    out = tmp_path / "one.html"
    assert main(["meta", str(p), "--human", "human", "--score-field", "good", "--html", str(out),
                 "--resamples", "200"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "row beats column" not in page and "<td>-</td>" not in page
    assert "<h2>Correlations</h2>" in page and "<td class='l'>good</td>" in page
