import assert from "node:assert/strict";
import { test } from "node:test";
import { argmax } from "../../playground/page/views.js";
import { fixture } from "./fixtures.js";

test("argmax finds the first of the largest values, as numpy's argmax does", () => {
  const cases = fixture("views").argmax;
  assert.deepEqual(
    cases.map(({ values }) => argmax(values)),
    cases.map((found) => found.argmax),
  );
});
