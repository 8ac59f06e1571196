"""Filters of grey pictures in numpy, for the paper under a photo and the marks on it: the running
maximum and minimum (grey dilation and erosion), the box mean, a quantile over a window, and the
connected parts of a mask."""

import math

import numpy as np


def running(values: np.ndarray, size: int, extreme, axis: int | None = None) -> np.ndarray:
    """The running ``extreme`` (np.maximum or np.minimum) of ``values`` over windows of odd ``size``
    centred on each element along ``axis`` (None: over size x size squares), the windows cut at
    the edges. Windows doubled log2(size) times: each step takes the extreme of two halves."""
    if axis is None:
        return running(running(values, size, extreme, 0), size, extreme, 1)
    moved = np.moveaxis(values, axis, 0)
    pad = np.full((size // 2,) + moved.shape[1:], -np.inf if extreme is np.maximum else np.inf)
    result = np.concatenate([pad, moved, pad])
    covered = 1  # each element holds the extreme of the `covered` elements from it on
    while covered * 2 <= size:
        result = extreme(result[:-covered], result[covered:])
        covered *= 2
    if size > covered:
        result = extreme(result[: len(result) - (size - covered)], result[size - covered :])
    return np.moveaxis(result, 0, axis)


def closing(values: np.ndarray, size: int) -> np.ndarray:
    """The grey closing of ``values`` [H, W] by a size x size square: the darkest of the brightest
    within each window. Dark marks narrower than the window vanish; any level set that is a
    half-plane (a straight edge, a linear slope) is kept as it is. The picture's edge pixels are
    repeated a window's width beyond it, so that where a straight edge meets the picture's at a
    slant, what lies on its dark side is as wide as a window there too."""
    extended = np.pad(values, size, mode="edge")
    closed = running(running(extended, size, np.maximum), size, np.minimum)
    return closed[size : size + values.shape[0], size : size + values.shape[1]]


def box_mean(values: np.ndarray, size: int) -> np.ndarray:
    """The mean of ``values`` [H, W] over the size x size square about each pixel (odd ``size``),
    the picture's edges repeated beyond it."""
    padded = np.pad(values, size // 2, mode="edge")
    for axis in (0, 1):
        sums = np.cumsum(np.moveaxis(padded, axis, 0), axis=0)
        sums = np.concatenate([sums[size - 1 : size], sums[size:] - sums[:-size]])
        padded = np.moveaxis(sums, 0, axis) / size
    return padded


def local_quantile(values: np.ndarray, share: float, quantile: float, side: int) -> np.ndarray:
    """The ``quantile`` of ``values`` [H, W] within a square window ``share`` of its longer side
    about each pixel, taken on a copy box-averaged down to at most ``side`` pixels a side (what
    it is for varies slowly across the picture). Returns [H, W]."""
    factor = math.ceil(max(values.shape) / side)
    height, width = (length // factor for length in values.shape)
    small = values[: height * factor, : width * factor].reshape(height, factor, width, factor).mean(axis=(1, 3))
    half = max(1, round(share * max(height, width) / 2))
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(small, half, mode="edge"), (2 * half + 1,) * 2)
    local = np.quantile(windows.reshape(height, width, -1), quantile, axis=2)  # [h, w]
    rows = np.minimum(np.arange(values.shape[0]) // factor, height - 1)
    columns = np.minimum(np.arange(values.shape[1]) // factor, width - 1)
    return local[rows[:, None], columns]


def dilated(mask: np.ndarray, pixels: int) -> np.ndarray:
    """Bool ``mask`` [H, W] grown by ``pixels`` in every direction (a square)."""
    return running(mask.astype(np.float32), 2 * pixels + 1, np.maximum) > 0


def components(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """The 8-connected parts of bool ``mask`` [H, W]: labels int32 [H, W] (0 outside, 1..count)
    and count. Each row's runs are joined to the runs they touch in the row above (union-find)."""
    height, width = mask.shape
    steps = np.diff(np.pad(mask, ((0, 0), (1, 1))).astype(np.int8), axis=1)
    row_of, start = np.nonzero(steps == 1)
    _, end = np.nonzero(steps == -1)  # each run is [start, end) of its row, the runs in row order
    parent = list(range(len(start)))

    def root(run: int) -> int:
        while parent[run] != run:
            parent[run] = parent[parent[run]]
            run = parent[run]
        return run

    first = np.searchsorted(row_of, np.arange(height + 1))  # each row's first run
    for row in range(1, height):
        above = first[row - 1]
        for run in range(first[row], first[row + 1]):
            while above < first[row] and end[above] < start[run]:  # ends before this run's diagonal
                above += 1
            touching = above
            while touching < first[row] and start[touching] <= end[run]:  # starts by this run's diagonal
                parent[root(touching)] = root(run)
                touching += 1
    roots = np.array([root(run) for run in range(len(parent))], dtype=np.int64)
    unique, numbered = np.unique(roots, return_inverse=True)
    lengths = end - start
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    labels = np.zeros((height, width), dtype=np.int32)
    labels[np.repeat(row_of, lengths), np.repeat(start, lengths) + offsets] = np.repeat(numbered + 1, lengths)
    return labels, len(unique)
