// Turn it in the page: the turn panel's js_on_load (`element` and `props` are given), after
// panel_fill.js. When a transform slider moves, it turns the digit the reading panel shows and
// reads it with both networks here, as often as it can, and fills the turn panel: the turned
// digit, the CapsNet's reading and reconstruction, the CNN's, and how far each of the drawn digit's
// 16 dimensions moved. The server hears nothing of the drag.
//
// The turn is capsnet.data.affine.transform itself, exported as a graph (props.turn_url); the CNN
// baseline's graph (props.cnn_url) loads only once the section comes near the screen; the CapsNet,
// the decoder and ONNX Runtime Web are the reading panel's (page_reader.js, decoder.js). The panel is
// the server's layout (turn_views.turn_panel: props.kept_template, the drawn digit still read,
// props.lost_template, another), filled with the numbers read here.
//
// The transform sliders offer each move as a cancelable "turn-change" event, detail {value: the
// sliders' value, as transform_sliders.py describes it}. The turner cancels it where it turns the
// digit itself: its graphs loaded, and the reading panel showing a reading made in the page (of
// the drawing the server keeps, for the same revision). Otherwise the move goes to the server as
// before, and the console says why once, as information.
//
// The section's refresh for a new settled reading comes the same way (turn_it.py's FOLLOW_JS, a
// "turn-refresh" event): where the turner can, it fills the turn panel at the sliders' value and
// the rotation sweep (the server's layout, props.sweep_template, filled by sweep_fill.js) here,
// angle by angle out from 0°, each angle the turn graph then both networks, the sweep redrawn
// after each. It yields to the browser between angles, and a move of a slider goes before the
// next angle, so nothing waits on more than one angle's work; a newer reading abandons the sweep.
{
  const FIELD = 28;
  let turn = null, cnn = null;  // ONNX Runtime's sessions, once loaded
  let latest = null;            // the newest move offered, not yet drawn
  let turning = false;          // a turn is under way
  let sliders = {...props.unchanged, revision: 0};  // the sliders' newest value
  let sweeping = null;          // the sweep under way; a newer one takes its place
  let toldWhy = false;
  let running = Promise.resolve();

  // `work` (which runs the networks) once the work before it is done: the sessions run one thing
  // at a time.
  function exclusive(work) {
    const done = running.then(work);
    running = done.catch(() => {});
    return done;
  }

  function reader() {
    const found = document.querySelector(`${props.reading_panel} [data-page-reader="ready"]`);
    const panel = document.querySelector(`${props.reading_panel} .panel`);
    const shown = found?.shownReading;
    return shown && panel?.dataset.revision === shown.revision ? {found, shown} : null;
  }

  // The reading panel's digit changed as `value` says, read by both networks: {turnedImage,
  // capsules, lengths, probabilities}.
  async function bothRead(value, {found, shown}) {
    const image = new ort.Tensor("float32", shown.image, [1, 1, FIELD, FIELD]);
    const numbers = Float64Array.from(props.change_fields, (name) => value[name]);
    const change = new ort.Tensor("float64", numbers, [numbers.length]);
    const turnedImage = (await turn.run({images: image, change})).turned.data;
    const {capsules, lengths} = await found.readImage(turnedImage);
    const probabilities = Array.from((await cnn.run({images: new ort.Tensor("float32", turnedImage, [1, 1, FIELD, FIELD])})).probabilities.data);
    return {turnedImage, capsules, lengths, probabilities};
  }

  // The reading panel's digit turned as `value` says, read by both networks: the turn panel.
  async function turned(value, {found, shown}) {
    const {turnedImage, capsules, lengths, probabilities} = await bothRead(value, {found, shown});
    const drawn = argmax(shown.lengths), winner = argmax(lengths), cnnWinner = argmax(probabilities);
    const dimensions = capsules.length / lengths.length;
    const moved = Array.from({length: dimensions}, (_, d) => capsules[drawn * dimensions + d] - shown.capsules[drawn * dimensions + d]);

    const panel = fromTemplate(winner === drawn ? props.kept_template : props.lost_template);
    panel.dataset.revision = value.revision;
    pictureSet(panel.querySelector(".turned img.picture"), found.pictureUrl(turnedImage));
    numbered(panel.querySelector(".redrawn figcaption"), winner);
    pictureSet(panel.querySelector(".redrawn img.picture"), found.pictureUrl(found.reconstruction(capsules, winner)), winner);
    panel.querySelector(".verdict.capsnet b").textContent = winner;
    numbered(panel.querySelector(".verdict.capsnet small"), lengths[winner]);
    barsFilled(panel.querySelector(".capsnet-reading svg.lengths"), lengths, winner);
    panel.querySelector(".verdict.cnn b").textContent = cnnWinner;
    numbered(panel.querySelector(".verdict.cnn small"), probabilities[cnnWinner]);
    barsFilled(panel.querySelector(".cnn-reading svg.lengths"), probabilities, cnnWinner);
    numbered(panel.querySelector(".pose figcaption"), drawn, dimensions, props.pose_limit,
             Math.hypot(...moved), shown.lengths[drawn], lengths[drawn]);
    // turn_views.pose_bars: a bar from the middle of its track, right for up and left for down,
    // its half full at ±pose_limit, marked beyond it.
    panel.querySelectorAll(".dimension-move").forEach((row, d) => {
      const name = props.labels[drawn][d], fraction = Math.min(Math.abs(moved[d]) / props.pose_limit, 1);
      Object.assign(row.querySelector(".name"), {textContent: name, title: name});
      const bar = row.querySelector(".bar");
      bar.style.left = moved[d] >= 0 ? "50%" : `${(50 - 50 * fraction).toFixed(1)}%`;
      bar.style.width = `${(50 * fraction).toFixed(1)}%`;
      bar.classList.toggle("beyond", Math.abs(moved[d]) > props.pose_limit);
      row.querySelector(".value").textContent = `${moved[d] >= 0 ? "+" : "-"}${Math.abs(moved[d]).toFixed(3)}`;
    });
    return panel;
  }

  function turnLatest() {
    if (turning || latest === null) return;
    const [value, from] = latest;
    latest = null;
    turning = true;
    exclusive(() => turned(value, from))
      .then((panel) => element.querySelector(".turn")?.replaceWith(panel))
      .catch((error) => giveUp(`turning the digit in the page failed (${error.message})`))
      .finally(() => { turning = false; turnLatest(); });
  }

  function giveUp(why) {
    if (!toldWhy) console.info(`The server turns the digit: ${why}.`);
    toldWhy = true;
    turn = cnn = null;
  }

  document.addEventListener("turn-change", (event) => {
    sliders = event.detail.value;
    const from = reader();
    if (turn === null || cnn === null || from === null || !element.isConnected) return;
    event.preventDefault();
    latest = [event.detail.value, from];
    turnLatest();
  });

  // The browser's turn: whatever waits (a paint, a slider's move, a tap, the server's answers)
  // goes first. (scheduler.yield would put the sweep before the server's answers and the page's
  // other tasks, which then waited for the whole sweep.)
  const yielded = () => new Promise((done) => setTimeout(done));

  // Turn it's refresh of the reading `from` in the page: the sweep shown at once as not read yet,
  // the turn panel at the sliders' value, then the sweep into `into` (the sweep's element) angle
  // by angle out from 0° (0, -10, +10, -20, ...), shown after each, each after a yield. It stops
  // where `job` is no longer the sweep under way or the reading panel shows another reading.
  async function refresh(job, from, reading, into) {
    const angles = props.sweep_angles, count = angles.length;
    const middle = unturned(angles);
    const order = [...angles.keys()].sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle) || a - b);
    const digit = argmax(from.shown.lengths);
    const swept = {reading, digit, angles, lengths: Array(count), readings: Array(count),
                   probabilities: Array(count), cnnReadings: Array(count)};
    const show = () => into.querySelector(".sweep")?.replaceWith(sweepFilled(props.sweep_template, swept, props.sweep_y));
    show();
    await yielded();
    if (sweeping !== job || reader()?.shown !== from.shown) return;
    latest = [sliders, from];
    turnLatest();
    for (const k of order) {
      await yielded();
      if (sweeping !== job || reader()?.shown !== from.shown) return;
      const {lengths, probabilities} = await exclusive(() => bothRead({...props.unchanged, rotation: angles[k]}, from));
      if (sweeping !== job) return;
      [swept.lengths[k], swept.readings[k]] = [lengths[digit], argmax(lengths)];
      [swept.probabilities[k], swept.cnnReadings[k]] = [probabilities[digit], argmax(probabilities)];
      show();
    }
  }

  // Turn it's refresh for the reading the panel shows, made here where the turner can; where the
  // sweep fails, the server is asked.
  document.addEventListener("turn-refresh", (event) => {
    const from = reader(), {reading, sweep: into, server} = event.detail;
    if (turn === null || cnn === null || from?.shown.revision !== reading || !element.isConnected) return;
    event.preventDefault();
    const job = (sweeping = {});
    refresh(job, from, reading, into).catch((error) => {
      giveUp(`sweeping the digit in the page failed (${error.message})`);
      server();
    });
  });

  // The graphs load, through the reading panel's reader (which has loaded ONNX Runtime Web), once
  // the section is near the screen and the reader is ready, whichever comes last: a person who
  // never scrolls here never fetches the CNN.
  let near = false, loading = false;
  function load() {
    const found = document.querySelector(`${props.reading_panel} [data-page-reader="ready"]`);
    if (loading || !near || !found) return;
    loading = true;
    const blank = new ort.Tensor("float32", new Float32Array(FIELD * FIELD), [1, 1, FIELD, FIELD]);
    const unchanged = Float64Array.from(props.change_fields, (name) => props.unchanged[name]);
    Promise.all([
      found.loadGraph(props.turn_url, {images: blank, change: new ort.Tensor("float64", unchanged, [unchanged.length])}),
      found.loadGraph(props.cnn_url, {images: blank}),
    ])
      .then(([turnSession, cnnSession]) => {
        [turn, cnn] = [turnSession, cnnSession];
        element.dataset.turnReader = "ready";
      })
      .catch((error) => giveUp(`its networks did not load in the page (${error.message})`));
  }
  new IntersectionObserver((entries) => {
    near = entries.some((entry) => entry.isIntersecting);
    load();
  }, {rootMargin: "600px 0px"}).observe(element);
  document.addEventListener("page-reader-ready", load);
}
