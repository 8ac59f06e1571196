import assert from "node:assert/strict";
import { test } from "node:test";
import { newestOnly } from "../../playground/page/newest_only.js";

// Once every promise settled so far has run its callbacks.
const settled = () => new Promise((resolve) => setImmediate(resolve));

// Work that records the items it is given and finishes each when `finish` is called, in order;
// `running` and `most` count the pieces under way now and at most.
function heldWork() {
  const record = { started: [], finishers: [], running: 0, most: 0 };
  record.work = (item) => {
    record.started.push(item);
    record.running += 1;
    record.most = Math.max(record.most, record.running);
    return new Promise((resolve) => {
      record.finishers.push(() => {
        record.running -= 1;
        resolve();
      });
    });
  };
  record.finish = async () => {
    record.finishers.shift()();
    await settled();
  };
  return record;
}

test("newestOnly works on one item at a time", async () => {
  const held = heldWork();
  const offer = newestOnly(held.work, assert.fail);
  offer("a");
  await settled();
  offer("b");
  await settled();
  assert.deepEqual(held.started, ["a"]);
  await held.finish();
  assert.deepEqual(held.started, ["a", "b"]);
  await held.finish();
  assert.equal(held.most, 1);
});

test("newestOnly does only the newest of the items offered while it works", async () => {
  const held = heldWork();
  const offer = newestOnly(held.work, assert.fail);
  offer("a");
  await settled();
  for (const item of ["b", "c", "d"]) offer(item);
  await held.finish();
  await held.finish();
  assert.deepEqual(held.started, ["a", "d"]);
});

test("newestOnly reports a failure and still does the next item", async () => {
  const failures = [];
  const done = [];
  const offer = newestOnly(
    (item) => {
      if (item === "bad") throw new Error(item);
      done.push(item);
    },
    (error) => failures.push(error.message),
  );
  offer("bad");
  offer("good");
  await settled();
  assert.deepEqual(failures, ["bad"]);
  assert.deepEqual(done, ["good"]);
});

test("newestOnly's done() settles once nothing is under way or waiting", async () => {
  const held = heldWork();
  const offer = newestOnly(held.work, assert.fail);
  await offer.done();
  offer("a");
  await settled();
  offer("b");
  let done = false;
  offer.done().then(() => {
    done = true;
  });
  await held.finish();
  assert.equal(done, false, "done while b was under way");
  await held.finish();
  assert.equal(done, true, "not done once a and b were");
});

test("newestOnly with a limit of two works on two items at once, then the newest waiting", async () => {
  const held = heldWork();
  const offer = newestOnly(held.work, assert.fail, 2);
  for (const item of ["a", "b", "c", "d"]) offer(item);
  await settled();
  assert.deepEqual(held.started, ["a", "b"]);
  await held.finish();
  assert.deepEqual(held.started, ["a", "b", "d"]);
  await held.finish();
  await held.finish();
  assert.equal(held.most, 2);
});
