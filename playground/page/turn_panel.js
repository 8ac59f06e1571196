// Turn it's turn panel, its page side (playground/turn_it.py `TurnView` lays it out; gr.HTML gives
// `element`, `props` and `watch`). When a transform slider moves, the digit the reading panel shows
// is turned and read by both networks in the page (page_networks.js: in workers, two where there are
// two cores, each move's two networks side by side and the next move begun as soon as a worker is
// free), as often as they are free, and the turn panel is drawn with the newest move read: the
// turned digit, the CapsNet's reading and reconstruction, the CNN's, and how far each of the drawn
// digit's 16 dimensions moved. The server hears nothing of the drag. The panel has one renderer
// (turn_view.js), which draws the server's numbers too (props.value, turn_views.py) where the
// server turned the digit.
//
// The turn is capsnet.data.affine.transform itself, exported as a graph (props.turn_url); the
// CNN's graph (props.cnn_url) loads only once the section comes near the screen.
//
// The transform sliders offer each move (reading_store.js `turns`: {value: the sliders' value, as
// transform_sliders.py describes it}). The panel takes it where it turns the digit itself: its
// networks loaded, and the page's own reading of the drawing the reading panel shows (reading_store.js
// `reading` and `shown`). Otherwise the move goes to the server (with the pad's drawing), and the
// console says why once, as information.
//
// The section's refresh for a new settled reading comes the same way (turn_sweep.js, `refreshes`):
// where the page reads drawings, the refresh waits for the networks, then draws the turn panel at
// the sliders' value and the rotation sweep (with the sweep's `draw`, sweep_view.js) angle by angle
// out from 0°, the sweep redrawn after each. A move of a slider goes before the next angle, so
// nothing waits on more than one angle's work; a newer reading abandons the sweep.

import { newestOnly } from "./newest_only.js";
import { readerState, startTurner, TURNERS, turnAndRead, turnerState } from "./page_networks.js";
import { drawn as drawnByReadingPanel } from "./reading_panel.js";
import { turns as offeredTurns, reading as pageReading, refreshes, shown as shownReading } from "./reading_store.js";
import { unturned } from "./sweep_view.js";
import { fromServer, turnHtml } from "./turn_view.js";
import { argmax } from "./views.js";

// The browser's turn: whatever waits (a paint, a slider's move, a tap, the server's answers) goes
// first. (scheduler.yield would put the sweep before the server's answers and the page's other
// tasks, which then waited for the whole sweep.)
const yielded = () => new Promise((done) => setTimeout(done));

// Turn it's turns under way (newest_only.js), for drawn().
const turns = new Set();

// A promise of the moment the turn panel has drawn every move asked of it so far (the tests' and
// benchmarks' way to wait).
export const drawn = () => Promise.all([...turns].map((turn) => turn.done()));

export function mount({ element, props, watch }) {
  const view = element.querySelector(".turn-view");
  const facts = { labels: props.labels, poseLimit: props.pose_limit };
  let sliders = { ...props.unchanged, revision: 0 }; // the sliders' newest value
  let sweeping = null; // the sweep under way; a newer one takes its place
  let failed = false;
  let toldWhy = false;
  const giveUp = (why) => {
    if (!toldWhy) console.info(`The server turns the digit: ${why}.`);
    toldWhy = true;
    failed = true;
  };

  // The turn panel drawn from `turn` (turn_view.js; null: none to turn).
  const draw = (turn) => {
    view.innerHTML = turnHtml(turn, facts);
  };
  draw(fromServer(props.value));
  watch("value", () => draw(fromServer(props.value)));

  // The page's reading of the drawing the reading panel shows (reading_store.js `shown`: read here,
  // or by the server before the page's networks came), or null where the page has not read it.
  const reading = () => {
    const current = pageReading.current();
    return current?.image && shownReading.current()?.revision === current.revision ? current : null;
  };
  const turning = () => turnerState() === "ready" && !failed && element.isConnected;
  const bothRead = (value, shown) =>
    turnAndRead(
      shown.image,
      props.change_fields.map((name) => value[name]),
    );

  // The digit of `shown` turned as `value` says, read by both networks: the turn panel's numbers.
  async function turned(value, shown) {
    const { turned, capsules, lengths, reconstruction, probabilities } = await bothRead(value, shown);
    const drawn = argmax(shown.lengths);
    const dimensions = capsules.length / lengths.length;
    const moved = Array.from(
      { length: dimensions },
      (_, d) => capsules[drawn * dimensions + d] - shown.capsules[drawn * dimensions + d],
    );
    return {
      revision: value.revision,
      image: turned,
      reconstruction,
      lengths,
      winner: argmax(lengths),
      probabilities,
      cnnWinner: argmax(probabilities),
      moved,
      drawn,
      drawnLength: shown.lengths[drawn],
    };
  }

  // As many turns under way as there are turners, each drawn unless a later one is drawn already.
  let offered = 0;
  let drawnLast = 0;
  const turn = newestOnly(
    async ([value, shown, order]) => {
      const numbers = await turned(value, shown);
      if (order < drawnLast) return;
      drawnLast = order;
      draw(numbers);
    },
    (error) => giveUp(`turning the digit in the page failed (${error.message})`),
    TURNERS,
  );
  const offer = (value, shown) => {
    offered += 1;
    turn([value, shown, offered]);
  };
  turns.add(turn);

  offeredTurns.take(({ value }) => {
    sliders = value;
    const shown = reading();
    if (!turning() || shown === null) return false;
    offer(value, shown);
    return true;
  });

  // Turn it's refresh of the reading `shown`: the sweep drawn at once (`drawSweep`, turn_sweep.js)
  // as not read yet, the turn panel at the sliders' value, then the sweep angle by angle out from 0°
  // (0, -10, +10, -20, ...), drawn after each, each after a yield. It stops where `job` is no longer
  // the sweep under way or the reading panel shows another reading.
  async function refresh(job, shown, revision, drawSweep) {
    const angles = props.sweep_angles;
    const count = angles.length;
    const middle = unturned(angles);
    const order = [...angles.keys()].sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle) || a - b);
    const digit = argmax(shown.lengths);
    const swept = {
      reading: revision,
      digit,
      angles,
      lengths: Array(count),
      readings: Array(count),
      probabilities: Array(count),
      cnnReadings: Array(count),
    };
    drawSweep(swept);
    await yielded();
    if (sweeping !== job || reading() !== shown) return;
    offer(sliders, shown);
    for (const k of order) {
      await yielded();
      if (sweeping !== job || reading() !== shown) return;
      const { lengths, probabilities } = await bothRead({ ...props.unchanged, rotation: angles[k] }, shown);
      if (sweeping !== job) return;
      [swept.lengths[k], swept.readings[k]] = [lengths[digit], argmax(lengths)];
      [swept.probabilities[k], swept.cnnReadings[k]] = [probabilities[digit], argmax(probabilities)];
      drawSweep(swept);
    }
  }

  // Turn it's refresh for the reading the panel shows (`revision`, "" for none), made here where the
  // page reads drawings and can turn them (once its networks are loaded, and the page's reading of
  // that drawing, under way, is done); where it cannot, the server is asked.
  refreshes.take(({ reading: revision, draw: drawSweep, server }) => {
    if (failed || readerState() !== "ready" || turnerState() === "unavailable" || !element.isConnected) return false;
    const job = {};
    sweeping = job;
    startTurning()
      .then(drawnByReadingPanel)
      .then(() => {
        const shown = reading();
        if (sweeping !== job) return;
        if (revision === "") {
          draw(null);
          drawSweep(null);
        } else if (shown === null || String(shown.revision) !== revision)
          server(); // the pad's revision, a number; the offer's, a string
        else return refresh(job, shown, revision, drawSweep);
      })
      .catch((error) => {
        giveUp(`sweeping the digit in the page failed (${error.message})`);
        server();
      });
    return true;
  });

  // The networks load once the section is near the screen: a person who never scrolls here never
  // fetches the CNN.
  const startTurning = () =>
    startTurner({
      runtime: props.runtime_url,
      turn: props.turn_url,
      probabilities: props.cnn_url,
      unchanged: props.change_fields.map((name) => props.unchanged[name]),
    });
  const near = new IntersectionObserver(
    (entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      near.disconnect();
      startTurning().catch((error) => giveUp(`its networks did not load in the page (${error.message})`));
    },
    { rootMargin: "600px 0px" },
  );
  near.observe(element);
}
