// The drawing pad's page side (playground/drawing_pad.py lays it out; gr.HTML gives `element`,
// `props`, `watch` and `fire`, the events it fires). A person draws with a mouse, a pen or a finger
// (pointer events); the pad keeps the strokes and publishes each drawing while a stroke is drawn
// and when it ends (reading_store.js `drawings`), for its panel to read; it sends nothing. Once a
// stroke ends its value is {strokes, background, revision, drawing}, which the server sets in turn
// to lay a photo on the pad (playground/photo.py). Coordinates are in the pad's own units,
// 0..props.side, whatever size the canvas has on the screen. Each stroke goes as one string of
// numbers and the background as base64, not as arrays: Gradio's page copies the value element by
// element on every event, and a digit's few hundred points would be that many copies.
// A pad of several pens (props.colours, one a pen) draws each stroke in its pen's colour and sends
// each stroke's pen as one digit of value.pens; its background has one layer of ink a pen.

import { drawings, padsOnScreen } from "./reading_store.js";

export function mount({ element, props, watch }) {
  const canvas = element.querySelector("canvas");
  const context = canvas.getContext("2d");
  const side = props.side;
  const colours = props.colours;
  const backgroundSide = props.background_side; // an example's side: 28, MNIST's
  const layer = backgroundSide * backgroundSide; // a background's pixels a pen
  let strokes = []; // finished strokes, each a flat [x0, y0, x1, y1, ...]
  let pens = []; // each finished stroke's pen
  let pen = 0; // the pen the next stroke is drawn with
  let stroke = null; // the stroke being drawn
  let pointer = null; // the pointer drawing it; other fingers are ignored
  let background = null; // an example under the strokes: 28x28 ink a pen, 0..255
  let revision = 0; // counts the drawings this pad has published
  const id = props.pad; // the component's elem_id, which the panels know the pad by
  let backgroundPicture = null;

  function points() {
    return strokes.reduce((sum, s) => sum + s.length / 2, 0) + (stroke ? stroke.length / 2 : 0);
  }

  // The drawing published for the pad's panel (reading_store.js `drawings`); once the pen is up,
  // the pad's value too (no request: the app listens to none of its events).
  function send(drawing = false) {
    const all = stroke ? [...strokes, stroke] : strokes;
    const allPens = stroke ? [...pens, pen] : pens;
    revision += 1;
    element.dataset.revision = revision;
    drawings.publish({ pad: id, strokes: all, pens: allPens, background, revision, drawing });
    if (drawing) return;
    const value = { strokes: all.map((s) => s.join(" ")), background: encoded(background), revision, drawing };
    if (colours.length > 1) value.pens = allPens.join("");
    props.value = value;
  }

  function encoded(pixels) {
    return pixels ? btoa(String.fromCharCode(...pixels)) : null;
  }

  function decoded(base64) {
    return base64 ? Array.from(atob(base64), (c) => c.charCodeAt(0)) : null;
  }

  function pictureOf(pixels) {
    // The example as a canvas, each pen's ink in its colour (the stronger ink on top where
    // they meet), drawn scaled up under the strokes.
    const picture = document.createElement("canvas");
    picture.width = backgroundSide;
    picture.height = backgroundSide;
    const image = picture.getContext("2d").createImageData(backgroundSide, backgroundSide);
    const rgb = colours.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
    for (let i = 0; i < layer; i++) {
      let strongest = 0;
      for (let p = 1; p < colours.length; p++) if (pixels[p * layer + i] > pixels[strongest * layer + i]) strongest = p;
      image.data.set([...rgb[strongest], pixels[strongest * layer + i]], 4 * i);
    }
    picture.getContext("2d").putImageData(image, 0, 0);
    return picture;
  }

  function drawStroke(s, scale, strokePen) {
    context.strokeStyle = colours[strokePen];
    context.lineWidth = props.brush * scale;
    context.beginPath();
    context.moveTo(s[0] * scale, s[1] * scale);
    for (let i = 2; i < s.length; i += 2) context.lineTo(s[i] * scale, s[i + 1] * scale);
    if (s.length === 2) context.lineTo(s[0] * scale + 0.01, s[1] * scale); // a dot
    context.stroke();
  }

  function redraw() {
    const scale = canvas.width / side;
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    if (backgroundPicture) {
      context.imageSmoothingEnabled = true;
      context.drawImage(backgroundPicture, 0, 0, canvas.width, canvas.height);
    }
    context.lineCap = context.lineJoin = "round";
    strokes.forEach((s, i) => {
      drawStroke(s, scale, pens[i]);
    });
    if (stroke) drawStroke(stroke, scale, pen);
    element.querySelector(".hint").hidden = strokes.length > 0 || stroke !== null || background !== null;
  }

  function fitToScreen() {
    const box = canvas.getBoundingClientRect();
    const pixels = Math.round(box.width * (window.devicePixelRatio || 1));
    if (pixels > 0 && canvas.width !== pixels) {
      canvas.width = pixels;
      canvas.height = pixels;
      redraw();
    }
  }

  function padPoint(event) {
    const box = canvas.getBoundingClientRect();
    const clamp = (v) => Math.min(side, Math.max(0, Math.round(v * 10) / 10));
    return [
      clamp(((event.clientX - box.left) / box.width) * side),
      clamp(((event.clientY - box.top) / box.height) * side),
    ];
  }

  function press(event) {
    if (pointer !== null || (event.pointerType === "mouse" && event.button !== 0)) return;
    if (points() >= props.max_points) return;
    event.preventDefault();
    pointer = event.pointerId;
    try {
      canvas.setPointerCapture(pointer);
    } catch {
      // a press made before the module mounted (replayKept), its pointer lifted since
    }
    stroke = padPoint(event);
    redraw();
  }
  canvas.addEventListener("pointerdown", press);

  function move(event) {
    if (event.pointerId !== pointer) return;
    event.preventDefault();
    const moves = event.getCoalescedEvents ? event.getCoalescedEvents() : [event];
    for (const move of moves.length ? moves : [event]) {
      const [x, y] = padPoint(move);
      const [lastX, lastY] = stroke.slice(-2);
      if (Math.hypot(x - lastX, y - lastY) >= 1 && points() < props.max_points) stroke.push(x, y);
    }
    redraw();
    send(true);
  }
  canvas.addEventListener("pointermove", move);

  function endStroke(event) {
    if (event.pointerId !== pointer) return;
    pointer = null;
    strokes.push(stroke);
    pens.push(pen);
    stroke = null;
    redraw();
    send();
  }
  canvas.addEventListener("pointerup", endStroke);
  canvas.addEventListener("pointercancel", endStroke);

  element.querySelector(".undo").addEventListener("click", () => {
    if (strokes.length) {
      strokes.pop();
      pens.pop();
    } else if (background) background = backgroundPicture = null;
    else return;
    redraw();
    send();
  });

  element.querySelector(".clear").addEventListener("click", () => {
    choosePen(0); // starting over: the first digit is pen 1's
    if (!strokes.length && !background) return;
    strokes = [];
    pens = [];
    background = backgroundPicture = null;
    redraw();
    send();
  });

  element.querySelector(".examples").addEventListener("click", (event) => {
    const button = event.target.closest("button.example");
    if (!button) return;
    strokes = [];
    pens = [];
    background = decoded(button.dataset.ink); // 28x28 ink a pen, 0..255
    backgroundPicture = pictureOf(background);
    redraw();
    send();
  });

  // A value set by the server (the app's start, a reset, a photo: playground/photo.py) replaces the
  // pad's drawing; a new background (a photo's 28x28) is then read as a tapped example is.
  watch("value", () => {
    const value = props.value || {};
    const newBackground = value.background && value.background !== encoded(background);
    strokes = (value.strokes || []).map((s) => s.split(" ").map(Number));
    pens = strokes.map((_, i) => Number((value.pens || "")[i] || 0));
    background = decoded(value.background);
    backgroundPicture = background ? pictureOf(background) : null;
    stroke = null;
    pointer = null;
    redraw();
    if (newBackground) send();
  });

  function choosePen(chosen) {
    pen = chosen;
    for (const b of element.querySelectorAll("button.pen"))
      b.setAttribute("aria-pressed", String(Number(b.dataset.pen) === pen));
  }
  for (const button of element.querySelectorAll("button.pen")) {
    button.addEventListener("click", () => choosePen(Number(button.dataset.pen)));
  }

  // Input made on the pad before this module mounted, kept by the page's head (kept_input.js), replayed
  // now that the pad listens: each click on the same button, each press, move and lift at the same
  // place of the canvas, whatever its size now. The head's script hands it over when told the pad
  // has mounted (the document's "pad-mounted" event).
  const buttons = element.querySelector(".pad").querySelectorAll("button");
  const pointerHandlers = { pointerdown: press, pointermove: move, pointerup: endStroke, pointercancel: endStroke };
  function replay(input) {
    if (input.kind === "click") {
      buttons[input.button]?.click();
      return;
    }
    const box = canvas.getBoundingClientRect();
    const clientX = box.left + input.x * box.width;
    const clientY = box.top + input.y * box.height;
    pointerHandlers[input.kind]({ ...input, clientX, clientY, preventDefault() {} });
  }

  new ResizeObserver(fitToScreen).observe(canvas);
  new IntersectionObserver((entries) => {
    padsOnScreen.publish({ ...padsOnScreen.current(), [id]: entries.at(-1).isIntersecting });
  }).observe(canvas);
  fitToScreen();
  document.dispatchEvent(new CustomEvent("pad-mounted", { detail: { id: element.closest("[id]")?.id, replay } }));
  element.dataset.revision = revision; // the pad is ready: it counts what it publishes
}
