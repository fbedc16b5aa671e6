"""Declared metric options: type, default, range or choices, and one line of help.

Why: options reach a metric as text from the command line (`-m bertscore:idf=no`)
and as Python values from `qascore.load`. Without declared types, Python
truthiness turned `idf=no` into True and `layer=abc` into a TypeError deep in
scoring. Every metric declares its options with `Option`; `resolve` checks the
given values once, before any model is loaded, and says what was expected.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

TRUE_WORDS = ("true", "yes", "1")
FALSE_WORDS = ("false", "no", "0")
TYPES = ("bool", "int", "float", "str", "choice", "object")


class OptionError(ValueError, TypeError):
    """A metric option that is unknown or has a value of the wrong type or range (a TypeError too,
    as Python raises for an unknown keyword argument).

    `key` and `value` let the command line name the offending `-m NAME:key=value`.
    """

    def __init__(self, metric: str, key: str, value: Any, message: str) -> None:
        self.metric, self.key, self.value, self.message = metric, key, value, message
        super().__init__(f"{metric}: option '{key}': {message}")


@dataclass(frozen=True)
class Option:
    """One option of a metric. `none` is how None is written (e.g. 'auto'); empty: None not allowed."""

    type: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    none: str = ""
    python_only: str = ""  # why the option cannot be given as text, and what to use instead
    validate: Callable[[Any], None] | None = None  # extra syntax check of a parsed value (raises ValueError)
    signed: bool = True  # False: cannot change the numbers (batch size, device) or is signed another way

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"unknown option type {self.type!r}")

    # -- describing -------------------------------------------------------
    def kind(self) -> str:
        """'int >= 0 or auto', 'one of max, mean', ... for help texts and messages."""
        if self.type == "choice":
            text = "one of " + ", ".join(self.choices)
        elif self.type == "bool":
            text = "boolean (true/false)"
        elif self.type in ("int", "float"):
            text = self.type + _range_text(self.min, self.max)
        elif self.type == "object":
            text = "Python object"
        else:
            text = "string"
        return f"{text} or {self.none}" if self.none and self.none not in self.choices else text

    def default_text(self) -> str:
        return format_value(self.default, self.none)

    # -- checking ---------------------------------------------------------
    def check(self, value: Any) -> Any:
        """The typed value of `value` (text is parsed strictly); raises ValueError with what was expected."""
        if value is None or (isinstance(value, str) and self.none and value.strip().lower() == self.none):
            if self.none or self.default is None:
                return None
            raise ValueError(f"expected {self.kind()}, got none")
        if self.type == "object":
            if isinstance(value, str):
                raise ValueError(f"cannot be given as text: {self.python_only}")
            return value
        parsed = self._parse(value.strip()) if isinstance(value, str) else self._typed(value)
        self._in_range(parsed)
        if self.validate is not None:
            self.validate(parsed)
        return parsed

    def _parse(self, text: str) -> Any:
        try:
            return self._parse_text(text)
        except ValueError as err:  # the word for None (`auto`) is a valid answer too: say so
            if self.none and self.none not in self.choices and self.type in ("int", "float", "bool"):
                raise ValueError(f"{err} or {self.none}") from None
            raise

    def _parse_text(self, text: str) -> Any:
        low = text.lower()
        if self.type == "bool":
            if low in TRUE_WORDS or low in FALSE_WORDS:
                return low in TRUE_WORDS
            raise ValueError("expected a boolean (true/false)")
        if self.type == "int":
            try:
                if "_" in text:  # Python reads 1_0 as 10; nobody writing an option means that
                    raise ValueError(text)
                return int(text)
            except ValueError:
                raise ValueError(f"expected an integer{_range_text(self.min, self.max)}") from None
        if self.type == "float":
            try:
                value = float(text) if "_" not in text else math.nan  # 1_0 is not 10 here
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise ValueError(f"expected a number{_range_text(self.min, self.max)}")
            return value
        return text

    def _typed(self, value: Any) -> Any:
        """Python values: exact types only (True is not an int here, 1 is not a boolean)."""
        ok = {"bool": isinstance(value, bool),
              "int": isinstance(value, int) and not isinstance(value, bool),
              "float": isinstance(value, (int, float)) and not isinstance(value, bool),
              "str": isinstance(value, str), "choice": isinstance(value, str)}[self.type]
        if not ok:
            raise ValueError(f"expected {self.kind()}, got {type(value).__name__} {value!r}")
        if self.type == "float":
            if not math.isfinite(value):
                raise ValueError(f"expected a finite number, got {value!r}")
            return float(value)
        return value

    def _in_range(self, value: Any) -> None:
        if self.type == "choice" and value not in self.choices:
            raise ValueError(f"expected one of {', '.join(self.choices)}")
        if self.type in ("int", "float"):
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                noun = "an integer" if self.type == "int" else "a number"
                raise ValueError(f"expected {noun}{_range_text(self.min, self.max)}")


def _range_text(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f" in [{lo:g}, {hi:g}]"
    if lo is not None:
        return f" >= {lo:g}"
    if hi is not None:
        return f" <= {hi:g}"
    return ""


def format_value(value: Any, none: str = "none") -> str:
    """How a value is written on the command line (and in signatures): booleans as true/false."""
    if value is None:
        return none or "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def resolve(metric: str, specs: Mapping[str, Option], given: Mapping[str, Any]) -> dict[str, Any]:
    """Every declared option with its default or its checked given value; unknown names are errors."""
    for key in given:
        if key not in specs:
            known = ", ".join(specs) or "none"
            raise OptionError(metric, key, given[key],
                              f"unknown option (options of {metric}: {known}; see `qascore list {metric}`)")
    out: dict[str, Any] = {}
    for key, spec in specs.items():
        if key not in given:
            out[key] = spec.default
            continue
        try:
            out[key] = spec.check(given[key])
        except ValueError as err:
            raise OptionError(metric, key, given[key], str(err)) from None
    return out


# Token weights are Python objects (qascore.weights.TokenWeighter); keyphrase weights have their own metrics.
WEIGHTS_OPTION = Option("object", None, "token weights: a qascore.weights.TokenWeighter (Python API only)",
                        none="uniform",
                        python_only="a qascore.weights.TokenWeighter from Python; for keyphrase weights use "
                                    "the metrics kpqa-bleu1, kpqa-rougeL or kpqa-bertscore (`qascore list`)")


# Each reference of a record costs `ava` one cross-encoder pass and `bertscore` one encoding and one
# matching, so a single record with 200,000 references held a server's worker for minutes (issue 42).
# 256 leaves room for long alias lists (TriviaQA's) and bounds one record to a fraction of a second.
MAX_REFERENCES = 256


def max_references_option(default: int = MAX_REFERENCES) -> Option:
    """`max_references` of the metrics that read every reference with a model: a record with more is
    refused when it is checked, before any model runs (the option raises the bound)."""
    return Option("int", default, "references one record may have: a record with more is refused before any "
                  "model runs (each reference is read by the model)", min=1, signed=False)

