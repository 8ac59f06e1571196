import assert from "node:assert/strict";
import { test } from "node:test";
import { sharedWork } from "../../playground/page/shared_work.js";

// Once every promise settled so far has run its callbacks.
const settled = () => new Promise((resolve) => setImmediate(resolve));

// A worker that records what it is asked and answers each when `answer(index)` is called.
function heldWorker(name) {
  const worker = { name, asked: [], answers: [] };
  worker.ask = (kind, message) => {
    worker.asked.push([kind, message]);
    return new Promise((resolve) => worker.answers.push(() => resolve(`${name}:${message}`)));
  };
  worker.answer = async () => {
    worker.answers.shift()();
    await settled();
  };
  return worker;
}

test("sharedWork gives each piece to the first worker free, oldest piece first", async () => {
  const [a, b] = [heldWorker("a"), heldWorker("b")];
  const give = sharedWork("turn");
  give.add(a);
  give.add(b);
  const answers = ["1", "2", "3", "4"].map((piece) => give(piece));
  await settled();
  assert.deepEqual(a.asked, [["turn", "1"]]);
  assert.deepEqual(b.asked, [["turn", "2"]]);
  await b.answer(); // b is free first: it takes the oldest piece waiting
  assert.deepEqual(b.asked.at(-1), ["turn", "3"]);
  await a.answer();
  assert.deepEqual(a.asked.at(-1), ["turn", "4"]);
  await a.answer();
  await b.answer();
  assert.deepEqual(await Promise.all(answers), ["a:1", "b:2", "b:3", "a:4"]);
});

test("sharedWork keeps pieces waiting until a worker is added", async () => {
  const give = sharedWork("turn");
  const answer = give("1");
  await settled();
  const a = heldWorker("a");
  give.add(a);
  assert.deepEqual(a.asked, [["turn", "1"]]);
  await a.answer();
  assert.equal(await answer, "a:1");
});

test("sharedWork passes a worker's failure on and frees the worker", async () => {
  const failing = { ask: () => Promise.reject(new Error("no graph")) };
  const give = sharedWork("turn");
  give.add(failing);
  await assert.rejects(give("1"), /no graph/);
  await assert.rejects(give("2"), /no graph/);
});
