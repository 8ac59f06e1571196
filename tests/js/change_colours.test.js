import assert from "node:assert/strict";
import { test } from "node:test";
import { changeColours } from "../../playground/page/change_colours.js";
import { fixture, unpacked } from "./fixtures.js";

const { palette, changes, colours } = fixture("change_colours");

test("changeColours colours a change of ink as dimension_changes.change_colours does, level for level", () => {
  assert.deepEqual(Array.from(changeColours(unpacked(changes), palette)), Array.from(unpacked(colours)));
});

test("changeColours: added ink darker than the grey of no change, ink taken away lighter", () => {
  const [added, unchanged, removed] = [1, 0, -1].map((change) => changeColours([change], palette));
  const lightness = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  assert.ok(lightness(added) < lightness(unchanged) - 60, `added ${added}, unchanged ${unchanged}`);
  assert.ok(lightness(removed) > lightness(unchanged) + 30, `removed ${removed}, unchanged ${unchanged}`);
});
