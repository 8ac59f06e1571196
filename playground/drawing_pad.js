// The drawing pad's page side (gr.HTML's js_on_load: `element`, `props` and `watch` are given).
// A person draws with a mouse, a pen or a finger (pointer events); the pad keeps the strokes and
// sets props.value to {strokes, background, revision, drawing} while a stroke is drawn (at most
// every props.live_ms, drawing: true) and when it ends, which fires the component's change event:
// one small JSON value per reading, no image upload. Coordinates are in the pad's own units,
// 0..props.side, whatever size the canvas has on the screen. Each stroke goes as one string of
// numbers and the background as base64, not as arrays: Gradio's page copies the value element by
// element on every event, and a digit's few hundred points would be that many copies.
const canvas = element.querySelector("canvas");
const context = canvas.getContext("2d");
const side = props.side;
let strokes = [];         // finished strokes, each a flat [x0, y0, x1, y1, ...]
let stroke = null;        // the stroke being drawn
let pointer = null;       // the pointer drawing it; other fingers are ignored
let background = null;    // an example digit under the strokes: 28x28 ink, 0..255
let revision = 0;         // counts the values this pad has sent
let sentAt = 0;
let backgroundPicture = null;

function points() {
  return strokes.reduce((sum, s) => sum + s.length / 2, 0) + (stroke ? stroke.length / 2 : 0);
}

function send(drawing = false) {
  revision += 1;
  element.dataset.revision = revision;
  sentAt = performance.now();
  const all = stroke ? [...strokes, stroke] : strokes;
  props.value = {strokes: all.map((s) => s.join(" ")), background: encoded(background), revision, drawing};
}

function encoded(pixels) {
  return pixels ? btoa(String.fromCharCode(...pixels)) : null;
}

function decoded(base64) {
  return base64 ? Array.from(atob(base64), (c) => c.charCodeAt(0)) : null;
}

function pictureOf(pixels) {
  // The 28x28 example as a canvas, black ink on white paper, drawn scaled up under the strokes.
  const size = Math.round(Math.sqrt(pixels.length));
  const picture = document.createElement("canvas");
  picture.width = picture.height = size;
  const image = picture.getContext("2d").createImageData(size, size);
  pixels.forEach((ink, i) => {
    image.data.fill(255 - ink, 4 * i, 4 * i + 3);
    image.data[4 * i + 3] = 255;
  });
  picture.getContext("2d").putImageData(image, 0, 0);
  return picture;
}

function drawStroke(s, scale) {
  context.lineWidth = props.brush * scale;
  context.beginPath();
  context.moveTo(s[0] * scale, s[1] * scale);
  for (let i = 2; i < s.length; i += 2) context.lineTo(s[i] * scale, s[i + 1] * scale);
  if (s.length === 2) context.lineTo(s[0] * scale + 0.01, s[1] * scale);  // a dot
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
  context.strokeStyle = "#000";
  context.lineCap = context.lineJoin = "round";
  strokes.forEach((s) => drawStroke(s, scale));
  if (stroke) drawStroke(stroke, scale);
  element.querySelector(".hint").hidden = strokes.length > 0 || stroke !== null || background !== null;
}

function fitToScreen() {
  const box = canvas.getBoundingClientRect();
  const pixels = Math.round(box.width * (window.devicePixelRatio || 1));
  if (pixels > 0 && canvas.width !== pixels) {
    canvas.width = canvas.height = pixels;
    redraw();
  }
}

function padPoint(event) {
  const box = canvas.getBoundingClientRect();
  const clamp = (v) => Math.min(side, Math.max(0, Math.round(v * 10) / 10));
  return [clamp((event.clientX - box.left) / box.width * side),
          clamp((event.clientY - box.top) / box.height * side)];
}

canvas.addEventListener("pointerdown", (event) => {
  if (pointer !== null || (event.pointerType === "mouse" && event.button !== 0)) return;
  if (points() >= props.max_points) return;
  event.preventDefault();
  pointer = event.pointerId;
  canvas.setPointerCapture(pointer);
  stroke = padPoint(event);
  redraw();
});

canvas.addEventListener("pointermove", (event) => {
  if (event.pointerId !== pointer) return;
  event.preventDefault();
  const moves = event.getCoalescedEvents ? event.getCoalescedEvents() : [event];
  for (const move of moves.length ? moves : [event]) {
    const [x, y] = padPoint(move);
    const [lastX, lastY] = stroke.slice(-2);
    if (Math.hypot(x - lastX, y - lastY) >= 1 && points() < props.max_points) stroke.push(x, y);
  }
  redraw();
  if (performance.now() - sentAt >= props.live_ms) send(true);
});

function endStroke(event) {
  if (event.pointerId !== pointer) return;
  pointer = null;
  strokes.push(stroke);
  stroke = null;
  redraw();
  send();
}
canvas.addEventListener("pointerup", endStroke);
canvas.addEventListener("pointercancel", endStroke);

element.querySelector(".undo").addEventListener("click", () => {
  if (strokes.length) strokes.pop();
  else if (background) background = backgroundPicture = null;
  else return;
  redraw();
  send();
});

element.querySelector(".clear").addEventListener("click", () => {
  if (!strokes.length && !background) return;
  strokes = [];
  background = backgroundPicture = null;
  redraw();
  send();
});

element.querySelector(".examples").addEventListener("click", (event) => {
  const button = event.target.closest("button.example");
  if (!button) return;
  // The example's 28x28 picture (black on white) back to ink, 0..255.
  const picture = button.querySelector("img");
  const reader = document.createElement("canvas");
  reader.width = reader.height = picture.naturalWidth;
  reader.getContext("2d").drawImage(picture, 0, 0);
  const rgba = reader.getContext("2d").getImageData(0, 0, reader.width, reader.height).data;
  strokes = [];
  background = Array.from({length: rgba.length / 4}, (_, i) => 255 - rgba[4 * i]);
  backgroundPicture = pictureOf(background);
  redraw();
  send();
});

// A value set by the server (the app's start, or a reset) replaces the pad's drawing.
watch("value", () => {
  const value = props.value || {};
  strokes = (value.strokes || []).map((s) => s.split(" ").map(Number));
  background = decoded(value.background);
  backgroundPicture = background ? pictureOf(background) : null;
  stroke = null;
  pointer = null;
  redraw();
});

new ResizeObserver(fitToScreen).observe(canvas);
fitToScreen();
