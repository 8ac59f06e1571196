// Turn it's turn panel, its page side (playground/turn_it.py `TurnView` lays it out; gr.HTML gives
// `element` and `props`). When a transform slider moves (reading_store.js `turns`), the digit the
// reading panel shows (reading_store.js `shown`) is turned and read by both networks
// (page_networks.js turnAndRead: in the page's workers, two where there are two cores, each move's
// two networks side by side; or by the server where they cannot), as often as answers come, and the
// turn panel is drawn with the newest move read (turn_view.js, its one renderer): the turned
// digit, the CapsNet's reading and reconstruction, the CNN's, and how far each of the drawn digit's
// 16 dimensions moved.
//
// The turn is capsnet.data.affine.transform itself, exported as a graph (props.turn_url); the
// CNN's graph (props.cnn_url) loads only once the section comes near the screen.
//
// The section follows the reading only while it is on the screen, or about to be: when the last
// settled reading the reading panel showed (reading_store.js `settled`) is not the one swept, it
// draws the turn panel at the sliders' value and the rotation sweep angle by angle out from 0°,
// publishing the sweep after each (reading_store.js `turnSweep`, which turn_sweep.js draws). A
// slider's move goes before the next angle, so nothing waits on more than one angle's work; a
// newer reading abandons the sweep. A person drawing while the section is off the screen costs
// nothing more.

import { newestOnly } from "./newest_only.js";
import { startTurner, TURNERS, turnAndRead } from "./page_networks.js";
import { drawn as drawnByReadingPanel } from "./reading_panel.js";
import { turns as moves, settled, shown as shownReading, turnSweep } from "./reading_store.js";
import { unturned } from "./sweep_view.js";
import { turnHtml } from "./turn_view.js";
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

export function mount({ element, props }) {
  const view = element.querySelector(".turn-view");
  const facts = { labels: props.labels, poseLimit: props.pose_limit };
  let sliders = { ...props.unchanged, revision: 0 }; // the sliders' newest value
  let sweeping = null; // the sweep under way; a newer one takes its place
  let swept = ""; // the revision of the settled reading swept (or being swept), "" for none
  let onScreen = false;

  // The turn panel drawn from `turn` (turn_view.js; null: none to turn).
  const draw = (turn) => {
    view.innerHTML = turnHtml(turn, facts);
  };
  draw(null);

  // The reading the reading panel shows, or null where it shows none.
  const reading = () => {
    const current = shownReading.current();
    return current?.image ? current : null;
  };
  // `soon`: a person's move, answered as soon as can be; else an angle of the sweep, which waits
  // for the page's networks where they are loading (page_networks.js turnAndRead)
  const bothRead = (value, shown, soon = true) =>
    turnAndRead(
      shown.image,
      props.change_fields.map((name) => value[name]),
      { soon },
    );

  // The digit of `shown` turned as `value` says, read by both networks: the turn panel's numbers.
  async function turned(value, shown, soon) {
    const { turned, capsules, lengths, reconstruction, probabilities } = await bothRead(value, shown, soon);
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
    async ([value, shown, order, soon]) => {
      const numbers = await turned(value, shown, soon);
      if (order < drawnLast) return;
      drawnLast = order;
      draw(numbers);
    },
    (error) => draw({ message: `Cannot turn the digit: ${error.message}` }),
    TURNERS,
  );
  const offer = (value, shown, soon = true) => {
    offered += 1;
    turn([value, shown, offered, soon]);
  };
  turns.add(turn);

  moves.subscribe(({ value }) => {
    sliders = value;
    const shown = reading();
    if (shown !== null) offer(value, shown);
  });

  // The sweep of the reading `shown` (the pad's revision `revision`), published at once as not
  // read yet, the turn panel at the sliders' value, then angle by angle out from 0° (0, -10, +10,
  // -20, ...), published after each, each after a yield. It stops where `job` is no longer the sweep
  // under way or the reading panel shows another reading.
  async function sweep(job, shown, revision) {
    const angles = props.sweep_angles;
    const count = angles.length;
    const middle = unturned(angles);
    const order = [...angles.keys()].sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle) || a - b);
    const digit = argmax(shown.lengths);
    const numbers = {
      reading: revision,
      digit,
      angles,
      lengths: Array(count),
      readings: Array(count),
      probabilities: Array(count),
      cnnReadings: Array(count),
    };
    turnSweep.publish(numbers);
    await yielded();
    if (sweeping !== job || reading() !== shown) return;
    offer(sliders, shown, false);
    for (const k of order) {
      await yielded();
      if (sweeping !== job || reading() !== shown) return;
      const { lengths, probabilities } = await bothRead({ ...props.unchanged, rotation: angles[k] }, shown, false);
      if (sweeping !== job) return;
      [numbers.lengths[k], numbers.readings[k]] = [lengths[digit], argmax(lengths)];
      [numbers.probabilities[k], numbers.cnnReadings[k]] = [probabilities[digit], argmax(probabilities)];
      turnSweep.publish({ ...numbers });
    }
  }

  // Turn it's refresh for the settled reading the panel shows, once the section is on the screen
  // and the reading panel has drawn it: the turn panel and the sweep.
  function follow() {
    const revision = settled.current()?.revision ?? "";
    if (!onScreen || revision === swept) return;
    swept = revision;
    const job = {};
    sweeping = job;
    drawnByReadingPanel()
      .then(() => {
        const shown = reading();
        if (sweeping !== job) return;
        if (shown === null || String(shown.revision) !== revision) {
          draw(null);
          turnSweep.publish(null);
        } else return sweep(job, shown, revision);
      })
      .catch((error) => draw({ message: `Cannot turn the digit: ${error.message}` }));
  }
  settled.subscribe(follow);

  // The networks load once the section is near the screen: a person who never scrolls here never
  // fetches the CNN. The section is followed while it is on the screen or about to be.
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
      startTurning();
    },
    { rootMargin: "600px 0px" },
  );
  near.observe(element);
  new IntersectionObserver(
    (entries) => {
      onScreen = entries.at(-1).isIntersecting;
      follow();
    },
    { rootMargin: "300px 0px" }, // a section about to scroll into view is refreshed already
  ).observe(element);
}
