import assert from "node:assert/strict";
import { test } from "node:test";
import { argmax, numberedText } from "../../playground/page/panel_fill.js";
import { fixture } from "./fixtures.js";

const { texts, halfway_texts: halfwayTexts, argmax: maxima } = fixture("panel_fill");

test("numberedText writes a panel's numbers as views.py and turn_views.py write them", () => {
  for (const { name, template, values, text } of texts) assert.equal(numberedText(template, values), text, name);
});

test("numberedText rounds a number halfway between two to the even one, as Python's format does", () => {
  for (const { name, template, values, text } of halfwayTexts) {
    assert.equal(numberedText(template, values), text, `${name} of ${values}`);
  }
});

test("argmax finds the first of the largest values, as numpy's argmax does", () => {
  assert.deepEqual(
    maxima.map(({ values }) => argmax(values)),
    maxima.map(({ argmax }) => argmax),
  );
});
