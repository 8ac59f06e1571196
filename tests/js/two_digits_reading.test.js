import assert from "node:assert/strict";
import { test } from "node:test";
import { decodedAs, pairFields, pairReading } from "../../playground/page/two_digits_reading.js";
import { fixture, unpacked } from "./fixtures.js";
import { assertSameValues } from "./same_values.js";

const { facts, cases } = fixture("two_digits_reading");
const read = cases.filter(({ reading }) => reading !== null);
const FIELD = facts.field ** 2;
const TOLERANCE = 1e-5; // each capsule redrawn alone here, the two read in one batch by the server

// The pairs networks as the server ran them on a case's drawing: each graph's outputs, the input
// checked to be the server's (`run` of two_digits_reading.js).
function networksOf(reading) {
  const { image, capsules, lengths, probabilities, alone } = Object.fromEntries(
    ["image", "capsules", "lengths", "probabilities", "alone"].map((name) => [name, unpacked(reading[name])]),
  );
  const width = capsules.length / facts.classes;
  return async (graph, inputs) => {
    if (graph === "decoder") {
      const [rows] = inputs.capsules.dims;
      assert.equal(inputs.capsules.data.length, rows * capsules.length);
      const pictures = new Float32Array(rows * FIELD);
      for (let row = 0; row < rows; row++) {
        const masked = inputs.capsules.data.subarray(row * capsules.length, (row + 1) * capsules.length);
        const digit = Math.floor(masked.findIndex((v) => v !== 0) / width);
        const expected = capsules.map((v, k) => (Math.floor(k / width) === digit ? v : 0));
        assertSameValues(masked, expected, `the decoder's capsule ${digit}, masked`);
        pictures.set(alone.subarray(digit * FIELD, (digit + 1) * FIELD), row * FIELD);
      }
      return { pictures };
    }
    assert.deepEqual(inputs.images.dims, [1, 1, facts.field, facts.field]);
    assertSameValues(inputs.images.data, image, `the ${graph} graph's input`);
    return graph === "capsules" ? { capsules, lengths } : { probabilities };
  };
}

const pictures = (packed) => {
  const values = unpacked(packed);
  return Array.from({ length: values.length / FIELD }, (_, k) => values.subarray(k * FIELD, (k + 1) * FIELD));
};

const readOf = ({ drawing, revision, decode_as, reading }) =>
  pairReading({ ...drawing, revision }, facts, networksOf(reading), decode_as);

test("the fixtures read one digit and two, with each network's count rule", () => {
  const counts = (key) => new Set(read.map(({ reading }) => reading[key].length));
  assert.deepEqual([...counts("read")].sort(), [1, 2]);
  assert.deepEqual([...counts("cnn_read")].sort(), [1, 2]);
  assert.ok(read.some(({ reading }) => reading.decoded !== null && reading.decoded === reading.second));
  const second = ({ reading }) => unpacked(reading.lengths)[reading.second];
  const byInk = read.filter((each) => each.reading.read.length === 1 && second(each) >= facts.rule.second);
  assert.ok(byInk.length > 0, "no drawing read as one digit for its second redrawing's ink alone");
  assert.ok(read.length >= 16 && cases.length > read.length);
});

test("pairFields makes the two-pen pad's drawing the server's input and each pen's ink", () => {
  for (const { name, drawing, reading } of cases) {
    const fields = pairFields(drawing, facts);
    if (reading === null) {
      assert.equal(fields, null, name);
      continue;
    }
    const [image, ...layers] = fields;
    assertSameValues(image, unpacked(reading.image), `${name}: the input`);
    pictures(reading.layers).forEach((layer, pen) => {
      assertSameValues(layers[pen], layer, `${name}: pen ${pen + 1}'s ink`);
    });
  }
});

test("pairReading reads what the server's PairReader reads from the same network outputs", async () => {
  for (const reading of read) {
    const { name, revision, reading: expected } = reading;
    const pair = await readOf(reading);
    assert.equal(pair.revision, revision, name);
    assert.deepEqual(pair.read, expected.read, `${name}: the CapsNet's digits`);
    assert.deepEqual(pair.cnnRead, expected.cnn_read, `${name}: the CNN's digits`);
    assert.equal(pair.second, expected.second, name);
    assert.ok(Math.abs(pair.secondInk - expected.second_ink) < TOLERANCE, `${name}: ${pair.secondInk}`);
    assertSameValues(pair.lengths, unpacked(expected.lengths), `${name}: the lengths`);
    assertSameValues(pair.probabilities, unpacked(expected.probabilities), `${name}: the probabilities`);
    const redrawn = pictures(expected.redrawn);
    assert.equal(pair.redrawn.length, redrawn.length, name);
    redrawn.forEach((ink, k) => {
      assertSameValues(pair.redrawn[k], ink, `${name}: digit ${k + 1} redrawn`, TOLERANCE);
    });
    assert.deepEqual(
      pair.colours,
      expected.pens.map((pen) => facts.pen_colours[pen]),
      `${name}: each digit's pen`,
    );
    assert.deepEqual(pair.penColours, facts.pen_colours);
    assert.deepEqual(pair.rule, { second: facts.rule.second, secondInk: facts.rule.second_ink });
    assert.deepEqual(pair.cnnRule, { second: facts.cnn_rule.second, secondInk: facts.cnn_rule.second_ink });
    assert.equal(pair.decoded, expected.decoded, `${name}: Decode as`);
    if (expected.decoded === null) assert.equal(pair.decodedRedrawn, null, name);
    else assertSameValues(pair.decodedRedrawn, unpacked(expected.decoded_redrawn), `${name}: decoded`, TOLERANCE);
  }
});

test("pairReading reads nothing of a drawing with too little ink, and runs no network", async () => {
  const refused = async () => assert.fail("a network ran");
  for (const { name, drawing, revision } of cases.filter(({ reading }) => reading === null)) {
    assert.equal(await pairReading({ ...drawing, revision }, facts, refused, null), null, name);
  }
});

test("decodedAs redraws another capsule of a reading as pairReading would have, and none of a digit read", async () => {
  for (const reading of read.filter(({ reading }) => reading.decoded !== null)) {
    const run = networksOf(reading.reading);
    const plain = await pairReading({ ...reading.drawing, revision: reading.revision }, facts, run, null);
    const asked = await readOf(reading);
    const chosen = await decodedAs(plain, asked.decoded, facts, run);
    assert.equal(chosen.decoded, asked.decoded, reading.name);
    assertSameValues(chosen.decodedRedrawn, asked.decodedRedrawn, reading.name);
    const back = await decodedAs(chosen, plain.read[0], facts, run);
    assert.equal(back.decoded, null);
    assert.equal(back.decodedRedrawn, null);
  }
});
