"""The `device` option every model metric declares: one help text, one check, never signed.

Why one place: a device that does not exist (`cuda` on a CPU-only machine, `cuda:7`)
must fail when the metric is built, before any work, with the same one line
whichever metric names it (runtime.devices.check_device).
"""

from __future__ import annotations

from qascore.metrics.options import Option
from qascore.runtime.devices import DEVICE_HELP, validate_device


def device_option() -> Option:
    """`device`: auto (the process default: `--device`, else CUDA when present, else CPU), cpu, cuda[:N], mps."""
    return Option("str", None, f"torch device: {DEVICE_HELP}", none="auto", signed=False, validate=validate_device)
