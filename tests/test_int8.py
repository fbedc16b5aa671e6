"""runtime/int8.py: int8 linear layers over calibrated fixed ranges read a row the same alone and in any batch."""

import json

import pytest
import torch
from torch import nn

from qascore.runtime.delta import file_sha256
from qascore.runtime.int8 import fixed_range_linears, int8_linears, ranges_file, read_ranges, record_ranges


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()


def test_a_row_reads_the_same_alone_and_in_any_batch_over_fixed_ranges():
    """Torch's dynamic int8 scales a batch's activations by the batch's own range, so a row moves with the rows
    beside it; over fixed ranges it does not (bit for bit), and it stays near the fp32 result."""
    model = _model()
    x = torch.randn(5, 8)
    x[4] *= 40  # a row with a wide range: it widens a per-batch scale for every other row
    ranges = record_ranges(model, lambda: [model(r[None]) for r in x[:4]], margin=1.1)
    assert set(ranges) == {"0", "2"} and all(lo <= 0 <= hi for lo, hi in ranges.values())
    fixed, per_batch = fixed_range_linears(model, ranges), int8_linears(model)
    with torch.no_grad():
        alone = torch.cat([fixed(r[None]) for r in x[:4]])
        assert torch.equal(fixed(x)[:4], alone) and torch.equal(fixed(x[[3, 0, 2, 1]]), alone[[3, 0, 2, 1]])
        assert not torch.equal(per_batch(x)[:4], torch.cat([per_batch(r[None]) for r in x[:4]]))
        assert torch.allclose(alone, model(x[:4]), atol=0.05)


def test_an_input_beyond_its_range_is_clamped_to_it():
    """A value past the calibrated range reads as the range's end (as static int8 would read it)."""
    model = _model()
    ranges = {"0": (-1.0, 1.0), "2": (-4.0, 4.0)}
    fixed = fixed_range_linears(model, ranges)
    with torch.no_grad():
        assert torch.equal(fixed(torch.full((1, 8), 50.0)), fixed(torch.full((1, 8), 1.0)))


def test_a_linear_layer_without_a_range_is_refused():
    with pytest.raises(KeyError, match="no calibrated range for the linear layer 2"):
        fixed_range_linears(_model(), {"0": (-1.0, 1.0)})


def test_ranges_are_read_beside_their_model_and_refused_for_another(tmp_path):
    model = tmp_path / "reader.safetensors"
    model.write_bytes(b"weights")
    assert ranges_file(model) == tmp_path / "reader.int8.json" and read_ranges(model) is None
    ranges_file(model).write_text(json.dumps({"model_sha256": file_sha256(model), "ranges": {"0": [-1, 2]}}))
    assert read_ranges(model) == {"0": (-1.0, 2.0)}
    model.write_bytes(b"other weights")
    with pytest.raises(ValueError, match="calibrated for another reader.safetensors"):
        read_ranges(model)
