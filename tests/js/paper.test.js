import assert from "node:assert/strict";
import { test } from "node:test";
import { paper } from "../../playground/page/paper.js";
import { fixture, unpacked } from "./fixtures.js";

const inks = fixture("paper");

test("paper writes float32 ink as views.paper does: halves to even, ink beyond [0, 1] clipped", () => {
  assert.deepEqual(Array.from(paper(unpacked(inks.float32.ink))), inks.float32.paper);
});

test("paper reads float64 ink in float32, as views.paper does", () => {
  assert.deepEqual(Array.from(paper(inks.float64.ink)), inks.float64.paper);
});
