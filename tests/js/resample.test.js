import { test } from "node:test";
import { enlargeBytes, FILTERS, resizeFloat } from "../../playground/page/resample.js";
import { fixture, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const { out_side: outSide, floats, enlarged } = fixture("resample");

function assertResizesMatch(filter, pictures) {
  for (const { side, pixels, resized } of pictures) {
    const what = `${side}x${side} to ${outSide}x${outSide}`;
    assertSameValues(resizeFloat(unpacked(pixels), side, outSide, FILTERS[filter]), unpacked(resized[filter]), what);
  }
}

test("resizeFloat resizes float pictures by the box filter as Pillow does", () => {
  assertResizesMatch("box", floats);
});

test("resizeFloat enlarges float pictures by the bilinear filter as Pillow does", () => {
  assertResizesMatch(
    "bilinear",
    floats.filter(({ side }) => side <= outSide),
  );
});

test("resizeFloat shrinks float pictures by the bilinear filter as Pillow does", () => {
  assertResizesMatch(
    "bilinear",
    floats.filter(({ side }) => side > outSide),
  );
});

test("enlargeBytes enlarges 8-bit inks bilinearly as Pillow does", () => {
  for (const [k, { pixels, resized }] of enlarged.entries()) {
    const small = unpacked(pixels);
    const big = unpacked(resized);
    assertSameValues(enlargeBytes(small, Math.sqrt(small.length), Math.sqrt(big.length)), big, `ink ${k}`);
  }
});
