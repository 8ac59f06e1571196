import assert from "node:assert/strict";
import { test } from "node:test";
import { inkToMnist } from "../../playground/page/ink_to_mnist.js";
import { inks } from "../../playground/page/inks.js";
import { facts } from "./preprocessing.js";

const { side, field } = facts;

// A circle of `radius` pad units about (x, y) as one stroke.
const circle = (x, y, radius) =>
  Array.from({ length: 65 }, (_, k) => [
    x + radius * Math.cos((k * Math.PI) / 32),
    y + radius * Math.sin((k * Math.PI) / 32),
  ]).flat();

// The ink's box [top, bottom, left, right] and centre of mass [row, column] of a field.
function shape(ink, width) {
  let [top, bottom, left, right, mass, row, column] = [width, -1, width, -1, 0, 0, 0];
  ink.forEach((value, k) => {
    const [y, x] = [Math.floor(k / width), k % width];
    if (value > 0)
      [top, bottom, left, right] = [Math.min(top, y), Math.max(bottom, y), Math.min(left, x), Math.max(right, x)];
    [mass, row, column] = [mass + value, row + value * y, column + value * x];
  });
  return { box: [top, bottom, left, right], centre: [row / mass, column / mass] };
}

test("a stroke inks every pixel within half the brush of it, round at its ends", () => {
  const ink = inks([[50, 140, 230, 140]], null, facts);
  const at = (x, y) => ink[y * side + x];
  assert.equal(at(140, 140), 1);
  assert.equal(at(140, 140 - 9), 1); // the pixel's centre 8.5 units away: within 10
  assert.equal(at(140, 140 - 11), 0);
  assert.equal(at(50 - 9, 140), 1); // the round end
  assert.equal(at(50 - 11, 140), 0);
  assert.equal(at(50 - 8, 140 - 8), 0); // a square end would ink the corner
  assert.ok(ink.every((value) => value === 0 || value === 1));
});

test("an example under the strokes is its 28x28 ink enlarged to the pad", () => {
  const background = new Uint8Array(28 * 28);
  background[14 * 28 + 14] = 255;
  const ink = inks([], background, facts);
  assert.ok(ink[145 * side + 145] > 0.9); // the middle of that pixel, ten pad units a pixel
  assert.equal(ink[40 * side + 40], 0);
});

test("a drawing is made 28x28 as MNIST was: its ink fit into the box, its centre of mass in the middle", () => {
  for (const [x, y, radius] of [
    [60, 60, 30],
    [200, 150, 60],
    [140, 140, 100],
  ]) {
    const made = inkToMnist(inks([circle(x, y, radius)], null, facts), side, facts);
    assert.equal(made.length, field * field);
    assert.ok(made.every((value) => value >= 0 && value <= 1));
    const { box, centre } = shape(made, field);
    assert.ok(box[1] - box[0] <= facts.box + 1 && box[3] - box[2] <= facts.box + 1, `${box}`); // resampling blurs a pixel
    assert.ok(Math.max(box[1] - box[0], box[3] - box[2]) >= facts.box - 2, `${box}`); // the longer side fills the box
    for (const c of centre) assert.ok(Math.abs(c - facts.centre) <= 0.5, `centre ${centre}`); // moved by whole pixels
  }
});

test("a pad with no ink, or ink fainter than MNIST's faintest digit, makes no field", () => {
  assert.equal(inkToMnist(inks([], null, facts), side, facts), null);
  const faint = new Uint8Array(28 * 28).fill(Math.floor(255 * facts.min_contrast * 0.5));
  assert.equal(inkToMnist(inks([], faint, facts), side, facts), null);
});
