"""One line per event on stderr: third-party chatter off, Python warnings as `qascore: warning: ...`.

Why: transformers draws a `Loading weights` bar per model load and logs tokenizer
length notices on every run, and Python prints each warning with the source line
that raised it; in a log file that is noise around the one thing that matters.
qascore's own warnings (e.g. which record ids were truncated) say what happened
and where. `--debug` keeps Python's and transformers' own output.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from qascore.messages import warn

# Set only where the user has not chosen: their environment wins.
QUIET_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "TRANSFORMERS_VERBOSITY": "error",
             "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1", "TOKENIZERS_PARALLELISM": "false"}


def quiet(debug: bool) -> None:
    """Silence third-party progress bars and notices; route warnings through qascore.messages.warn."""
    if debug:
        return
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    warnings.showwarning = _one_line


def _one_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
              file: Any = None, line: str | None = None) -> None:
    warn(str(message))
