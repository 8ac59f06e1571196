import assert from "node:assert/strict";
import { test } from "node:test";
import { dimensionChanges } from "../../playground/page/dimension_changes.js";

// A decoder whose picture is the capsule decoded, moved: pixel d holds 10 * digit + dimension d,
// and pixel 16 the digit; the page's is a graph in its worker (tests/test_dimension_pictures.py
// holds its pictures to the server's).
const asked = [];
async function decodeAll(capsules, digit, offsetSets) {
  asked.push(offsetSets.length);
  return offsetSets.map((offsets) => {
    const picture = new Float32Array(17);
    for (let d = 0; d < 16; d++) picture[d] = capsules[digit * 16 + d] + offsets[d];
    picture[16] = digit;
    return picture;
  });
}

const capsules = Float32Array.from({ length: 160 }, (_, k) => k / 160);
const limits = Array.from({ length: 16 }, (_, d) => 0.05 + d / 100);

test("each dimension's change is its picture at +limit minus its picture at -limit, the others at zero", async () => {
  const changes = await dimensionChanges(decodeAll, capsules, 3, limits);
  assert.equal(changes.length, 16);
  changes.forEach((change, d) => {
    for (let pixel = 0; pixel < 17; pixel++) {
      const expected = pixel === d ? 2 * limits[d] : 0;
      assert.ok(Math.abs(change[pixel] - expected) < 1e-6, `dimension ${d}, pixel ${pixel}: ${change[pixel]}`);
    }
  });
});

test("some dimensions' changes are theirs of all, asked as one batch", async () => {
  asked.length = 0;
  const all = await dimensionChanges(decodeAll, capsules, 5, limits);
  const some = await dimensionChanges(decodeAll, capsules, 5, limits, 4, 8);
  assert.deepEqual(asked, [32, 8]);
  for (const [k, change] of some.entries()) assert.deepEqual(Array.from(change), Array.from(all[4 + k]));
});
