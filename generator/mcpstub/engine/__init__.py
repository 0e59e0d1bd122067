"""The engine: where generation's speed lives, around stages that are plain functions of values.

The stages (load, validate and bundle, ir, models, render, format, write; `pipeline.py` reads them
top to bottom) compute; what makes a run fast is here, and each store is keyed by everything its
values are made of, so a value found is the one a cold run would make:

- `memory`: what a run (or a `--watch` session) made already, by the object or by a key;
- `fingerprints`: a value's marshal bytes and their hash, made once per object, to key by;
- `model_groups`: tools cut into groups whose models are generated apart, cached on disk by the
  hash of each group's input, and merged;
- `workers`: the one place processes start (a warm child and its process pool);
- `pieces`: what rendering made of each tool, on disk by the hash of the tool;
- `stamp`: the package's stamp, which tells an unchanged toolset without reading it;
- `store`: the cache folder's files (whole or ignored, pruned, safe to delete);
- `session`: what `--watch` keeps between runs;
- `jsonread`: JSON text read by `json` where YAML would read the same data (3.5-7.7x faster at 500 tools);
- `reread`: a `--watch` save read again by the tools it changed, not the whole file.

The command line (`cli.py`) pauses the cycle collector and exits without freeing; a few stages
keep a measured trick of their own, each with its figure in docs/performance.md: the layout of
generated models (`format`), definitions' texts and compile checks made once per definition
(`pytext`, `surface`, `render`).
"""
