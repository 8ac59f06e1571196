// A panel's layout as the server writes it (turn_views.py `turn_panel`), filled with numbers the
// page computed: the one way Turn it draws. A template is the panel written for full values: every
// bar of a lengths_svg chart at 1, so a bar of value v is drawn at v of its height.

import { pictureUrl } from "./views.js";

const parsed = new Map(); // each template's element, parsed once

// A new element as `template` (HTML) describes it.
export function fromTemplate(template) {
  if (!parsed.has(template)) {
    const holder = document.createElement("div");
    holder.innerHTML = template;
    parsed.set(template, holder.firstElementChild);
  }
  return parsed.get(template).cloneNode(true);
}

// `value` with `decimals` decimals as Python's f"{value:.{decimals}f}" writes it: a value exactly
// halfway between two goes to the even one, where toFixed goes up.
export function fixed(value, decimals) {
  const exact = Math.abs(value).toFixed(100); // every digit of the double: it holds fewer than 100
  const point = exact.indexOf(".");
  const kept = exact.slice(0, point + 1 + decimals).replace(/\.$/, "");
  if (!/^50*$/.test(exact.slice(point + 1 + decimals)) || Number(kept.at(-1)) % 2 !== 0) {
    return value.toFixed(decimals);
  }
  return (value < 0 ? "-" : "") + kept;
}

// `text` with each number in it replaced in turn by one of `values`, written with as many decimals
// as the number it replaces ("capsule length 1.000" -> "capsule length 0.957").
export function numberedText(text, values) {
  let k = 0;
  return text.replace(/\d+(\.\d+)?/g, (number) => {
    const value = values[k++];
    return number.includes(".") ? fixed(value, number.split(".")[1].length) : String(value);
  });
}

// `node`'s text numbered with `values` (numberedText).
export function numbered(node, ...values) {
  node.textContent = numberedText(node.textContent, values);
}

// A lengths_svg chart's bars and their labels at `values`, the bar of `winner` highlighted.
export function barsFilled(svg, values, winner) {
  const labels = svg.querySelectorAll("text.value");
  svg.querySelectorAll("rect").forEach((bar, k) => {
    const full = Number(bar.getAttribute("height"));
    const bottom = Number(bar.getAttribute("y")) + full;
    bar.setAttribute("height", (full * values[k]).toFixed(1));
    bar.setAttribute("y", (bottom - full * values[k]).toFixed(1));
    bar.classList.toggle("winner", k === winner);
    labels[k].setAttribute("y", (Number(labels[k].getAttribute("y")) + full * (1 - values[k])).toFixed(1));
    labels[k].textContent = fixed(values[k], 2);
  });
}

// `img` showing the picture of `ink`, and `number` in its description where it names one.
export function pictureSet(img, ink, number) {
  img.src = pictureUrl(ink);
  if (number !== undefined) img.alt = img.alt.replace(/\d+/, number);
}
