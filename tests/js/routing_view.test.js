import assert from "node:assert/strict";
import { test } from "node:test";
import { cellEdges, heatmapPixels, voteHeat } from "../../playground/page/routing_view.js";

// routing_section.facts of the paper's network, and of a smaller one (CapsNetConfig(image_size=24,
// kernel_size=5): an 8x8 grid of 9x9 fields)
const PAPER = { image_size: 28, receptive_field: 17, stride: 2, grid: 6, types: 32 };
const SMALL = { image_size: 24, receptive_field: 9, stride: 2, grid: 8, types: 32 };
const FIELD_OUTLINE = [33, 102, 172];

const pixel = (pixels, side, y, x) => Array.from(pixels.subarray(4 * (y * side + x), 4 * (y * side + x) + 3));

for (const [name, facts] of Object.entries({ paper: PAPER, small: SMALL })) {
  test(`each cell is one stride wide and centred on its receptive field (${name})`, () => {
    for (const scale of [2, 4, 10]) {
      const edges = cellEdges(facts, scale);
      assert.equal(edges.length, facts.grid + 1);
      for (let k = 0; k < facts.grid; k++) {
        assert.equal(edges[k + 1] - edges[k], facts.stride * scale);
        const top = facts.stride * k; // the field's rows: [top, top + receptive_field)
        assert.equal((edges[k] + edges[k + 1]) / 2, (scale * (2 * top + facts.receptive_field)) / 2);
      }
    }
  });

  test(`the voting cell is coloured and what it sees outlined, the rest white (${name})`, () => {
    const [scale, row, col] = [10, 1, 4];
    const side = scale * facts.image_size;
    const heat = new Float64Array(facts.grid * facts.grid);
    heat[row * facts.grid + col] = 3;
    const pixels = heatmapPixels(facts, new Float32Array(facts.image_size ** 2), heat, scale);
    const edges = cellEdges(facts, scale);
    const [top, left] = [scale * facts.stride * row, scale * facts.stride * col];
    const [bottom, right] = [top + scale * facts.receptive_field, left + scale * facts.receptive_field];
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const [r, g, b] = pixel(pixels, side, y, x);
        const inBox = y >= top && y < bottom && x >= left && x < right;
        const inner = y >= top + 2 && y < bottom - 2 && x >= left + 2 && x < right - 2;
        const inCell = y >= edges[row] && y < edges[row + 1] && x >= edges[col] && x < edges[col + 1];
        if (inBox && !inner) assert.deepEqual([r, g, b], FIELD_OUTLINE, `outline at ${y}, ${x}`);
        else if (inCell) assert.ok(r > b, `the voting cell at ${y}, ${x} is ${[r, g, b]}`);
        else assert.deepEqual([r, g, b], [255, 255, 255], `white at ${y}, ${x}`);
      }
    }
  });
}

test("the digit is drawn darker over the cells, and no vote leaves the paper white", () => {
  const scale = 4;
  const side = 28 * scale;
  const image = new Float32Array(28 * 28);
  for (let y = 6; y < 20; y++) image.fill(1, y * 28 + 13, y * 28 + 15);
  const heat = Float64Array.from({ length: 36 }, (_, k) => ((k * 7919) % 13) / 13);
  const inked = heatmapPixels(PAPER, image, heat, scale);
  const paper = heatmapPixels(PAPER, new Float32Array(28 * 28), heat, scale);
  const none = heatmapPixels(PAPER, image, new Float64Array(36), scale);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const ink = image[Math.floor(y / scale) * 28 + Math.floor(x / scale)] === 1;
      const [a, b] = [pixel(inked, side, y, x), pixel(paper, side, y, x)];
      const outlined = b.every((level, c) => level === FIELD_OUTLINE[c]); // drawn over the ink
      if (ink && !outlined) assert.ok(a[0] + a[1] + a[2] < b[0] + b[1] + b[2], `ink at ${y}, ${x}`);
      else if (!ink) {
        assert.deepEqual(a, b);
        assert.deepEqual(pixel(none, side, y, x), [255, 255, 255]);
      }
    }
  }
});

test("the map of all types is the sum of each type's, after the iteration asked for", () => {
  const { types, grid } = PAPER;
  const primaries = types * grid * grid;
  const shares = Float32Array.from({ length: 2 * primaries }, (_, i) => (i % 97) / 97 + (i >= primaries ? 5 : 0));
  const all = voteHeat(PAPER, shares, 1, -1);
  const summed = new Float64Array(grid * grid);
  for (let t = 0; t < types; t++) {
    voteHeat(PAPER, shares, 1, t).forEach((value, p) => {
      summed[p] += value;
    });
  }
  for (let p = 0; p < grid * grid; p++) assert.ok(Math.abs(all[p] - summed[p]) < 1e-9);
  assert.deepEqual(
    Array.from(voteHeat(PAPER, shares, 1, 7)),
    Array.from(shares.subarray(primaries + 7 * 36, primaries + 8 * 36)),
  );
  assert.ok(voteHeat(PAPER, shares, 0, -1)[0] < all[0]); // the first iteration's shares, not the second's
});
