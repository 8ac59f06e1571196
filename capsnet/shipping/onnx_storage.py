"""How the page's graphs (`capsnet.shipping.onnx_file`) store a network's weights: the bytes a
visitor fetches before the page can read.

- float16, two bytes a weight, cast to float32 as the graph starts: the networks read as in
  float32, to float16's rounding;
- 8 bits for the weights chosen on the validation digits (the CapsNet's PrimaryCaps convolution and
  its W_ij, 6.8 M of its 8.2 M weights), one byte a weight: int8 values q and one float32 scale s
  per group of weights (`EightBits`: the convolution's output channels; W_ij's pairs i, j of a
  primary capsule and a digit), symmetric (w ~ q * s, s = max |w| of the group / 127, q in
  -127 .. 127), turned back into float32 as the graph starts by a Cast and a Mul (and a Reshape
  where the groups were seen in another shape).

Either way every node reads, under the weight's own name, the float32 tensor it read before, and
ONNX Runtime computes it once, as the graph loads (constant folding), so the graph runs as fast as
with float32 weights. ONNX's own DequantizeLinear would say the same thing, but ONNX Runtime keeps
it in the graph to fuse it with the MatMul it feeds, and that fused product ran the capsules graph
twice as slowly in ONNX Runtime Web as the float32 product it folds a Mul into
(docs/playground.md).
"""

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LARGEST = 127  # the largest |w| of a group is stored as +-127: symmetric, zero stays exact


@dataclass(frozen=True)
class EightBits:
    """How a weight is stored in 8 bits: seen as ``shape`` (the same values in the same order; its
    own shape where None), one scale for each index along ``axes`` of that shape, shared by the
    weights along the other axes."""

    axes: tuple[int, ...]
    shape: tuple[int, ...] | None = None


def eight_bits(weight: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``weight`` as int8 values and one float32 scale for each index along ``axes``, the scales
    shaped to multiply the values back: ``values * scales`` ~ ``weight``, within half a scale. A
    group of zeros gets the scale 1."""
    kept = {axis % weight.ndim for axis in axes}
    others = tuple(dimension for dimension in range(weight.ndim) if dimension not in kept)
    largest = np.abs(weight).max(axis=others, keepdims=True).astype(np.float32)  # one a group
    scales = np.where(largest > 0, largest / LARGEST, np.float32(1)).astype(np.float32)
    return np.rint(weight / scales).astype(np.int8), scales


def as_loaded(weight: np.ndarray, storage: EightBits | None) -> np.ndarray:
    """The float32 weight a graph makes of ``weight`` as it loads: from 8 bits as ``storage`` says,
    or where it is None from float16."""
    if storage is None:
        return weight.astype(np.float16).astype(np.float32)
    values, scales = eight_bits(weight if storage.shape is None else weight.reshape(storage.shape), storage.axes)
    return (values.astype(np.float32) * scales).reshape(weight.shape)  # the graph's Cast, Mul and Reshape


def store_weights(graph: onnx.GraphProto, weights: set[str], eight_bit: dict[str, EightBits]) -> None:
    """Each of the network's ``weights`` in ``graph`` stored in float16 (under its name + "_f16"),
    or where ``eight_bit`` names it in 8 bits as it says (under its name + "_int8" and "_scale"),
    and the nodes that make float32 of it again under its own name at the graph's start. The
    graph's own constants (an epsilon below float16's range) stay float32."""
    unknown = eight_bit.keys() - weights
    if unknown:
        raise ValueError(f"not weights of the network: {sorted(unknown)}")
    makers = []
    for initializer in [tensor for tensor in graph.initializer if tensor.name in weights]:
        name, weight = initializer.name, numpy_helper.to_array(initializer)
        graph.initializer.remove(initializer)
        if name not in eight_bit:
            graph.initializer.append(numpy_helper.from_array(weight.astype(np.float16), f"{name}_f16"))
            makers.append(helper.make_node("Cast", [f"{name}_f16"], [name], to=TensorProto.FLOAT))
            continue
        storage = eight_bit[name]
        seen = weight if storage.shape is None else weight.reshape(storage.shape)
        values, scales = eight_bits(seen, storage.axes)
        graph.initializer.extend(
            [numpy_helper.from_array(values, f"{name}_int8"), numpy_helper.from_array(scales, f"{name}_scale")]
        )
        scaled = name if storage.shape is None else f"{name}_grouped"
        makers += [
            helper.make_node("Cast", [f"{name}_int8"], [f"{name}_unscaled"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{name}_unscaled", f"{name}_scale"], [scaled]),  # q * s
        ]
        if storage.shape is not None:  # back to the shape the graph reads
            shape = numpy_helper.from_array(np.array(weight.shape, dtype=np.int64), f"{name}_shape")
            graph.initializer.append(shape)
            makers.append(helper.make_node("Reshape", [scaled, shape.name], [name]))
    for position, maker in enumerate(makers):
        graph.node.insert(position, maker)
