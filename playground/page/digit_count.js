// Ports capsnet/digit_count.py `counted` for one image: the digits a pairs network names, its
// strongest and its second-strongest where its count rule reads two (`CountRule.two`: the second
// score reaches the rule's line and, for the CapsNet, the ink only the second digit's redrawing
// covers reaches its own: `second_ink`). Scores, ink shares and lines are compared in float32
// (`as_compared`), as the server compares them.

// A number as a count rule compares it (digit_count.py `as_compared`).
export const asCompared = Math.fround;

// The two strongest digits, the stronger first (`top_two`; of equal scores, the lower digit first).
export function topTwo(scores) {
  const order = [...scores.keys()].sort((a, b) => scores[b] - scores[a] || a - b);
  return order.slice(0, 2);
}

// {read: the two strongest digits [2] (`top_two`), two: whether `rule` ({second, second_ink: a
// line or null}) names both}, from ten `scores` and, where the rule asks, `ink` (`second_ink`).
export function counted(scores, rule, ink = null) {
  const read = topTwo(scores);
  let two = asCompared(scores[read[1]]) >= asCompared(rule.second);
  if (rule.second_ink !== null) two &&= asCompared(ink) >= asCompared(rule.second_ink);
  return { read, two };
}

// `uncovered`: the share of `image`'s ink that `redrawn` leaves, sum(max(x - r, 0)) / sum(x)
// (each [field²]), summed in float64 (the server's float32 sums differ in the last bits).
function uncovered(image, redrawn) {
  let left = 0;
  let total = 0;
  for (let k = 0; k < image.length; k++) {
    left += Math.max(Math.fround(image[k] - redrawn[k]), 0);
    total += image[k];
  }
  return Math.fround(Math.fround(left) / Math.max(Math.fround(total), Math.fround(1e-6)));
}

// `second_ink`: the share of `image`'s ink that the second digit's redrawing covers and the first's
// leaves, from each one's redrawing from its own capsule alone (`first`, `second`: [field²]).
export function secondInk(image, first, second) {
  const both = first.map((r, k) => Math.max(r, second[k]));
  return Math.fround(uncovered(image, first) - uncovered(image, both));
}
