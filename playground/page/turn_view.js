// Turn it's turn panel, its one renderer: a turn drawn from its numbers, whoever computed them (the
// page's networks or the server: page_networks.js decides). A turn: {revision: the transform sliders' revision it
// shows, image: the turned input, reconstruction: the decoder's picture of the CapsNet's winner
// (ink [28 * 28] in [0, 1] each), lengths: the CapsNet's |v_j| [10], winner, probabilities: the
// CNN's [10], cnnWinner, moved: the drawn digit's capsule, turned minus as drawn [16], drawn: the
// CapsNet's reading of the unturned drawing, drawnLength: that capsule's length unturned}. The
// panel says which move it shows (data-revision: a label for the page's tests; no module reads it).

import { escaped, lengthsSvg, pictureHtml } from "./views.js";

// A bar per dimension, `names` in dimension order, from the middle of its track: right for up,
// left for down; a move beyond `limit` fills its half and is marked.
function poseBars(moved, names, limit) {
  const rows = Array.from(moved, (value, d) => {
    const fraction = Math.min(Math.abs(value) / limit, 1);
    const side = value >= 0 ? "left: 50%" : `left: ${(50 - 50 * fraction).toFixed(1)}%`;
    const name = escaped(names[d]);
    return (
      `<div class="dimension-move"><span class="name" title="${name}">${name}</span>` +
      `<span class="track"><span class="bar${Math.abs(value) > limit ? " beyond" : ""}" ` +
      `style="${side}; width: ${(50 * fraction).toFixed(1)}%"></span></span>` +
      `<span class="value">${value >= 0 ? "+" : "-"}${Math.abs(value).toFixed(3)}</span></div>`
    );
  });
  return `<div class="pose-bars">${rows.join("")}</div>`;
}

// How the drawn digit's capsule moved: its caption (the move's size, the capsule's length before and
// after) over a bar for each dimension, labelled with `names`, half full at ±`limit`.
function poseHtml(turn, names, limit) {
  const { drawn, lengths, moved } = turn;
  return (
    `<figure class="pose"><figcaption>Capsule ${drawn}, turned minus as drawn: how each of its ` +
    `${moved.length} dimensions moved (a half bar is ±${limit}; |Δv| = ${Math.hypot(...moved).toFixed(3)}; ` +
    `its length ${turn.drawnLength.toFixed(3)} → ${lengths[drawn].toFixed(3)}` +
    `${turn.winner === drawn ? "" : ", no longer the longest"})</figcaption>${poseBars(moved, names, limit)}</figure>`
  );
}

// The turn panel: the turned input and the CapsNet's reconstruction of its winner; the CapsNet's
// reading and lengths beside the CNN's reading and probabilities; how far each dimension of the
// drawn digit's capsule moved, `labels[drawn]` naming them, a half bar ±`poseLimit`. For no turn
// (null), what to do; for {message}, why there is none.
export function turnHtml(turn, { labels, poseLimit }) {
  if (turn === null) return '<div class="turn empty">Draw a digit above, then turn it here.</div>';
  if (turn.message !== undefined) return `<div class="turn message" role="alert">${escaped(turn.message)}</div>`;
  const { winner, cnnWinner, lengths, probabilities } = turn;
  return (
    `<div class="turn" data-revision="${escaped(turn.revision)}">` +
    '<figure class="turned"><figcaption>Turned: what both networks read</figcaption>' +
    `${pictureHtml(turn.image, "your digit, turned")}</figure>` +
    `<figure class="redrawn"><figcaption>CapsNet redraws capsule ${winner}</figcaption>` +
    `${pictureHtml(turn.reconstruction, `the reconstruction from capsule ${winner}`)}</figure>` +
    '<div class="capsnet-reading"><div class="verdict capsnet"><span>CapsNet reads</span> ' +
    `<b>${winner}</b><small>capsule length ${lengths[winner].toFixed(3)}</small></div>` +
    `${lengthsSvg(lengths, winner)}</div>` +
    '<div class="cnn-reading"><div class="verdict cnn"><span>CNN reads</span> ' +
    `<b>${cnnWinner}</b><small>probability ${probabilities[cnnWinner].toFixed(3)}</small></div>` +
    `${lengthsSvg(probabilities, cnnWinner, "the CNN probabilities")}</div>` +
    `${poseHtml(turn, labels[turn.drawn], poseLimit)}</div>`
  );
}
