"""What was measured about the trained networks, each study a module with its command line
(robustness, dimension_names, pairs_measurement, changed_ink), and what they share: statistics,
shape_measures and ink_places (measures of a digit image and of where a change happens in it) and
results_file (a results file read back, checked against its weights). The file each study writes
is read back by a module of its own (robustness_file, dimension_names_file,
pairs_measurement_file), which the page imports without the study's measuring code. A study
imports no other study, only its own modules, named after it (dimension_names_claims,
dimension_names_tables, dimension_names_file)."""
