// The network in the page: part of the reading panel's js_on_load, after decoder.js (`element`
// and `props` are given). While a stroke is drawn on the pad props.reader_pad, it reads the drawing
// here, as often as it can (the newest drawing each time), and fills the reading panel: the digit,
// the ten lengths, what the network sees, the reconstruction and the runner-up's. The server hears of
// the drawing only once the stroke ends, and its settled panel (the same numbers) brings Figure 4
// and the routing view.
//
// The drawing becomes the network's 28x28 input exactly as the server makes it: the pad's ink as
// playground/drawing_pad.py `inks` draws it, then capsnet/data/preprocess.py `ink_to_mnist`,
// Pillow's resampling included; tests/test_page_reader.py holds the two to the same numbers. The
// network is the server's own, exported by capsnet/onnx_file.py (props.network_url, named by its
// hash) and run by ONNX Runtime Web (props.runtime_url, served by the app); the reconstructions
// are decoder.js's. The panel is the server's layout (props.panel_template, views.reading_panel),
// its numbers filled in: one renderer, whichever side computed them.
//
// The pad offers each drawing as a cancelable "pad-drawing" event, detail {strokes: flat
// [x0, y0, x1, y1, ...] arrays, background: 784 ink values 0..255 or null, revision, drawing}.
// The reader cancels it when it reads the drawing itself, and the pad then sends nothing while the
// stroke goes on. Where it cannot (no WebAssembly, the visitor saves data, the files not loaded
// yet or not loadable, an error) it leaves the event alone and the pad asks the server as before;
// it says why in the console, once, as information.
{
  const SIDE = 280, BRUSH = 20, FIELD = 28, BOX = 20, CENTRE = 14;      // drawing_pad.py, preprocess.py
  const MIN_CONTRAST = Math.fround(0.1), INK_THRESHOLD = Math.fround(0.2);
  const BACKGROUND_SIDE = 28, PRECISION_BITS = 22;                      // Pillow's 8-bit resampling
  let session = null;          // ONNX Runtime's session of the network, once loaded
  let latest = null;           // the newest drawing offered, not yet read
  let reading = false;         // a reading is under way
  let shown = 0;               // the pad revision of the reading the panel shows, read here

  // Pillow's filters (libImaging/Resample.c): the box and the triangle, with their supports.
  const FILTERS = {
    box: {support: 0.5, weight: (x) => (x > -0.5 && x <= 0.5 ? 1 : 0)},
    bilinear: {support: 1, weight: (x) => (Math.abs(x) < 1 ? 1 - Math.abs(x) : 0)},
  };

  // precompute_coeffs: for each output pixel, its first input pixel and the weights of the inputs.
  function coefficients(inputs, outputs, {support, weight}) {
    const scale = inputs / outputs, filterScale = Math.max(scale, 1), reach = support * filterScale;
    return Array.from({length: outputs}, (_, out) => {
      const centre = (out + 0.5) * scale;
      const first = Math.max(Math.trunc(centre - reach + 0.5), 0);
      const count = Math.min(Math.trunc(centre + reach + 0.5), inputs) - first;
      const weights = Array.from({length: count}, (_, k) => weight((k + first - centre + 0.5) / filterScale));
      const total = weights.reduce((sum, w) => sum + w, 0);
      return {first, weights: weights.map((w) => (total !== 0 ? w / total : w))};
    });
  }

  // One pass of Pillow's resampling along rows (`across`) or columns: each output pixel the sum of
  // its inputs times their weights, then `stored` (float32 for "F" pictures, 8 bits for "L").
  function resampled(pixels, width, height, taps, across, start, stored, out) {
    const outWidth = across ? taps.length : width, outHeight = across ? height : taps.length;
    for (let y = 0; y < outHeight; y++) {
      for (let x = 0; x < outWidth; x++) {
        const {first, weights} = taps[across ? x : y];
        let sum = start;
        for (let k = 0; k < weights.length; k++) {
          sum += weights[k] * (across ? pixels[y * width + first + k] : pixels[(first + k) * width + x]);
        }
        out[y * outWidth + x] = stored(sum);
      }
    }
    return out;
  }

  // Pillow's resize of a square float ("F") picture: rows first, then columns, each sum in float64
  // stored in float32.
  function resizeFloat(pixels, side, outSide, filter) {
    const taps = coefficients(side, outSide, filter), keep = (sum) => sum;
    const across = resampled(pixels, side, side, taps, true, 0, keep, new Float32Array(side * outSide));
    return resampled(across, outSide, side, taps, false, 0, keep, new Float32Array(outSide * outSide));
  }

  // Pillow's bilinear enlargement of a square 8-bit picture: weights in fixed point, the sums
  // rounded and clipped to 0..255 after each pass.
  function enlargeBytes(pixels, side, outSide) {
    const scale = 2 ** PRECISION_BITS;
    const taps = coefficients(side, outSide, FILTERS.bilinear).map(({first, weights}) => ({
      first, weights: weights.map((w) => Math.trunc(w < 0 ? -0.5 + w * scale : 0.5 + w * scale)),
    }));
    const clip = (sum) => (sum >= scale * 256 ? 255 : sum <= 0 ? 0 : Math.floor(sum / scale));
    const across = resampled(pixels, side, side, taps, true, scale / 2, clip, new Uint8Array(side * outSide));
    return resampled(across, outSide, side, taps, false, scale / 2, clip, new Uint8Array(outSide * outSide));
  }

  // drawing_pad.inks for a pad of one pen: the background enlarged, then every pixel whose centre
  // lies within BRUSH / 2 of a stroke full ink. float32 [SIDE * SIDE] in [0, 1].
  function padInk(strokes, background) {
    const ink = new Float32Array(SIDE * SIDE);
    if (background) enlargeBytes(background, BACKGROUND_SIDE, SIDE).forEach((v, k) => { ink[k] = v / 255; });
    const radius = BRUSH / 2;
    for (const stroke of strokes) {
      const points = stroke.map(Math.fround);           // the server reads each coordinate in float32
      const last = Math.max(points.length / 2 - 1, 1);
      for (let s = 0; s < last; s++) {
        const ax = points[2 * s], ay = points[2 * s + 1];
        const bx = points.length > 2 ? points[2 * s + 2] : ax, by = points.length > 2 ? points[2 * s + 3] : ay;
        const dx = bx - ax, dy = by - ay, squaredLength = dx * dx + dy * dy;
        const left = Math.max(Math.floor(Math.min(ax, bx) - radius), 0);
        const right = Math.min(Math.ceil(Math.max(ax, bx) + radius) + 1, SIDE);
        const top = Math.max(Math.floor(Math.min(ay, by) - radius), 0);
        const bottom = Math.min(Math.ceil(Math.max(ay, by) + radius) + 1, SIDE);
        for (let row = top; row < bottom; row++) {
          const y = row + 0.5;
          for (let column = left; column < right; column++) {
            const x = column + 0.5;
            const t = squaredLength === 0 ? 0 : Math.min(Math.max(((x - ax) * dx + (y - ay) * dy) / squaredLength, 0), 1);
            const ex = x - (ax + t * dx), ey = y - (ay + t * dy);
            if (ex * ex + ey * ey <= radius * radius) ink[row * SIDE + column] = 1;
          }
        }
      }
    }
    return ink;
  }

  // Python's round(): halves to the even neighbour.
  const roundHalfEven = (x) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x));

  // preprocess.ink_to_mnist: the ink scaled to its strongest, cut to where it is strong, fitted
  // into BOX x BOX keeping its aspect ratio, its centre of mass on (CENTRE, CENTRE) by whole pixels.
  // float32 [FIELD * FIELD] in [0, 1], or null for too little ink.
  function mnistField(ink, side) {
    let strongest = -Infinity;
    for (let k = 0; k < ink.length; k++) strongest = Math.max(strongest, ink[k]);
    if (!(strongest >= MIN_CONTRAST)) return null;
    const scaled = new Float32Array(ink.length);
    let top = side, bottom = -1, left = side, right = -1;
    for (let row = 0, k = 0; row < side; row++) {
      for (let column = 0; column < side; column++, k++) {
        scaled[k] = Math.max(ink[k], 0) / strongest;
        if (scaled[k] < INK_THRESHOLD) continue;
        top = Math.min(top, row); bottom = Math.max(bottom, row);
        left = Math.min(left, column); right = Math.max(right, column);
      }
    }
    const height = bottom - top + 1, width = right - left + 1, square = Math.max(height, width);
    const inSquare = new Float32Array(square * square);
    const down = Math.floor((square - height) / 2), across = Math.floor((square - width) / 2);
    for (let row = 0; row < height; row++) {
      for (let column = 0; column < width; column++) {
        inSquare[(down + row) * square + across + column] = scaled[(top + row) * side + left + column];
      }
    }
    const box = resizeFloat(inSquare, square, BOX, square >= BOX ? FILTERS.box : FILTERS.bilinear);
    const boxStrongest = box.reduce((a, b) => Math.max(a, b), -Infinity);
    const fitted = box.map((v) => Math.min(Math.max(v / boxStrongest, 0), 1));
    let first = BOX, lastRow = -1, firstColumn = BOX, lastColumn = -1;
    fitted.forEach((v, k) => {
      if (v === 0) return;
      const row = Math.floor(k / BOX), column = k % BOX;
      first = Math.min(first, row); lastRow = Math.max(lastRow, row);
      firstColumn = Math.min(firstColumn, column); lastColumn = Math.max(lastColumn, column);
    });
    const rows = lastRow - first + 1, columns = lastColumn - firstColumn + 1;
    let mass = 0, rowMoment = 0, columnMoment = 0;
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        const v = fitted[(first + row) * BOX + firstColumn + column];
        mass += v; rowMoment += v * row; columnMoment += v * column;
      }
    }
    const clamp = (x, high) => Math.min(Math.max(x, 0), high);
    const fieldTop = clamp(roundHalfEven(CENTRE - rowMoment / mass), FIELD - rows);
    const fieldLeft = clamp(roundHalfEven(CENTRE - columnMoment / mass), FIELD - columns);
    const field = new Float32Array(FIELD * FIELD);
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        field[(fieldTop + row) * FIELD + fieldLeft + column] = fitted[(first + row) * BOX + firstColumn + column];
      }
    }
    return field;
  }

  // The reading panel's layout (props.panel_template), filled with this reading.
  function filledPanel(image, capsules, lengths, revision) {
    const [winner, runnerUp] = [...lengths.keys()].sort((a, b) => lengths[b] - lengths[a]);
    const panel = fromTemplate(props.panel_template);
    Object.assign(panel.dataset, {revision, decoded: winner, winner, decoder: props.decoder_url,
                                  capsules: btoa(String.fromCharCode(...new Uint8Array(capsules.buffer)))});
    panel.querySelector(".reading .digit").textContent = winner;
    numbered(panel.querySelector(".reading .caption"), lengths[winner]);
    numbered(panel.querySelector(".reconstruction figcaption"), winner);
    numbered(panel.querySelector(".runner-up figcaption"), runnerUp, lengths[runnerUp]);
    pictureSet(panel.querySelector(".input img.picture"), element.pictureUrl(image));
    pictureSet(panel.querySelector(".reconstruction img.picture"),
               element.pictureUrl(element.reconstruction(capsules, winner)), winner);
    pictureSet(panel.querySelector(".runner-up img.picture"),
               element.pictureUrl(element.reconstruction(capsules, runnerUp)), runnerUp);
    barsFilled(panel.querySelector("svg.lengths"), lengths, winner);
    return panel;
  }

  // A drawing read here: {image: the network's input, capsules: v [10 * 16], lengths: |v_j| [10]},
  // or null for too little ink. Also the tests' way in (tests/test_page_reader.py).
  element.pageReading = async (drawing) => {
    const image = mnistField(padInk(drawing.strokes, drawing.background), SIDE);
    return image === null ? null : {image, ...(await element.readImage(image))};
  };

  // The network on a 28x28 image: {capsules: v [10 * 16], lengths: |v_j| [10]}. Turn it reads its
  // turned digit with it too (turn_reader.js).
  element.readImage = async (image) => {
    const outputs = await session.run({images: new ort.Tensor("float32", image, [1, 1, FIELD, FIELD])});
    return {capsules: outputs.capsules.data, lengths: Array.from(outputs.lengths.data)};
  };

  // What the panel shows when it was read here: {revision, image, capsules, lengths}, or null.
  element.shownReading = null;

  async function read(drawing) {
    const found = await element.pageReading(drawing);
    const holder = element.querySelector(".panel")?.parentElement;
    if (!holder) return;
    if (found === null) holder.innerHTML = props.empty_panel;
    else holder.replaceChildren(filledPanel(found.image, found.capsules, found.lengths, drawing.revision));
    shown = drawing.revision;
    element.shownReading = found && {revision: String(drawing.revision), ...found};
  }

  // The newest drawing read at once; while a reading is under way the moves made meanwhile wait,
  // and only the last of them is read next.
  function readLatest() {
    if (reading || latest === null) return;
    const drawing = latest;
    latest = null;
    reading = true;
    read(drawing)
      .catch((error) => giveUp(`the page's reading failed (${error.message})`))
      .finally(() => { reading = false; readLatest(); });
  }

  let toldWhy = false;
  function giveUp(why) {
    if (!toldWhy) console.info(`The server reads each drawing: ${why}.`);
    toldWhy = true;
    session = null;
  }

  let lastDrawing = null;      // the newest drawing read here
  document.addEventListener("pad-drawing", (event) => {
    if (session === null || !element.isConnected || !event.target.closest?.(props.reader_pad)) return;
    if (!element.decoderLoaded()) return;                            // decoder.js has no weights yet
    event.preventDefault();
    latest = lastDrawing = event.detail;
    readLatest();
  });

  // The server's settled panel of an older drawing than the one shown here stays unseen: the
  // newer reading is drawn again over it.
  watch("value", () => {
    const revision = Number(element.querySelector(".panel")?.dataset.revision ?? 0);
    if (session !== null && lastDrawing !== null && revision < shown && latest === null) {
      latest = lastDrawing;
      readLatest();
    }
  });

  function loadScript(url) {
    return new Promise((done, failed) => {
      const script = Object.assign(document.createElement("script"), {src: url, async: true});
      script.onload = done;
      script.onerror = () => failed(new Error(`${url} did not load`));
      document.head.append(script);
    });
  }

  // Loaded when the page has nothing else to do, after its first paint: a reading never waits.
  const whenIdle = () => new Promise((done) => ("requestIdleCallback" in window ? requestIdleCallback(done) : setTimeout(done)));
  const pageLoaded = new Promise((done) => {
    if (document.readyState === "complete") done();
    else window.addEventListener("load", done, {once: true});
  });
  const absolute = (url) => new URL(url, document.baseURI).href;

  // The session of the graph at `url` (relative to the page), run once on `inputs`, unseen: a
  // session's first run prepares its kernels, so the first reading is as fast as the later ones.
  // Turn it loads its graphs through it too (turn_reader.js), once the reader is ready.
  element.loadGraph = async (url, inputs) => {
    const created = await ort.InferenceSession.create(absolute(url), {executionProviders: ["wasm"]});
    await created.run(inputs);
    return created;
  };

  // A drawing over a background read once and its panel filled, unseen, as the reader gets ready:
  // the first drawing a person makes or taps then finds this code compiled.
  async function warmUp() {
    const background = new Uint8Array(BACKGROUND_SIDE * BACKGROUND_SIDE);
    background[(BACKGROUND_SIDE / 2) * BACKGROUND_SIDE + BACKGROUND_SIDE / 2] = 255;
    const found = await element.pageReading({strokes: [[SIDE / 2 - 20, SIDE / 2, SIDE / 2 + 20, SIDE / 2]], background});
    if (found !== null && element.decoderLoaded()) filledPanel(found.image, found.capsules, found.lengths, 0);
  }

  if (typeof WebAssembly !== "object") {
    giveUp("this browser has no WebAssembly");
  } else if (navigator.connection?.saveData) {
    giveUp("the browser asks to save data, and the network's files are 17 MB");
  } else {
    pageLoaded.then(whenIdle)
      .then(() => loadScript(absolute(`${props.runtime_url}/ort.wasm.min.js`)))
      .then(() => {
        ort.env.wasm.numThreads = 1;
        ort.env.wasm.wasmPaths = {mjs: absolute(`${props.runtime_url}/ort-wasm-simd-threaded.mjs`),
                                  wasm: absolute(`${props.runtime_url}/ort-wasm-simd-threaded.wasm`)};
        const blank = new ort.Tensor("float32", new Float32Array(FIELD * FIELD), [1, 1, FIELD, FIELD]);
        return element.loadGraph(props.network_url, {images: blank});
      })
      .then(async (created) => {
        session = created;
        await warmUp();
        element.dataset.pageReader = "ready";
        document.dispatchEvent(new CustomEvent("page-reader-ready"));
      })
      .catch((error) => giveUp(`the network did not load in the page (${error.message})`));
  }
}
