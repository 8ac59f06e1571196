import assert from "node:assert/strict";
import { test } from "node:test";
import { changeColours } from "../../playground/page/change_colours.js";

// playground/dimension_changes.py PALETTE
const palette = { unchanged: [180, 180, 180], added: [8, 48, 107], removed: [255, 237, 160], full_change: 0.5 };
const colours = (changes) => Array.from(changeColours(changes, palette));

test("no change is the grey, a full change or more the colour of ink added or taken away", () => {
  assert.deepEqual(colours([0, 0.5, -0.5, 3, -3]), [
    ...palette.unchanged,
    ...palette.added,
    ...palette.removed,
    ...palette.added,
    ...palette.removed,
  ]);
});

test("a change short of full is its share of the way from the grey to the colour", () => {
  const [half, lessHalf] = [colours([0.25]), colours([-0.25])];
  for (let c = 0; c < 3; c++) {
    assert.ok(Math.abs(half[c] - (palette.unchanged[c] + palette.added[c]) / 2) <= 0.5);
    assert.ok(Math.abs(lessHalf[c] - (palette.unchanged[c] + palette.removed[c]) / 2) <= 0.5);
  }
});

test("added ink darker than the grey of no change, ink taken away lighter", () => {
  const [added, unchanged, removed] = [1, 0, -1].map((change) => colours([change]));
  const lightness = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  assert.ok(lightness(added) < lightness(unchanged) - 60, `added ${added}, unchanged ${unchanged}`);
  assert.ok(lightness(removed) > lightness(unchanged) + 30, `removed ${removed}, unchanged ${unchanged}`);
});
