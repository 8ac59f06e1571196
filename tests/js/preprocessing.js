// playground/reading.py PREPROCESSING, as the page is given them: what the tests ink drawings with.
export const facts = {
  side: 280,
  brush: 20,
  background_side: 28,
  field: 28,
  box: 20,
  centre: 14,
  min_contrast: 0.1,
  ink_threshold: 0.2,
};
