"""One capture linted on a Dask cluster: read in ranges, linted where read, put back together."""
