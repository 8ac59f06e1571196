// What every panel of the page is drawn with: ink as a picture (black ink on white paper, a PNG
// data URL, shown large and crisp by playground.css) and pictures in colour, the bars of ten numbers
// in [0, 1], text made safe for HTML, the panel that says why a view shows nothing; and the server's
// numbers as the page's (playground/views.py ink_base64, float32_base64).

import { paper } from "./paper.js";

// `text` safe inside HTML, as text or an attribute's value.
export const escaped = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The index of the largest of `values` (the first where several are, as numpy's argmax).
export const argmax = (values) => values.indexOf(Math.max(...values));

// A picture of `pixels`, `channels` a pixel (1: grey, 3: RGB), `width` wide (square where not
// given), as a PNG data URL.
function pngUrl(pixels, channels, width = Math.sqrt(pixels.length / channels)) {
  const height = pixels.length / channels / width;
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext("2d");
  const image = context.createImageData(width, height);
  for (let k = 0; k < width * height; k++) {
    for (let c = 0; c < 3; c++) image.data[4 * k + c] = pixels[channels * k + (channels === 3 ? c : 0)];
    image.data[4 * k + 3] = 255;
  }
  context.putImageData(image, 0, 0);
  return canvas.toDataURL("image/png");
}

// A picture of ink in [0, 1] as a PNG data URL, square or `width` wide: black ink on white paper.
export const pictureUrl = (ink, width) => pngUrl(paper(ink), 1, width);

// A square picture of RGB colours (3 numbers 0..255 a pixel) as a PNG data URL.
export const colourPictureUrl = (rgb) => pngUrl(rgb, 3);

// A square picture of `ink` shown large and crisp, described by `alt`; an empty frame for null.
export function pictureHtml(ink, alt) {
  if (ink == null) return `<div class="picture empty" role="img" aria-label="${escaped(alt)}"></div>`;
  return `<img class="picture" src="${pictureUrl(ink)}" alt="${escaped(alt)}">`;
}

// A bar chart of ten `values` in [0, 1] in digit order, the bar of `winner` highlighted (null:
// none), `label` saying what they are. `marked`: {digit: CSS colour} of bars drawn in their own
// colour; `line`: a dashed line across at that height (null: none).
export function lengthsSvg(values, winner, label = "lengths of the digit capsules", { marked = {}, line = null } = {}) {
  const step = 300 / values.length;
  const bars = Array.from(values, (value, digit) => {
    const [x, height, middle] = [8 + step * digit, 100 * value, 8 + step * digit + (step - 8) / 2];
    const fill = digit in marked ? ` style="fill: ${escaped(marked[digit])}"` : "";
    return (
      `<rect class="bar${digit === winner ? " winner" : ""}"${fill} x="${x.toFixed(1)}" y="${(112 - height).toFixed(1)}" ` +
      `width="${(step - 8).toFixed(1)}" height="${height.toFixed(1)}" rx="2"/>` +
      `<text x="${middle.toFixed(1)}" y="128" class="axis">${digit}</text>` +
      `<text x="${middle.toFixed(1)}" y="${(108 - height).toFixed(1)}" class="value">${value.toFixed(2)}</text>`
    );
  });
  const y = (112 - 100 * line).toFixed(1);
  const threshold = line === null ? "" : `<line x1="4" x2="306" y1="${y}" y2="${y}" class="threshold"/>`;
  return (
    `<svg class="lengths" viewBox="0 0 310 134" role="img" aria-label="${escaped(label)}">` +
    `<line x1="4" x2="306" y1="112.5" y2="112.5" class="baseline"/>${threshold}${bars.join("")}</svg>`
  );
}

// A view saying why it shows nothing.
export const messageHtml = (text) => `<div class="panel message" role="alert">${escaped(text)}</div>`;

const bytesOf = (base64) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

// Ink in [0, 1] from the server's grey levels of it (views.ink_base64): what its picture shows.
export const inkOf = (base64) => Float32Array.from(bytesOf(base64), (level) => level / 255);

// float32 numbers from the server's base64 of them (views.float32_base64), exact.
export const floatsOf = (base64) => new Float32Array(bytesOf(base64).buffer);
