"""`qascore score --chunk-size N [--resume] [--engine ray]`: the glue from flags to qascore.stream.

Issue 13's rules hold here too: metrics (typed options) and the output path are
checked before anything is read; `-` reads standard input (spooled to a
temporary file, since chunked scoring may read its input more than once: IDF's
first pass, --resume's check, Ray's workers); `-o -` streams the scored lines to
standard output and prints the corpus table on stderr; `-o FILE` appears only
when complete (FILE.part until then, which `--resume` continues).
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from qascore.cli.output import STDOUT, check_output, check_partial, say_written, spec_paths
from qascore.cli.options import load_metrics
from qascore.cli.table import print_corpus
from qascore.errors import UsageError
from qascore.records import STDIN, output_format, parse_mapping, stdin_bytes
from qascore.stream import DEFAULT_CHUNK_SIZE, RESUME_JSONL_ONLY, partial_path, say, score_file


def run_chunked(args: argparse.Namespace) -> int:
    """--output is written as its extension (or --output-format) says: CSV and TSV chunk by chunk too (their
    columns gathered in the pass that checks every record first), but only JSONL can be resumed."""
    # a symlink's target comes back: FILE.part goes beside the file written
    output = check_output(args.output, [args.input, *spec_paths(args.metric)], allowed=args.overwrite_input,
                          resume=args.resume)
    written_as = output_format(args.output, args.output_format)  # before anything is read
    if args.resume and written_as != "jsonl":
        raise UsageError(RESUME_JSONL_ONLY)
    specs, metrics = load_metrics(args.metric, with_specs=True)
    # a chunk larger than any file is the whole file (islice takes at most sys.maxsize)
    chunk_size = DEFAULT_CHUNK_SIZE if args.chunk_size is None else min(args.chunk_size, sys.maxsize)
    if args.engine != "ray" and args.address:
        raise UsageError("--address is for --engine ray")
    if output not in (None, STDOUT):
        check_partial(str(partial_path(output)))
    mapping = parse_mapping(args.map)
    with _input_file(args.input) as (path, source):
        fmt = args.input_format or ("jsonl" if args.input == STDIN else None)
        engine = None
        if args.engine == "ray":
            from qascore.engines.ray_engine import RayEngine

            engine = RayEngine(path, specs, chunk_size=chunk_size, workers=args.workers, address=args.address,
                               fmt=fmt, mapping=mapping, source=source)
        say(f"scoring in chunks of {chunk_size} ({args.engine} engine) with {', '.join(s[0] for s in specs)}...")
        summaries, n_new = score_file(path, metrics, output=output, chunk_size=chunk_size,
                                      resume_output=args.resume, mapping=mapping, fmt=fmt, engine=engine,
                                      source=source, strict=args.strict, output_format=written_as)
    n = summaries[0].mean.n
    if args.resume:
        print(f"scored {n_new} records ({n - n_new} kept from the output)", file=sys.stderr)
    else:
        say(f"scored {n_new} records")
    print_corpus([(s.label, s.corpus, s.signature) for s in summaries], n, args.format,
                 sys.stderr if args.output == STDOUT else sys.stdout)
    say_written(args.output, n)
    return 0


@contextmanager
def _input_file(path: str) -> Iterator[tuple[str, str | None]]:
    """(a path that can be read more than once, the name for errors). Standard input, a FIFO and a process
    substitution (`<(...)`, a pipe under /dev/fd) can be read once only, so they are spooled to a temporary
    file first; errors still name them."""
    if path != STDIN and not _read_once(path):
        yield path, None
        return
    # a spooled file keeps the name's extension, which says its format as the name's would
    fd, tmp = tempfile.mkstemp(prefix="qascore-stdin-", suffix=".part" if path == STDIN else Path(path).suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            if path == STDIN:
                shutil.copyfileobj(stdin_bytes(), fh, 1 << 20)
            else:
                with open(path, "rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 20)
        yield tmp, "<stdin>" if path == STDIN else path
    finally:
        os.unlink(tmp)


def _read_once(path: str) -> bool:
    """A FIFO, pipe, socket or character device: a second open waits for a writer or reads nothing."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # the reader names what is wrong with it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISBLK(mode))
