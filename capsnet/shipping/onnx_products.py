"""Two steps of the CapsNet's graph (`capsnet.shipping.onnx_file.capsules_graph`) written as the
plain matrix products they are, for ONNX Runtime Web, which reads the graph in the page on one
thread of WebAssembly. The same sums, in another order: the capsules move by float32 rounding.

- The PrimaryCaps convolution (256 -> 256 channels, 9x9, stride 2) has 6x6 = 36 outputs a
  channel. Its 9x9x256 input patch at each of them is gathered into a row, and the 36 rows times
  the weights as one [20736, 256] matrix give the 36 outputs of every channel at once. As a Conv,
  the runtime arranges the patches into a [20736, 36] matrix at each reading and multiplies the
  weights by it; as a MatMul, the weights are the constant side, which it prepares once as the
  graph loads: 21 ms of the layer's time became 13.
- The predictions u_hat_j|i = W_ij u_i (eq. 2): one [1, 8] x [8, 160] product a primary capsule,
  a batched MatMul, instead of the runtime's general Einsum.

The capsules graph took 26 ms a reading as exported and 17 ms so, on the 2 cores of an Intel Xeon
(family 6 model 167), ONNX Runtime Web 1.30 in Node 20: `python -m bench.page_graphs`. The CNN's
8x8 convolution ran no faster as a product, and stays a Conv.

Each step is rewritten for the one image a run the page's graphs read ([1, 1, 28, 28]); the
weights keep their names, in the layout their product reads.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

PREDICTIONS = "ijdk,bik->bijd"  # u_hat_j|i = W_ij u_i, as capsnet.model.DigitCapsules writes it


def primary_convolution_as_product(model: onnx.ModelProto) -> None:
    """The graph's strided, unpadded convolution (PrimaryCaps) as a MatMul of its input's patches
    and its weights, in place: the same output [1, C_out, H_out, W_out]."""
    convolutions = [node for node in model.graph.node if node.op_type == "Conv"]
    node = _the_one([node for node in convolutions if _attributes(node).get("strides") != [1, 1]], "strided Conv")
    attributes = _attributes(node)
    plain = attributes.get("group", 1) == 1 and set(attributes.get("dilations", [1])) == {1}
    if any(attributes.get("pads", [0])) or not plain:
        raise ValueError(f"{node.name}: only an unpadded, ungrouped, undilated convolution is rewritten")
    weights = _initializer(model, node.input[1])
    out_channels, in_channels, kernel, _ = weights.shape  # [256, 256, 9, 9]
    batch, _, height, width = _shape(model, node.input[0])  # [1, 256, 20, 20]
    if batch != 1:
        raise ValueError(f"{node.name}: the rewrite reads one image a run, not {batch}")
    (stride, _) = attributes["strides"]
    rows, columns = (height - kernel) // stride + 1, (width - kernel) // stride + 1  # 6, 6
    # the input position under tap (ky, kx) of output (row, column), in that order: [36 * 81]
    patches = [
        (stride * row + ky) * width + stride * column + kx
        for row in range(rows) for column in range(columns) for ky in range(kernel) for kx in range(kernel)
    ]  # fmt: skip
    # matrix[(ky, kx, c_in), c_out] = weights[c_out, c_in, ky, kx]
    _replace_initializer(model, node.input[1], weights.transpose(2, 3, 1, 0).reshape(-1, out_channels))
    name = node.output[0]
    constants = {
        "channels_by_position": [in_channels, height * width],
        "patches": patches,
        "patch_rows": [rows * columns, kernel * kernel * in_channels],
        "output_shape": [1, out_channels, rows, columns],
    }
    _replace_node(model, node, constants, [
        helper.make_node("Reshape", [node.input[0], f"{name}/channels_by_position"], [f"{name}/features"]),
        helper.make_node("Transpose", [f"{name}/features"], [f"{name}/positions"], perm=[1, 0]),  # [400, 256]
        helper.make_node("Gather", [f"{name}/positions", f"{name}/patches"], [f"{name}/gathered"], axis=0),
        # [2916, 256] -> [36, 20736]
        helper.make_node("Reshape", [f"{name}/gathered", f"{name}/patch_rows"], [f"{name}/rows"]),
        helper.make_node("MatMul", [f"{name}/rows", node.input[1]], [f"{name}/product"]),  # [36, 256]
        helper.make_node("Add", [f"{name}/product", node.input[2]], [f"{name}/biased"]),
        helper.make_node("Transpose", [f"{name}/biased"], [f"{name}/by_channel"], perm=[1, 0]),  # [256, 36]
        helper.make_node("Reshape", [f"{name}/by_channel", f"{name}/output_shape"], [name]),
    ])  # fmt: skip


def predictions_as_product(model: onnx.ModelProto) -> None:
    """The graph's Einsum of u_hat_j|i = W_ij u_i (eq. 2) as a batched MatMul, in place: u
    [1, 1152, 8] -> [1152, 1, 8] x W [1152, 8, 10 * 16] -> u_hat [1, 1152, 10, 16]."""
    node = _the_one([node for node in model.graph.node if node.op_type == "Einsum"], "Einsum")
    if _attributes(node)["equation"] != PREDICTIONS.encode():
        raise ValueError(f"{node.name}: not the predictions' einsum {PREDICTIONS}")
    weights = _initializer(model, node.input[0])
    primaries, digits, digit_dim, primary_dim = weights.shape  # [1152, 10, 16, 8]
    if _shape(model, node.input[1])[0] != 1:
        raise ValueError(f"{node.name}: the rewrite reads one image a run")
    # matrix[i, k, (j, d)] = W[i, j, d, k]
    _replace_initializer(model, node.input[0], weights.transpose(0, 3, 1, 2).reshape(primaries, primary_dim, -1))
    name = node.output[0]
    constants = {"one_row_each": [primaries, 1, primary_dim], "output_shape": [1, primaries, digits, digit_dim]}
    _replace_node(model, node, constants, [
        helper.make_node("Reshape", [node.input[1], f"{name}/one_row_each"], [f"{name}/u"]),
        helper.make_node("MatMul", [f"{name}/u", node.input[0]], [f"{name}/product"]),  # [1152, 1, 160]
        helper.make_node("Reshape", [f"{name}/product", f"{name}/output_shape"], [name]),
    ])  # fmt: skip


def _the_one(nodes: list[onnx.NodeProto], what: str) -> onnx.NodeProto:
    if len(nodes) != 1:
        raise ValueError(f"the graph has {len(nodes)} {what} nodes, where the rewrite reads one")
    return nodes[0]


def _attributes(node: onnx.NodeProto) -> dict:
    return {attribute.name: helper.get_attribute_value(attribute) for attribute in node.attribute}


def _initializer(model: onnx.ModelProto, name: str) -> np.ndarray:
    (found,) = [tensor for tensor in model.graph.initializer if tensor.name == name]
    return numpy_helper.to_array(found)


def _replace_initializer(model: onnx.ModelProto, name: str, values: np.ndarray) -> None:
    """The initializer ``name`` holding ``values``, its old shape forgotten."""
    (found,) = [tensor for tensor in model.graph.initializer if tensor.name == name]
    found.CopyFrom(numpy_helper.from_array(np.ascontiguousarray(values), name))
    for recorded in [value for value in model.graph.value_info if value.name == name]:
        model.graph.value_info.remove(recorded)


def _shape(model: onnx.ModelProto, name: str) -> list[int]:
    """The static shape of the value ``name``, as the export recorded it."""
    (value,) = [value for value in model.graph.value_info if value.name == name]
    return [dimension.dim_value for dimension in value.type.tensor_type.shape.dim]


def _replace_node(model: onnx.ModelProto, node: onnx.NodeProto, constants: dict, nodes: list) -> None:
    """``nodes`` in ``node``'s place, reading ``constants`` (int64, named "<its output>/<key>")."""
    for key, values in constants.items():
        model.graph.initializer.append(numpy_helper.from_array(np.array(values, np.int64), f"{node.output[0]}/{key}"))
    position = list(model.graph.node).index(node)
    model.graph.node.remove(node)
    for offset, new in enumerate(nodes):
        model.graph.node.insert(position + offset, new)
