// The reading panel's one renderer: a reading drawn from its numbers, whoever computed them (the
// page's networks or the server: page_networks.js decides). A reading, as reading_store.js `shown` describes it, with
// its pictures: image, reconstruction (of capsule `decoded`) and runnerUpReconstruction, ink [28 * 28]
// in [0, 1]. The panel says which drawing it shows (data-revision, data-settled: labels for the
// page's styles and its tests; no module reads them).

import { escaped, lengthsSvg, messageHtml, pictureHtml, pictureUrl } from "./views.js";

const reconstructionTitle = (digit) =>
  digit == null ? "Reconstruction from the capsule" : `Reconstruction from capsule ${digit}`;

// The reading panel's reconstruction of capsule `digit`, drawn from `ink` (null: none yet).
function reconstructionHtml(ink, digit) {
  const title = reconstructionTitle(digit);
  return `<figcaption>${title}</figcaption>${pictureHtml(ink, title.toLowerCase())}`;
}

// The reconstruction of a reading's panel (`panel`) redrawn from `ink`, of capsule `digit`: the
// picture changed in place, so that a slider dragged never shows an empty frame between two.
export function redrawReconstruction(panel, ink, digit) {
  const title = reconstructionTitle(digit);
  const picture = panel.querySelector(".reconstruction img.picture");
  Object.assign(picture, { src: pictureUrl(ink), alt: title.toLowerCase() });
  panel.querySelector(".reconstruction figcaption").textContent = title;
}

// The reading panel: the digit read, large, with its capsule length; the 28x28 image the network
// reads; the bars of every capsule's length; the reconstruction; what else it could be, the
// runner-up's reconstruction. For no reading (`revision` null), a grey "?" asking for a digit,
// empty pictures and bars; for {message}, why there is none.
export function readingHtml(reading) {
  if (reading.message !== undefined) return messageHtml(reading.message);
  const settled = reading.settled ? ' data-settled=""' : "";
  if (reading.revision === null) {
    return (
      `<div class="panel"${settled}><div class="reading"><div class="digit empty">?</div>` +
      '<div class="caption">Draw a digit</div></div>' +
      `<figure class="input"><figcaption>What the network sees (28x28)</figcaption>${pictureHtml(null, "the 28x28 image the network reads")}</figure>` +
      `<figure class="bars"><figcaption>Capsule lengths</figcaption>${lengthsSvg(new Array(10).fill(0), null)}</figure>` +
      `<figure class="reconstruction">${reconstructionHtml(null, null)}</figure></div>`
    );
  }
  const { winner, runnerUp, lengths } = reading;
  return (
    `<div class="panel" data-revision="${escaped(reading.revision)}"${settled}>` +
    `<div class="reading"><div class="digit">${winner}</div>` +
    `<div class="caption">capsule length ${lengths[winner].toFixed(3)}</div></div>` +
    `<figure class="input"><figcaption>What the network sees (28x28)</figcaption>${pictureHtml(reading.image, "the 28x28 image the network reads")}</figure>` +
    `<figure class="bars"><figcaption>Capsule lengths</figcaption>${lengthsSvg(lengths, winner)}</figure>` +
    `<figure class="reconstruction">${reconstructionHtml(reading.reconstruction, reading.decoded)}</figure>` +
    `<figure class="runner-up"><figcaption>What else it could be: ${runnerUp}, capsule length ${lengths[runnerUp].toFixed(3)}</figcaption>` +
    `${pictureHtml(reading.runnerUpReconstruction, `reconstruction from capsule ${runnerUp}, the runner-up`)}</figure></div>`
  );
}
