"""What was measured about the trained networks, each study a module with its command line
(robustness, dimension_names, pairs_measurement, changed_ink), and what they share: statistics and
shape_measures. A study never imports another study."""
