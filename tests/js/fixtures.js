// The fixtures tests/js/fixtures.py writes, read from the folder CAPSNET_JS_FIXTURES names: what the
// Python that playground/page/'s modules port makes of the same inputs.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

const folder = process.env.CAPSNET_JS_FIXTURES;
if (!folder) {
  throw new Error(
    "CAPSNET_JS_FIXTURES is not set: write the fixtures with `python -m tests.js.fixtures DIR` " +
      "and run the tests with CAPSNET_JS_FIXTURES=DIR (or `npm test`, which does both)",
  );
}

const TYPED_ARRAYS = { float32: Float32Array, uint8: Uint8Array };

// The parsed JSON of fixture `name` (stroke_mask for stroke_mask.json).
export const fixture = (name) => JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8"));

// An array fixtures.py `packed`: {dtype, shape, deflated} as a typed array of its values.
export function unpacked({ dtype, deflated }) {
  const bytes = new Uint8Array(inflateSync(Buffer.from(deflated, "base64"))); // a buffer of its own, aligned
  return new TYPED_ARRAYS[dtype](bytes.buffer);
}
