import assert from "node:assert/strict";
import { test } from "node:test";
import { decoding, redraws, turns } from "../../playground/page/reading_store.js";

test("an offer nobody takes says so, and the panel that offered asks the server", () => {
  const seen = [];
  const stop = redraws.take((value) => {
    seen.push(value);
    return false;
  });
  assert.equal(redraws.offer({ offsets: null }), false);
  assert.deepEqual(seen, [{ offsets: null }]);
  stop();
});

test("every taker sees an offer, whichever of them takes it", () => {
  const seen = [];
  const stops = [
    turns.take((value) => seen.push(["takes", value.value]) && true),
    turns.take((value) => {
      seen.push(["looks", value.value]);
      return false;
    }),
  ];
  assert.equal(turns.offer({ value: 1 }), true);
  assert.deepEqual(seen, [
    ["takes", 1],
    ["looks", 1],
  ]);
  stops[0]();
  assert.equal(turns.offer({ value: 2 }), false); // the taker is gone
  stops[1]();
});

test("a topic keeps its newest value and tells each listener until it stops", () => {
  const heard = [];
  const stop = decoding.subscribe((value) => heard.push(value));
  decoding.publish({ digit: 3 });
  stop();
  decoding.publish(null);
  assert.deepEqual(heard, [{ digit: 3 }]);
  assert.equal(decoding.current(), null);
});
