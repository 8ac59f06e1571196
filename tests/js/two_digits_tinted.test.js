import assert from "node:assert/strict";
import { test } from "node:test";
import { tinted } from "../../playground/page/two_digits_tinted.js";

test("tinted: no ink is white paper, full ink its colour, the stronger ink on top, the first where equal", () => {
  const [blue, orange] = ["#1f6fd1", "#e66100"];
  const drawn = tinted([Float32Array.of(0, 1, 0.25, 0.5), Float32Array.of(0, 0, 0.75, 0.5)], [blue, orange]);
  assert.deepEqual(Array.from(drawn.slice(0, 6)), [255, 255, 255, 0x1f, 0x6f, 0xd1]);
  // orange at 0.75: 63.75 + 172.5, 63.75 + 72.75 (136.5, a half: to the even 136), 63.75 + 0
  assert.deepEqual(Array.from(drawn.slice(6, 9)), [236, 136, 64]);
  assert.deepEqual(Array.from(drawn.slice(9)), [(255 + 31) / 2, (255 + 111) / 2, (255 + 209) / 2]);
});
