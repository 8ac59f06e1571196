import assert from "node:assert/strict";
import { test } from "node:test";
import { numberedText } from "../../playground/page/panel_fill.js";
import { argmax } from "../../playground/page/views.js";
import { fixture } from "./fixtures.js";

const { texts, argmax: maxima } = fixture("panel_fill");

test("numberedText writes the turn panel's numbers as turn_views.py writes them", () => {
  for (const { name, template, values, text } of texts) assert.equal(numberedText(template, values), text, name);
});

test("argmax finds the first of the largest values, as numpy's argmax does", () => {
  assert.deepEqual(
    maxima.map(({ values }) => argmax(values)),
    maxima.map(({ argmax }) => argmax),
  );
});
