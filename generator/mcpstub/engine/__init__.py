"""The engine: what makes generation fast, around stages that are plain functions of values.

The stages are read top to bottom in `pipeline.py`. Each store here is keyed by everything its values
are made of, so a value found is the one a cold run would make:

- `run`: what one generation may reuse (its stores and model workers), handed to the stages by
  `pipeline.py`, kept for the next once the package is written;
- `memory`: what a run (or a `--watch` session) made already, by the object or by a key;
- `fingerprints`: a value's marshal bytes and their hash, once per object, to key by;
- `model_groups`: models generated per group of tools, cached on disk, and merged;
- `workers`: the one place processes start (a warm child and its process pool);
- `pieces`: what rendering made of each tool, on disk by the hash of the tool;
- `ahead`: the files rendered before the models, hashed and staged while the models are made;
- `stamp`: the package's stamp, which tells an unchanged toolset without reading it;
- `store`: the cache folder's files (whole or ignored, pruned, safe to delete);
- `session`: what `--watch` keeps between runs;
- `jsonread`: JSON read by `json` where YAML would read the same data (3.5-7.7x faster at 500 tools);
- `reread`: a `--watch` save read again by the tools it changed, not the whole file.

`cli.py` pauses the cycle collector and exits without freeing; `format`, `pytext`, `surface` and
`render` keep measured tricks of their own (figures in docs/performance.md).
"""
