import { test } from "node:test";
import { inks } from "../../playground/page/inks.js";
import { fixture, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const facts = fixture("facts");
const cases = fixture("inks");

test("inks draws the strokes on an empty pad as drawing_pad.ink does", () => {
  for (const { name, strokes, ink } of cases.filter(({ background }) => background === null)) {
    assertSameValues(inks(strokes, null, facts), unpacked(ink), name);
  }
});

test("inks draws the strokes over an example's ink, enlarged, as drawing_pad.ink does", () => {
  for (const { name, strokes, background, ink } of cases.filter(({ background }) => background !== null)) {
    assertSameValues(inks(strokes, background, facts), unpacked(ink), name);
  }
});
