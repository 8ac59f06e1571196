import { test } from "node:test";
import { parseDecoderFile } from "../../playground/page/decode.js";
import { dimensionChanges } from "../../playground/page/dimension_changes.js";
import { fixture, fixtureBytes, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const GREY_LEVELS = 2 / 255; // the page's pictures are held to the server's within this

test("dimensionChanges gives dimension_changes's changes of ink within 2 grey levels of 255", () => {
  const decoder = parseDecoderFile(fixtureBytes("decoder.safetensors"));
  for (const [k, { capsules, digit, limits, changes }] of fixture("dimension_changes").entries()) {
    const expected = unpacked(changes);
    const found = dimensionChanges(decoder, capsules, digit, limits);
    const side = expected.length / limits.length;
    found.forEach((change, d) => {
      assertSameValues(change, expected.subarray(d * side, (d + 1) * side), `case ${k}, dimension ${d}`, GREY_LEVELS);
    });
  }
});

test("dimensionChanges of some dimensions gives theirs of all", () => {
  const decoder = parseDecoderFile(fixtureBytes("decoder.safetensors"));
  const [{ capsules, digit, limits }] = fixture("dimension_changes");
  const all = dimensionChanges(decoder, capsules, digit, limits);
  const some = dimensionChanges(decoder, capsules, digit, limits, 4, 8);
  for (const [k, change] of some.entries()) assertSameValues(change, all[4 + k], `dimension ${4 + k}`);
});
