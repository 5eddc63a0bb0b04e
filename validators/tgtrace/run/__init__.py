"""The run: what a run checks and how it reports (settings, the configuration file, baselines),
the pipeline from inputs to a report (lint), statistics, and watching a live flow."""
