// The decoder in the page: part of the reading panel's js_on_load (`element` and `props` are
// given). It redraws the panel's reconstruction from the panel's capsules, in the page, when a
// slider moves or Decode as changes, so the picture follows the hand with no request.
//
// The weights come once per page from props.decoder_url: the decoder of the network the server
// reads with, as capsnet/decoder_file.py writes it (safetensors: the three Linear layers in
// float16, "0.weight", "0.bias", "2.weight", ..., the network's config in the metadata), at an
// address named by the file's hash, so the browser caches it for good. A panel that shows a
// reading carries data-capsules (the reading's capsules v, [10, 16] float32 little-endian, in
// base64), data-decoder (the address of the decoder of the network that read it), data-decoded
// (the capsule its reconstruction is drawn from) and data-winner.
//
// Whoever wants the reconstruction redrawn dispatches a cancelable "capsule-redraw" event on the
// document, detail {offsets: one number per dimension, or null for none; digit: the capsule to
// draw, null for the winner, absent for the one shown}. The decoder draws and cancels the event;
// where it cannot (its weights not loaded yet or not loadable, a panel of another network's
// reading, no reading shown, an error) it leaves the event alone, and the sender asks the server
// instead. It says why in the console, as information: nothing has gone wrong for the person.
{
  let decoder = null;   // {url, config, layers: [{weight, bias, inputs, outputs}]} once loaded
  // Pictures drawn once the weights are loaded, unseen: the browser compiles the loops on the
  // first and optimises them after, so a slider's first move is drawn as fast as its later ones.
  const WARM_UP_DRAWINGS = 3;

  // float16 bits -> the number they stand for, for every 16-bit pattern
  const HALVES = Float32Array.from({length: 65536}, (_, bits) => {
    const sign = bits & 0x8000 ? -1 : 1, exponent = (bits >> 10) & 0x1f, fraction = bits & 0x3ff;
    if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
    if (exponent === 31) return fraction ? NaN : sign * Infinity;
    return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
  });

  // The decoder's layers from the file's bytes, each checked against the sizes the config gives:
  // the ten masked capsules in, decoder_hidden between, image_size² pixels out.
  function parse(buffer) {
    const headerLength = Number(new DataView(buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, headerLength)));
    const config = JSON.parse(header.__metadata__.config);
    const sizes = [config.num_classes * config.digit_capsule_dim, ...config.decoder_hidden, config.image_size ** 2];
    const tensor = (name, shape) => {
      const entry = header[name];
      if (!entry || entry.dtype !== "F16" || JSON.stringify(entry.shape) !== JSON.stringify(shape)) {
        throw new Error(`${name} is not float16 of shape [${shape}]`);
      }
      const [begin, end] = entry.data_offsets;
      const halves = new Uint16Array(buffer.slice(8 + headerLength + begin, 8 + headerLength + end));
      const values = new Float32Array(halves.length);
      for (let k = 0; k < halves.length; k++) values[k] = HALVES[halves[k]];
      return values;
    };
    const places = Object.keys(header).filter((name) => name.endsWith(".weight"))
      .map((name) => Number(name.split(".")[0])).sort((a, b) => a - b);
    if (places.length !== sizes.length - 1) throw new Error(`${places.length} layers, not ${sizes.length - 1}`);
    const layers = places.map((place, k) => ({
      weight: tensor(`${place}.weight`, [sizes[k + 1], sizes[k]]), bias: tensor(`${place}.bias`, [sizes[k + 1]]),
      inputs: sizes[k], outputs: sizes[k + 1]}));
    return {config, layers};
  }

  // y = W x + b, then ReLU, or the sigmoid for the last layer (PyTorch's Linear: W is [outputs, inputs])
  function linear({weight, bias, inputs, outputs}, x, last) {
    const y = new Float64Array(outputs);
    for (let o = 0; o < outputs; o++) {
      let sum = bias[o];
      for (let i = 0, row = o * inputs; i < inputs; i++) sum += weight[row + i] * x[i];
      y[o] = last ? 1 / (1 + Math.exp(-sum)) : Math.max(sum, 0);
    }
    return y;
  }

  // The decoder's picture of capsule `digit` moved by `offsets`, the other capsules masked to zero
  // (CapsNet.decode): image_size² pixels of ink in [0, 1].
  function decode({config, layers}, capsules, digit, offsets) {
    const dimensions = config.digit_capsule_dim;
    let x = new Float64Array(config.num_classes * dimensions);
    for (let d = 0; d < dimensions; d++) {
      x[digit * dimensions + d] = capsules[digit * dimensions + d] + (offsets ? offsets[d] : 0);
    }
    layers.forEach((layer, k) => { x = linear(layer, x, k === layers.length - 1); });
    return x;
  }

  // The picture as a PNG data URL: black ink on white paper, one grey level of 255 a step (views.paper)
  function pictureUrl(ink, side) {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = side;
    const context = canvas.getContext("2d"), pixels = context.createImageData(side, side);
    ink.forEach((value, k) => {
      pixels.data.fill(255 - Math.round(Math.min(Math.max(value, 0), 1) * 255), 4 * k, 4 * k + 3);
      pixels.data[4 * k + 3] = 255;
    });
    context.putImageData(pixels, 0, 0);
    return canvas.toDataURL("image/png");
  }

  function capsulesOf(panel) {
    const bytes = Uint8Array.from(atob(panel.dataset.capsules), (c) => c.charCodeAt(0));
    return new Float32Array(bytes.buffer);
  }

  function redraw({offsets = null, digit}) {
    const panel = element.querySelector(".panel[data-capsules]");
    const picture = panel?.querySelector(".reconstruction img.picture");
    if (!decoder || !picture || panel.dataset.decoder !== decoder.url) return false;
    const shown = digit === undefined ? Number(panel.dataset.decoded) : digit ?? Number(panel.dataset.winner);
    picture.src = pictureUrl(decode(decoder, capsulesOf(panel), shown, offsets), decoder.config.image_size);
    if (shown !== Number(panel.dataset.decoded)) {   // "Reconstruction from capsule 3": the number changes
      panel.dataset.decoded = shown;
      const caption = panel.querySelector(".reconstruction figcaption");
      caption.textContent = caption.textContent.replace(/\d+$/, shown);
      picture.alt = picture.alt.replace(/\d+$/, shown);
    }
    return true;
  }

  // For the page's reader (page_reader.js), which draws a new reading's pictures: a picture's
  // data URL, whether the decoder's weights are loaded, and capsule `digit`'s reconstruction.
  element.pictureUrl = (ink) => pictureUrl(ink, Math.sqrt(ink.length));
  element.decoderLoaded = () => decoder !== null;
  element.reconstruction = (capsules, digit) => decode(decoder, capsules, digit, null);

  document.addEventListener("capsule-redraw", (event) => {
    try {
      if (element.isConnected && redraw(event.detail)) event.preventDefault();
    } catch (error) {
      console.info(`The server redraws this: the page's decoder failed (${error.message}).`);
    }
  });

  // Each step of loading when the page has nothing else to do, at low priority: the page's own
  // files, its first paint and a first reading go first.
  const idle = (step) => new Promise((done, failed) => {
    const run = () => {
      try { done(step()); } catch (error) { failed(error); }
    };
    if ("requestIdleCallback" in window) requestIdleCallback(run);
    else setTimeout(run);
  });
  const loaded = new Promise((done) => {
    if (document.readyState === "complete") done();
    else window.addEventListener("load", done, {once: true});
  });
  loaded
    .then(() => idle(() => fetch(props.decoder_url, {priority: "low"})))
    .then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.arrayBuffer();
    })
    .then((buffer) => idle(() => parse(buffer)))
    .then((read) => idle(() => {
      const zeros = new Float32Array(read.layers[0].inputs);
      for (let k = 0; k < WARM_UP_DRAWINGS; k++) pictureUrl(decode(read, zeros, 0, null), read.config.image_size);
      decoder = {url: props.decoder_url, ...read};
    }))
    .catch((error) => console.info(`The sliders redraw on the server: the page's decoder did not load (${error.message}).`));
}
