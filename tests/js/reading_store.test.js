import assert from "node:assert/strict";
import { test } from "node:test";
import { decoding, turns } from "../../playground/page/reading_store.js";

test("a topic keeps its newest value and tells each listener until it stops", () => {
  const heard = [];
  const stop = decoding.subscribe((value) => heard.push(value));
  decoding.publish({ digit: 3 });
  stop();
  decoding.publish(null);
  assert.deepEqual(heard, [{ digit: 3 }]);
  assert.equal(decoding.current(), null);
});

test("every listener hears what a control asks", () => {
  const heard = [];
  const stops = [
    turns.subscribe((value) => heard.push(["one", value.value])),
    turns.subscribe((value) => heard.push(["two", value.value])),
  ];
  turns.publish({ value: 1 });
  stops[0]();
  turns.publish({ value: 2 });
  stops[1]();
  assert.deepEqual(heard, [
    ["one", 1],
    ["two", 1],
    ["two", 2],
  ]);
});
