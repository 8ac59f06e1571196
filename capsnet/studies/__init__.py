"""What was measured about the trained networks, each study a module with its command line
(robustness, dimension_names, pairs_measurement, changed_ink), and what they share: statistics,
shape_measures and results_file (a results file read back, checked against its weights). A
study never imports another study."""
