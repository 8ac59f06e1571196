// What each of the page's graphs costs a run in ONNX Runtime Web, one thread of WebAssembly, as
// the page's workers run them (playground/page/network_worker.js): run by bench/page_graphs.py,
// which writes the graphs and the runtime's files into FOLDER.
//
//   node bench/page_graphs.mjs FOLDER RUNS CHANGE NAME...
//
// FOLDER/NAME.onnx for each NAME; CHANGE: the turn graph's numbers, comma-separated. The routing
// graph routes the votes the capsules graph (NAME "capsules", given first) makes of the image.
//
// Prints one line a graph: NAME, then the median and the 10th and 90th percentiles of RUNS runs
// in milliseconds. The graphs take turns run by run, so a change of the machine's pace falls on
// all alike.

import { readFileSync } from "node:fs";

const [folder, runs, change, ...names] = process.argv.slice(2);
const ort = await import(`${folder}/ort.wasm.min.mjs`);
ort.env.wasm.numThreads = 1; // as in the page's workers
ort.env.wasm.wasmPaths = {
  mjs: `${folder}/ort-wasm-simd-threaded.mjs`,
  wasm: `${folder}/ort-wasm-simd-threaded.wasm`,
};

const field = 28;
const image = new Float32Array(field * field);
for (let row = 6; row < 22; row += 1) image[row * field + 14] = 1; // a 1's stroke
let votes = null; // the capsules graph's votes of the image, for the routing graph
const inputs = (session) => {
  if (session.inputNames.includes("votes")) return { votes };
  const given = { images: new ort.Tensor("float32", image, [1, 1, field, field]) };
  if (session.inputNames.includes("change")) {
    const numbers = Float64Array.from(change.split(","), Number);
    given.change = new ort.Tensor("float64", numbers, [numbers.length]);
  }
  return given;
};

const sessions = [];
for (const name of names) {
  const session = await ort.InferenceSession.create(readFileSync(`${folder}/${name}.onnx`), {
    executionProviders: ["wasm"],
  });
  for (let warm = 0; warm < 5; warm += 1) await session.run(inputs(session));
  if (name === "capsules") votes = (await session.run(inputs(session))).votes;
  sessions.push({ name, session, times: [] });
}
for (let run = 0; run < Number(runs); run += 1) {
  for (const { session, times } of sessions) {
    const given = inputs(session);
    const start = performance.now();
    await session.run(given);
    times.push(performance.now() - start);
  }
}
const at = (sorted, share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
for (const { name, times } of sessions) {
  const sorted = times.toSorted((a, b) => a - b);
  console.log(name, ...[0.5, 0.1, 0.9].map((share) => at(sorted, share).toFixed(2)));
}
