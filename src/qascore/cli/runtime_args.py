"""`--device`, `--dtype`, `--threads` for the commands that run models (`score`, `meta`, `serve`).

They set every model metric's option unless the metric's own spec sets it
(`-m ava:device=cpu` wins over `--device cuda`):

- `--device` becomes the process default device (runtime.devices), so every
  model a metric loads without its own `device` goes there; it is checked before
  any work, and a device that does not exist is one error line (exit 2).
- `--dtype` other than fp32 is written into each model metric's spec
  (`-m ava` becomes `ava:dtype=bf16`), so the output key and the signature
  name it, as if the user had typed it; fp32 leaves specs as they are.
- `--threads` sets torch's threads (default: torch's, one per core, chosen by
  measurement, docs/devices.md; OMP_NUM_THREADS when set).
"""

from __future__ import annotations

import argparse
from typing import Sequence

from qascore.errors import UsageError
from qascore.runtime.devices import (DEVICE_HELP, DeviceError, check_device, max_threads, set_default_device,
                                     set_threads)

DTYPE_CHOICES = ("fp32", "bf16", "fp16")


def add_runtime_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", default="auto", metavar="DEVICE",
                   help=f"where every model metric runs unless its spec sets device=: {DEVICE_HELP} (default auto)")
    p.add_argument("--dtype", choices=DTYPE_CHOICES, default=None,
                   help="precision of every model metric unless its spec sets dtype= (default: each metric's "
                        "own, fp32 (exact), and for square bf16 on a CPU with bf16 units; bf16 is faster where "
                        "the hardware has it and moves scores slightly; it enters the output key and the "
                        "signature)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="CPU threads for the models (default: one per core, or OMP_NUM_THREADS; OpenMP threads "
                        "wait passively unless OMP_WAIT_POLICY is set; docs/devices.md has the measurements)")


def apply_runtime_arguments(args: argparse.Namespace) -> None:
    """Check the device, set the process defaults, and give each model metric spec the --dtype."""
    try:
        set_default_device(args.device)
    except DeviceError as err:
        raise UsageError(f"--device {err}") from None
    if args.threads is not None and not 1 <= args.threads <= max_threads():
        raise UsageError(f"--threads must be between 1 and {max_threads()} (4 per CPU core here, at most 1024), "
                         f"got {args.threads}")
    set_threads(args.threads)
    if getattr(args, "metric", None):
        args.metric = with_dtype(args.metric, args.dtype)


def with_dtype(specs: Sequence[str], dtype: str | None) -> list[str]:
    """Each spec whose metric declares `dtype` and does not set it gets `dtype=<dtype>`, unless that is
    already its default (fp32 for most: their output keys stay as given)."""
    if dtype is None:
        return list(specs)
    from qascore.metrics.registry import metric_class, parse_metric_spec

    out = []
    for spec in specs:
        name, options = parse_metric_spec(spec)
        try:
            option = metric_class(name).option_specs().get("dtype")
        except (KeyError, ImportError):  # an unknown name is reported when the metric is loaded
            option = None
        if option is not None and "dtype" not in options and not (dtype == "fp32" and option.none == "fp32"):
            spec = f"{spec}{',' if ':' in spec and not spec.endswith(':') else ':' if ':' not in spec else ''}dtype={dtype}"
        out.append(spec)
    return out


__all__ = ["add_runtime_arguments", "apply_runtime_arguments", "with_dtype", "check_device"]
