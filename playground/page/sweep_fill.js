// The rotation sweep's layout as the server writes it (playground/turn_views.py `sweep_html`),
// filled with a sweep the page read (turn_panel.js). Ports turn_views.py's `degrees`,
// `first_misreads` and `misread_text`, which write its words. The template is the sweep of digit 0 read
// as 1 by both networks at every angle, every value 1 (TurnItSection.sweep_template): each curve
// has a point at every angle, each network's row a misread mark at every angle (a rect, then its
// digit), and one first-misread line, at 0°. Filling keeps the marks of the angles misread and a
// copy of the line at each first misread, as turn_views.sweep_svg draws them.

import { fromTemplate } from "./panel_fill.js";

// turn_views.degrees for whole degrees: "+40°", "0°", "−40°" (a minus sign, not a hyphen).
export function degrees(angle) {
  return `${angle >= 0 ? "+" : "-"}${Math.abs(angle).toFixed(0)}°`.replace("+0°", "0°").replace("-", "−");
}

// The index of the angle nearest 0, the first of them (numpy's argmin of their sizes).
export const unturned = (angles) =>
  angles.reduce((nearest, angle, k) => (Math.abs(angle) < Math.abs(angles[nearest]) ? k : nearest), 0);

// turn_views.first_misreads: the indices of the first angles, going out from the one nearest 0
// either way, at which `readings` is not `digit`: none, one or two (the unturned one, if it is
// misread itself).
export function firstMisreads(angles, readings, digit) {
  const middle = unturned(angles);
  if (readings[middle] !== digit) return [middle];
  const found = [];
  for (const step of [-1, 1]) {
    let k = middle + step;
    while (k >= 0 && k < angles.length && readings[k] === digit) k += step;
    if (k >= 0 && k < angles.length) found.push(k);
  }
  return found;
}

// turn_views.misread_text: "first reads 1 at +40° and 4 at −35°", or that it reads the digit at
// every angle.
export function misreadText(angles, readings, digit) {
  const found = firstMisreads(angles, readings, digit);
  if (found.length === 0) return `reads ${digit} at every angle`;
  return `first reads ${found.map((k) => `${readings[k]} at ${degrees(angles[k])}`).join(" and ")}`;
}

// The sweep `template` filled with `sweep`: {reading: the revision swept, digit, angles [A],
// lengths, readings, probabilities, cnnReadings: [A] each, undefined at the angles not read yet,
// which lie around 0°, one after another}. `y` = {zero, one}: the chart's y of a value 0 and of 1.
// A sweep not read at every angle is marked busy, and its sentence waits (playground.css).
export function sweepFilled(template, sweep, y) {
  const view = fromTemplate(template);
  view.dataset.reading = sweep.reading;
  const read = sweep.angles.flatMap((_, k) => (sweep.readings[k] === undefined ? [] : [k]));
  if (read.length < sweep.angles.length) view.setAttribute("aria-busy", "true");
  const caption = view.querySelector(".mine figcaption");
  caption.textContent = caption.textContent.replace(/\d+/, sweep.digit);
  const svg = view.querySelector(".mine svg.sweep-chart");
  svg.setAttribute("aria-label", svg.getAttribute("aria-label").replace(/\d+/, sweep.digit));
  const xs = svg
    .querySelector("polyline.curve")
    .getAttribute("points")
    .split(" ")
    .map((point) => point.split(",")[0]);
  const height = (value) => (y.zero - (y.zero - y.one) * Math.min(Math.max(value, 0), 1)).toFixed(1);
  const rows = [
    ["capsnet", sweep.lengths, sweep.readings],
    ["cnn", sweep.probabilities, sweep.cnnReadings],
  ];
  for (const [network, values, readings] of rows) {
    const curve = svg.querySelector(`polyline.curve.${network}`);
    curve.setAttribute("points", read.map((k) => `${xs[k]},${height(values[k])}`).join(" "));
    const title = curve.querySelector("title");
    title.textContent = title.textContent.replace(/\d+$/, sweep.digit);
    svg.querySelectorAll(`rect.misread.${network}`).forEach((mark, k) => {
      const digit = mark.nextElementSibling;
      if (readings[k] === undefined || readings[k] === sweep.digit) {
        mark.remove();
        digit.remove();
      } else {
        digit.textContent = readings[k];
      }
    });
    const angles = read.map((k) => sweep.angles[k]),
      seen = read.map((k) => readings[k]);
    const line = svg.querySelector(`line.first-misread.${network}`);
    const found = read.length > 0 ? firstMisreads(angles, seen, sweep.digit) : [];
    for (const k of found.map((j) => read[j])) {
      const copy = line.cloneNode(true);
      copy.setAttribute("x1", xs[k]);
      copy.setAttribute("x2", xs[k]);
      const said = copy.querySelector("title");
      said.textContent = said.textContent.replace(/\S+ at \S+$/, `${readings[k]} at ${degrees(sweep.angles[k])}`);
      line.before(copy);
    }
    line.remove();
    const sentence = view.querySelector(`.misreads .${network}`);
    if (read.length > 0)
      sentence.textContent = `${sentence.textContent.split(" ")[0]} ${misreadText(angles, seen, sweep.digit)}`;
  }
  return view;
}
