// Python's round() and numpy's rint for one number: halves go to the even neighbour.
export const roundHalfEven = (x) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x));
