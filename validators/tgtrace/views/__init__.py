"""Views of traces: what `tg-trace list`, `show` and `graph`, and the HTML report, show of a trace;
and what `tg-trace diff` compares of traces, their structure."""
