import assert from "node:assert/strict";
import { test } from "node:test";
import { decode, parseDecoderFile } from "../../playground/page/decode.js";
import { fixture, fixtureBytes, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const GREY_LEVELS = 2 / 255; // the page's pictures are held to the server's within this
const { config, layers, cases, every_float16: everyFloat16 } = fixture("decode");
const file = fixtureBytes("decoder.safetensors");

test("parseDecoderFile reads the config and the layers capsnet/shipping/decoder_file.py writes", () => {
  const decoder = parseDecoderFile(file);
  assert.deepEqual(decoder.config, config);
  assert.deepEqual(
    decoder.layers.map(({ outputs, inputs }) => [outputs, inputs]),
    layers,
  );
});

test("parseDecoderFile refuses a decoder whose weights are not float16", () => {
  const header = Number(new DataView(file).getBigUint64(0, true));
  const text = new TextDecoder().decode(new Uint8Array(file, 8, header));
  const bytes = new Uint8Array(file.slice(0));
  bytes.set(new TextEncoder().encode(text.replace('"F16"', '"F32"')), 8); // as long: the header's length holds
  assert.throws(() => parseDecoderFile(bytes.buffer), /is not float16/);
});

test("decode draws network.decode's pictures within 2 grey levels of 255", () => {
  const decoder = parseDecoderFile(file);
  for (const [k, { capsules, digit, offsets, picture }] of cases.entries()) {
    const what = `case ${k}, capsule ${digit} ${offsets ? "moved" : "as read"}`;
    assertSameValues(decode(decoder, capsules, digit, offsets), unpacked(picture), what, GREY_LEVELS);
  }
});

test("parseDecoderFile reads every float16 as torch does: subnormals, zeros of both signs, infinities, NaN", () => {
  const { layers } = parseDecoderFile(fixtureBytes("every_float16.safetensors"));
  const halves = unpacked(everyFloat16);
  assertSameValues(layers[0].weight.subarray(0, halves.length), halves, "the float16 of bits 0 to 65535");
});
