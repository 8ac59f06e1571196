import assert from "node:assert/strict";
import { test } from "node:test";
import { degrees, firstMisreads, misreadText, unturned } from "../../playground/page/sweep_fill.js";
import { fixture } from "./fixtures.js";

const words = fixture("sweep_fill");

test("degrees writes whole angles as turn_views.degrees does", () => {
  assert.deepEqual(
    words.degrees.map(({ angle }) => degrees(angle)),
    words.degrees.map(({ text }) => text),
  );
});

test("unturned finds the first angle nearest 0, as numpy's argmin of their sizes does", () => {
  for (const { angles, unturned: nearest } of words.sweeps) assert.equal(unturned(angles), nearest, `${angles}`);
});

test("firstMisreads finds the angles turn_views.first_misreads finds", () => {
  for (const { angles, readings, digit, first_misreads } of words.sweeps) {
    assert.deepEqual(firstMisreads(angles, readings, digit), first_misreads, `${digit} read as ${readings}`);
  }
});

test("misreadText says what turn_views.misread_text says", () => {
  for (const { angles, readings, digit, text } of words.sweeps) {
    assert.equal(misreadText(angles, readings, digit), text, `${digit} read as ${readings}`);
  }
});
