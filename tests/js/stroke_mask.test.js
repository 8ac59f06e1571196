import { test } from "node:test";
import { strokeMask } from "../../playground/page/stroke_mask.js";
import { fixture, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const { side, brush } = fixture("facts");
const cases = fixture("stroke_mask");
const TIES = "centres half a brush away"; // fixtures.py `drawings`: pixel centres exactly BRUSH / 2 from a stroke

function assertMasksMatch({ name, strokes, mask }) {
  const drawn = new Uint8Array(side * side);
  for (const stroke of strokes) strokeMask(drawn, stroke, side, brush);
  assertSameValues(drawn, unpacked(mask), name);
}

test("strokeMask inks the pixels stroke_mask.stroke_mask inks: digits, scribbles, dots, the pad's edges", () => {
  for (const drawing of cases.filter(({ name }) => name !== TIES)) assertMasksMatch(drawing);
});

test("strokeMask inks a pixel whose centre lies exactly half a brush from a stroke", () => {
  assertMasksMatch(cases.find(({ name }) => name === TIES));
});
