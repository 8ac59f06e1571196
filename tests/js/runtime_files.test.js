// ONNX Runtime Web's WebAssembly as the repository stores it in brotli
// (playground/onnxruntime-web/): the bytes the npm package ships, by their SHA-256 in its README.
// Python has no brotli to check it with; tests/test_page_network.py checks the gzipped file.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { brotliDecompressSync } from "node:zlib";

const FOLDER = new URL("../../playground/onnxruntime-web/", import.meta.url);
const NAME = "ort-wasm-simd-threaded.wasm";

test("the brotli WebAssembly is the package's, byte for byte", () => {
  const recorded = readFileSync(new URL("README.md", FOLDER), "utf8").match(
    new RegExp(`^\\| ${NAME.replaceAll(".", "\\.")} \\| ([0-9a-f]{64}) \\|$`, "m"),
  );
  assert.ok(recorded, `no SHA-256 of ${NAME} in the README`);
  const bytes = brotliDecompressSync(readFileSync(new URL(`${NAME}.br`, FOLDER)));
  assert.equal(createHash("sha256").update(bytes).digest("hex"), recorded[1]);
});
