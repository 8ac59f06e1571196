import assert from "node:assert/strict";
import { test } from "node:test";
import { inkToMnist } from "../../playground/page/ink_to_mnist.js";
import { fixture, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const facts = fixture("facts");
const cases = fixture("ink_to_mnist");

function assertFieldsMatch({ name, side, ink, field }) {
  const made = inkToMnist(unpacked(ink), side, facts);
  assert.ok(made !== null, `${name}: no field`);
  assertSameValues(made, unpacked(field), name);
}

test("inkToMnist makes the 28x28 field preprocess.ink_to_mnist makes", () => {
  for (const ink of cases.filter(({ field, centred_on_half_pixels }) => field !== null && !centred_on_half_pixels)) {
    assertFieldsMatch(ink);
  }
});

test("inkToMnist places a field whose centre of mass lies on a half pixel where preprocess.ink_to_mnist does", () => {
  for (const ink of cases.filter(({ centred_on_half_pixels }) => centred_on_half_pixels)) assertFieldsMatch(ink);
});

test("inkToMnist makes no field of ink too faint for preprocess.ink_to_mnist", () => {
  for (const { name, side, ink } of cases.filter(({ field }) => field === null)) {
    assert.equal(inkToMnist(unpacked(ink), side, facts), null, name);
  }
});
