"""One device, dtype and thread rule for every model metric.

Why: each model metric used to pick its own device (the verifiers only the CPU),
so a user with a GPU had to repeat `:device=cuda` on every `-m`, and a device that
does not exist failed deep inside a model load. Here:

- `check_device(text)` says whether a device exists *before any work* ("auto",
  "cpu", "cuda", "cuda:N", "mps"); the metrics' `device` option and the
  command line's `--device` both call it, so the error is one line.
- `set_default_device(text)` is the process default that `pick_device(None)`
  returns (the command line's `--device`); `auto` means CUDA when present, else CPU.
- `set_threads(n)` sets torch's intra-op threads (the command line's `--threads`);
  without it torch keeps its default, one thread per core (chosen by measurement,
  docs/devices.md: with PASSIVE waiting, two threads on two cores were never slower
  than one and up to 1.8x faster).
- `quiet_omp_wait()` sets OMP_WAIT_POLICY=PASSIVE unless the user set it: OpenMP
  workers then sleep instead of spinning between parallel regions. Spinning is what
  made two threads 1.3-3x slower than one while another process was busy
  (docs/devices.md).

`device` never enters a signature (a score must not depend on it beyond float
noise, tested where CUDA exists); `dtype` does whenever it is not fp32.
"""

from __future__ import annotations

import contextlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator, Sequence, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")

DEVICE_HELP = "auto (CUDA when present, else CPU), cpu, cuda, cuda:N or mps"
# None: torch's default (one thread per core); measured in docs/devices.md.
DEFAULT_THREADS: int | None = None

_default_device: str | None = None
_PATTERN = re.compile(r"^(auto|cpu|mps|cuda)(:(\d+))?$")


class DeviceError(ValueError):
    """A device that does not exist on this machine (or is not written as one)."""


def check_device(text: str | None) -> str | None:
    """`text` normalised ("auto" -> None) if that device exists here; DeviceError saying why not."""
    if text is None:
        return None
    spec = str(text).strip().lower()
    m = _PATTERN.match(spec)
    if not m or (m.group(1) in ("auto", "cpu") and m.group(2)):
        raise DeviceError(f"'{text}' is not a device; expected {DEVICE_HELP}")
    kind, index = m.group(1), m.group(3)
    if kind == "auto":
        return None
    if kind == "cpu":
        return "cpu"
    import torch

    if kind == "mps":
        if not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise DeviceError(f"'{text}': MPS is not available on this machine")
        return spec
    if not torch.cuda.is_available():
        raise DeviceError(f"'{text}': CUDA is not available on this machine (torch {torch.__version__})")
    n = torch.cuda.device_count()
    if index is not None and int(index) >= n:
        raise DeviceError(f"'{text}': this machine has {n} CUDA device{'s' if n != 1 else ''} "
                          f"(cuda:0{f' to cuda:{n - 1}' if n > 1 else ''})")
    return spec


def validate_device(value: Any) -> None:
    """The `device` option's check (metrics.options.Option.validate): raises ValueError."""
    check_device(value)


def set_default_device(text: str | None) -> None:
    """The device `pick_device(None)` returns from now on (None / "auto": CUDA when present, else CPU)."""
    global _default_device
    _default_device = check_device(text)


def default_device() -> str | None:
    return _default_device


def pick_device(device: str | None = None) -> str:
    """`device` if given, else the process default, else CUDA when present, else CPU."""
    if device:
        return device
    if _default_device:
        return _default_device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def quiet_omp_wait() -> None:
    """OMP_WAIT_POLICY=PASSIVE unless set: must run before torch loads its OpenMP runtime."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def max_threads() -> int:
    """The most threads `--threads` may ask for: 4 per CPU core, at most 1024 (20,000 threads failed to start
    and 100,000 crashed the process, issue 42; more threads than cores only slow a model down)."""
    return max(1, min(1024, 4 * (os.cpu_count() or 1)))


@contextlib.contextmanager
def intra_op_threads(n: int) -> Iterator[None]:
    """torch's intra-op threads at `n` inside the block, then as before: for workers that each run a whole small
    batch on a thread of their own."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def on_threads(run: Callable[[_T], _R], batches: Sequence[_T], share: bool) -> Iterator[_R]:
    """`run` over the batches, in order. Where `share` (a model in int8, whose kernels keep to one thread: two
    threads read the judge's int8 reader no faster than one) and torch has more than one intra-op thread, the batches
    are shared out to that many workers, each with one intra-op thread; a batch's result is the one it has alone."""
    import torch

    workers = torch.get_num_threads() if share else 1
    if workers <= 1 or len(batches) <= 1:
        yield from map(run, batches)
        return
    with intra_op_threads(1), ThreadPoolExecutor(workers) as pool:
        yield from pool.map(run, batches)


def set_threads(n: int | None) -> int:
    """torch's intra-op threads: `n`, else DEFAULT_THREADS when set, else torch's own default (which
    follows OMP_NUM_THREADS); returns the number in use."""
    import torch

    n = DEFAULT_THREADS if n is None else n
    if n is None:
        return torch.get_num_threads()
    if not 1 <= n <= max_threads():
        raise ValueError(f"threads must be between 1 and {max_threads()} (4 per CPU core, at most 1024), got {n}")
    torch.set_num_threads(n)
    return n
