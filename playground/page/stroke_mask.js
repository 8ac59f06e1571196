// The pen's ink of one stroke: every pixel whose centre (column + 0.5, row + 0.5) lies within brush / 2 of the
// stroke is ink, as `pixelInked` weighs it, at a cost of the rows each segment covers. A segment's ink is a
// round-ended capsule, convex, so each row it covers holds one span of inked columns: its ends are found
// analytically, and a pixel whose centre lies within ROUNDING of an end is weighed exactly (`spanEnd`).

const ROUNDING = 1 / 16; // stroke_mask.py ROUNDING, pad units: rounding moves a span's end by far less
const TANGENT_SLACK = 1e-9; // stroke_mask.py TANGENT_SLACK, squared pad units: rounding's size

// Whether the point (x, y) lies within `radius` of the segment (ax, ay)-(bx, by): the pen's definition.
const pixelInked = (x, y, ax, ay, bx, by, radius) => {
  const dx = bx - ax;
  const dy = by - ay;
  const squaredLength = dx * dx + dy * dy;
  const along = ((x - ax) * dx + (y - ay) * dy) / (squaredLength === 0 ? 1 : squaredLength); // 0 for a dot
  const t = Math.min(Math.max(along, 0), 1); // the nearest point's place on the segment
  const ex = x - (ax + t * dx);
  const ey = y - (ay + t * dy);
  return ex * ex + ey * ey <= radius * radius;
};

// numpy's fmin and fmax: the smaller or larger of two numbers, a NaN (a chord that misses) left out.
const fmin = (a, b) => (a <= b || Number.isNaN(b) ? a : b);
const fmax = (a, b) => (a >= b || Number.isNaN(b) ? a : b);

// The first (`step` 1) or last (-1) inked column of the row at `y` whose span starts or ends at x = `end`: the first
// centre at or after it, or the last at or before it, but for a centre within ROUNDING of it, which `pixelInked`
// weighs (its neighbour inward is then the end if it is not ink). ±Infinity where the row misses.
function spanEnd(end, step, y, ax, ay, bx, by, radius) {
  const place = end - 0.5; // the end, in columns: column c's centre is at c + 0.5
  const nearest = Math.round(place); // numpy's rint but at halves, which are never in doubt
  if (Math.abs(place - nearest) < ROUNDING) {
    return pixelInked(nearest + 0.5, y, ax, ay, bx, by, radius) ? nearest : nearest + step;
  }
  return step === 1 ? Math.ceil(place) : Math.floor(place);
}

// Set to 1 in `mask` (Uint8Array [side * side]) the pixels within brush / 2 of `stroke`, a flat [x0, y0, x1, y1, ...]
// in pad units already rounded to float32 (Math.fround); one point is a dot.
export function strokeMask(mask, stroke, side, brush) {
  const radius = brush / 2;
  const points = stroke.length / 2;
  const segments = Math.max(points - 1, 1);
  for (let s = 0; s < segments; s++) {
    const ax = stroke[2 * s];
    const ay = stroke[2 * s + 1];
    const bx = points > 1 ? stroke[2 * s + 2] : ax;
    const by = points > 1 ? stroke[2 * s + 3] : ay;
    const dx = bx - ax;
    const dy = by - ay;
    const length = Math.sqrt(dx * dx + dy * dy);
    // the left side: the segment moved by r·n, n = (-|dy|, sign(dy)·dx) / length the unit normal pointing to
    // smaller x; the right side moved by -r·n
    const shiftX = (-radius * Math.abs(dy)) / length;
    const shiftY = (radius * Math.sign(dy) * dx) / length;
    const first = Math.min(Math.max(Math.floor(Math.min(ay, by) - radius), 0), side);
    const past = Math.min(Math.max(Math.ceil(Math.max(ay, by) + radius), 0), side);
    for (let row = first; row < past; row++) {
      const y = row + 0.5;
      // where the row enters and leaves the capsule, lo to hi: the hull of the end circles' chords,
      // x = px ± √(r² - (y - py)²), and of where it crosses the sides between their ends (t in 0..1)
      const halfA = Math.sqrt(radius * radius + TANGENT_SLACK - (y - ay) * (y - ay));
      const halfB = Math.sqrt(radius * radius + TANGENT_SLACK - (y - by) * (y - by));
      const tLeft = (y - (ay + shiftY)) / dy;
      const tRight = (y - (ay - shiftY)) / dy;
      const left = tLeft >= 0 && tLeft <= 1 ? ax + shiftX + tLeft * dx : Infinity;
      const right = tRight >= 0 && tRight <= 1 ? ax - shiftX + tRight * dx : -Infinity;
      const lo = fmin(fmin(ax - halfA, bx - halfB), left);
      const hi = fmax(fmax(ax + halfA, bx + halfB), right);
      const start = Math.max(spanEnd(lo, 1, y, ax, ay, bx, by, radius), 0);
      const stop = Math.min(spanEnd(hi, -1, y, ax, ay, bx, by, radius) + 1, side);
      if (start < stop) mask.fill(1, row * side + start, row * side + stop);
    }
  }
}
