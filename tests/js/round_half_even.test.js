import assert from "node:assert/strict";
import { test } from "node:test";
import { roundHalfEven } from "../../playground/page/round_half_even.js";
import { fixture } from "./fixtures.js";

test("roundHalfEven rounds as numpy's rint does: halves to even, the sign of zero kept", () => {
  const cases = fixture("round_half_even");
  assert.deepEqual(
    cases.map(({ x }) => [x, roundHalfEven(x)]),
    cases.map(({ x, rounded }) => [x, rounded]),
  );
});
